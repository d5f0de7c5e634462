"""Helpers shared by the image endpoint tests."""

from __future__ import annotations

import io
import random
from functools import cache

import httpx
from PIL import Image, ImageDraw

IMAGE_URL = "/api/v1/images/car"
CAMRY = {"make": "toyota", "model": "camry", "year": "2020"}


@cache
def stand_in_png() -> bytes:
    """A source render to stand in for the renderer's where only rules are tested (cheap)."""
    image = Image.new("RGBA", (1024, 1024), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((200, 400, 824, 700), fill=(90, 90, 100, 255))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def fresh_paint() -> str:
    """A hex paint no other test asked for: its variant is certainly not cached yet."""
    return f"#{random.randrange(0x1000000):06x}"


def pixels(response: httpx.Response) -> Image.Image:
    image = Image.open(io.BytesIO(response.content))
    image.load()
    return image


async def balance(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    """The balance as the next image response reports it, without spending (a 304)."""
    response = await client.get(IMAGE_URL, params=CAMRY, headers=headers)
    return int(response.headers["x-credits-remaining"])
