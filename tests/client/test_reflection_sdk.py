"""The SDK passes the floor reflection where it passes a background (issue 30)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from carimg.client import AsyncClient, BadRequestError

RED = {"make": "toyota", "model": "camry", "year": 2020, "color": "red", "size": "thumb"}


async def test_an_image_with_a_reflection_is_asked_for_as_a_flag(sdk: AsyncClient) -> None:
    image = await sdk.image(**RED, background="white", reflection=True)
    assert image.content_location is not None
    assert parse_qs(urlsplit(image.content_location).query)["reflection"] == ["true"]


async def test_a_reflection_without_a_background_is_a_bad_request(sdk: AsyncClient) -> None:
    with pytest.raises(BadRequestError) as raised:
        await sdk.image(**RED, reflection=True)
    assert (raised.value.parameter, raised.value.code) == ("reflection", "invalid_params")
