"""Helpers shared by the image endpoint tests."""

from __future__ import annotations

import hashlib
import io
import random
from functools import cache

import httpx
from PIL import Image, ImageDraw

from carimg.services import Services

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


def etag_from_before(services: Services, view: str, color: str, *framing: str) -> str:
    """A Camry's ETag as computed before finishes and reflections: vehicle × view × colour ×
    seed, then the framing (width, height, fit, background, trim, padding, format)."""
    vehicle = services.catalog.find_vehicle("toyota", "camry", 2020)
    assert vehicle is not None
    version = services.images.renderer.version
    source = "|".join((version, vehicle.id, view, color, "0"))
    source_key = hashlib.sha256(source.encode()).hexdigest()[:40] + ".png"
    variant_key = hashlib.sha256("|".join((source_key, *framing)).encode()).hexdigest()[:40]
    variant_key += "." + framing[-1]
    return f'"{hashlib.sha256(variant_key.encode()).hexdigest()[:32]}"'


async def credits(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    """The account's balance (`GET /api/v1/account`)."""
    response = await client.get("/api/v1/account", headers=headers)
    remaining: int = response.json()["data"]["credits"]
    return remaining


async def balance(client: httpx.AsyncClient, headers: dict[str, str]) -> int:
    """The balance as the next image response reports it, without spending (a 304)."""
    response = await client.get(IMAGE_URL, params=CAMRY, headers=headers)
    return int(response.headers["x-credits-remaining"])
