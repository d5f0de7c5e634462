"""The floor reflection (`reflection`: carimg's own output option, issue 30) on the image endpoint
and minted delivery URLs.

A reflection lies on the background, so it is a different image there (pixels, ETag, canonical
URL); without it an image keeps the URL and ETag it had before reflections existed, and asking for
one on a transparent background is a 400 problem that charges nothing."""

from __future__ import annotations

import httpx
import pytest

from carimg.services import Services
from tests.api.delivery_helpers import debits, mint, path_of, sqlite_only
from tests.api.images_helpers import CAMRY, IMAGE_URL, credits, etag_from_before, pixels
from tests.conftest import Customer

# One red thumbnail from the side on white: its source is rendered once per run.
ON_WHITE = {**CAMRY, "view": "side", "color": "red", "size": "thumb", "background": "white"}
REFLECTED = {**ON_WHITE, "reflection": "true"}
TRANSPARENT = {**CAMRY, "view": "side", "color": "red", "size": "thumb", "reflection": "true"}


async def get(
    client: httpx.AsyncClient, customer: Customer, params: dict[str, str]
) -> httpx.Response:
    return await client.get(IMAGE_URL, params=params, headers=customer.headers)


async def minted_path(client: httpx.AsyncClient, customer: Customer) -> str:
    """The path of a delivery URL minted for the red side view with a reflection on white."""
    minted = await mint(client, customer.headers, ON_WHITE | {"reflection": True})
    return path_of(minted.json()["data"][0]["url"])


async def test_a_reflection_renders_other_pixels_on_a_background(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer, ON_WHITE)
    reflected = await get(client, customer, REFLECTED)
    assert plain.status_code == reflected.status_code == 200
    assert pixels(reflected).tobytes() != pixels(plain).tobytes()


async def test_a_reflection_gets_its_own_etag_and_canonical_url(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer, ON_WHITE)
    reflected = await get(client, customer, REFLECTED)
    assert reflected.headers["etag"] != plain.headers["etag"]
    assert reflected.headers["content-location"] == (
        "http://testserver/api/v1/images/car?make=toyota&model=camry&year=2020&view=side"
        "&color=red&w=256&background=white&reflection=true&format=png"
    )


async def test_without_a_reflection_the_url_and_etag_are_those_from_before_reflections(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await get(client, customer, ON_WHITE)
    assert response.headers["content-location"] == (
        "http://testserver/api/v1/images/car?make=toyota&model=camry&year=2020&view=side"
        "&color=red&w=256&background=white&format=png"
    )
    # the ETag as it was computed before reflections: the source key, then the framing
    framing = ("256", "None", "contain", "white", "False", "0", "png")
    assert response.headers["etag"] == etag_from_before(services, "side", "red", *framing)


async def test_reflection_false_is_the_image_without_a_reflection(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer, ON_WHITE)
    unasked = await get(client, customer, ON_WHITE | {"reflection": "false"})
    assert unasked.headers["etag"] == plain.headers["etag"]
    assert unasked.headers["content-location"] == plain.headers["content-location"]


async def test_a_jpeg_reflects_on_its_white_default(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, TRANSPARENT | {"format": "jpg"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/jpeg"


@sqlite_only
@pytest.mark.parametrize("image_format", ["png", "webp"])
async def test_a_reflection_on_a_transparent_background_is_a_400_problem(
    client: httpx.AsyncClient, customer: Customer, image_format: str
) -> None:
    response = await get(client, customer, TRANSPARENT | {"format": image_format})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == "http://testserver/docs/errors#400"
    assert (body["status"], body["code"], body["retryable"]) == (400, "invalid_params", False)
    assert body["parameter"] == "reflection"
    assert body["detail"] == (
        "'reflection' needs a background other than transparent: send background=white, "
        "black or a hex color too (or format=jpg)."
    )
    assert body["request_id"] == response.headers["x-request-id"]


@sqlite_only
async def test_a_reflection_on_a_transparent_background_costs_nothing(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    await get(client, customer, TRANSPARENT)
    assert await credits(client, customer.headers) == 100


@sqlite_only
async def test_a_batch_with_a_reflection_on_transparent_mints_nothing_and_names_the_item(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    items = [ON_WHITE | {"reflection": True}, TRANSPARENT | {"reflection": True}]
    response = await mint(client, customer.headers, *items, batch=True)
    assert response.status_code == 400
    assert (response.json()["parameter"], response.json()["index"]) == ("reflection", 1)
    assert await debits(services, customer.account_id) == []


async def test_a_minted_url_serves_the_reflection_it_was_minted_with(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    loaded = await client.get(await minted_path(client, customer))
    keyed = await get(client, customer, REFLECTED)
    assert loaded.status_code == 200
    assert loaded.headers["etag"] == keyed.headers["etag"]


async def test_a_query_added_to_a_minted_url_does_not_take_its_reflection_away(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await minted_path(client, customer)
    loaded = await client.get(path)
    altered = await client.get(f"{path}?reflection=false")
    assert altered.headers["etag"] == loaded.headers["etag"]


async def test_a_tampered_url_minted_with_a_reflection_is_403(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await minted_path(client, customer)
    tampered = path[:-1] + ("A" if path[-1] != "A" else "B")
    response = await client.get(tampered)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
