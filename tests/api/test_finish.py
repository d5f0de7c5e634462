"""The paint finish (`finish`: gloss, metallic, satin, matte; carimg's own parameter, issue 30)
on the image endpoint, minted delivery URLs, partner-signed embed URLs and feedback.

A finish is part of an image's identity (pixels, ETag, canonical URL, what is charged and stored);
an image without one keeps the URL and ETag it had before finishes existed."""

from __future__ import annotations

import httpx

from carimg.domain.signing import signed_embed_url
from carimg.services import Services
from carimg.store.partners import Partner
from tests.api.delivery_helpers import debits, mint, path_of, sqlite_only
from tests.api.images_helpers import CAMRY, IMAGE_URL, credits, etag_from_before, pixels
from tests.conftest import Customer

# One red thumbnail from the side: rendered once per run in each finish the tests ask for.
RED = {**CAMRY, "view": "side", "color": "red", "size": "thumb"}
FINISHES = ["gloss", "metallic", "satin", "matte"]
EMBED = "/images/car.png"
SECRET = "partner-secret"


async def get(client: httpx.AsyncClient, customer: Customer, **params: str) -> httpx.Response:
    response = await client.get(IMAGE_URL, params={**RED, **params}, headers=customer.headers)
    assert response.status_code in (200, 400), response.text
    return response


def signed(services: Services, **params: object) -> str:
    query = {"brand": "toyota", "model": "camry", "year": 2020, "w": 256, **params}
    return signed_embed_url("", SECRET, query, now=services.clock.time())  # type: ignore[arg-type]


async def add_partner(services: Services) -> None:
    await services.partners.create(Partner("ptn_test", "Test", SECRET), services.clock.now())


async def test_a_matte_finish_renders_other_pixels_than_the_default(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer)
    matte = await get(client, customer, finish="matte")
    assert pixels(matte).tobytes() != pixels(plain).tobytes()


async def test_a_finish_gets_its_own_etag_and_canonical_url(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer)
    matte = await get(client, customer, finish="matte")
    assert matte.headers["etag"] != plain.headers["etag"]
    assert matte.headers["content-location"] == (
        "http://testserver/api/v1/images/car?make=toyota&model=camry&year=2020&view=side"
        "&color=red&finish=matte&w=256&format=png"
    )


async def test_without_a_finish_the_url_and_etag_are_those_from_before_finishes(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await get(client, customer)
    assert response.headers["content-location"] == (
        "http://testserver/api/v1/images/car?make=toyota&model=camry&year=2020&view=side"
        "&color=red&w=256&format=png"
    )
    # the ETag as it was computed before finishes: vehicle × view × colour × seed, then framing
    framing = ("256", "None", "contain", "transparent", "False", "0", "png")
    assert response.headers["etag"] == etag_from_before(services, "side", "red", *framing)


async def test_the_colours_own_finish_is_the_same_image_as_no_finish(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    plain = await get(client, customer)
    gloss = await get(client, customer, finish="gloss")  # red's own finish
    assert gloss.headers["etag"] == plain.headers["etag"]
    assert gloss.headers["content-location"] == plain.headers["content-location"]


@sqlite_only
async def test_an_unknown_finish_is_a_400_problem_naming_the_finishes(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, finish="chrome")
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == "http://testserver/docs/errors#400"
    assert (body["status"], body["code"], body["retryable"]) == (400, "invalid_params", False)
    assert (body["parameter"], body["allowed"]) == ("finish", FINISHES)
    assert body["detail"] == "'finish' must be one of gloss, metallic, satin, matte; got 'chrome'."
    assert body["request_id"] == response.headers["x-request-id"]


@sqlite_only
async def test_an_unknown_finish_costs_nothing(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    await get(client, customer, finish="chrome")
    assert await credits(client, customer.headers) == 100


@sqlite_only
async def test_a_batch_with_an_unknown_finish_mints_nothing_and_names_the_item(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await mint(client, customer.headers, RED, RED | {"finish": "shiny"}, batch=True)
    assert response.status_code == 400
    assert (response.json()["parameter"], response.json()["index"]) == ("finish", 1)
    assert await debits(services, customer.account_id) == []


async def test_a_minted_url_serves_the_finish_it_was_minted_with(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    minted = await mint(client, customer.headers, RED | {"finish": "satin"})
    [url] = minted.json()["data"]
    assert url["vehicle"]["finish"] == "satin"
    loaded = await client.get(path_of(url["url"]))
    keyed = await get(client, customer, finish="satin")
    assert loaded.status_code == 200
    assert loaded.headers["etag"] == keyed.headers["etag"]


async def test_a_partner_signed_url_with_a_finish_verifies(
    client: httpx.AsyncClient, services: Services
) -> None:
    await add_partner(services)
    response = await client.get(signed(services, finish="matte"))
    assert response.status_code == 200
    assert response.headers["x-credits-charged"] == "0"


async def test_a_partner_signed_url_with_a_tampered_finish_is_403(
    client: httpx.AsyncClient, services: Services
) -> None:
    await add_partner(services)
    url = signed(services, finish="matte")
    response = await client.get(url.replace("finish=matte", "finish=satin"))
    assert response.status_code == 403


@sqlite_only
async def test_an_embed_finish_in_another_spelling_is_redirected_to_the_canonical_one(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get(f"{EMBED}?brand=toyota&model=camry&year=2020&finish=MATTE")
    assert response.status_code == 308
    assert response.headers["location"] == (
        f"{EMBED}?brand=toyota&model=camry&year=2020&finish=matte"
    )


@sqlite_only
async def test_a_home_page_example_in_another_finish_is_not_a_free_example(
    client: httpx.AsyncClient,
) -> None:
    example = "brand=toyota&model=camry&year=2020&view=front-3-4&color=silver&size=small"
    assert (await client.get(f"{EMBED}?{example}")).status_code == 200
    assert (await client.get(f"{EMBED}?{example}&finish=matte")).status_code == 401


@sqlite_only
async def test_feedback_naming_a_finish_is_about_that_finishs_render(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    report = {"make": "toyota", "model": "camry", "year": 2020, "color": "red", "rating": 4}
    plain = await client.post("/api/v1/feedback", json=report, headers=customer.headers)
    matte = await client.post(
        "/api/v1/feedback", json=report | {"finish": "matte"}, headers=customer.headers
    )
    assert matte.status_code == plain.status_code == 201
    assert matte.json()["data"]["asset_id"] != plain.json()["data"]["asset_id"]


async def test_a_delivery_stores_a_paint_key_longer_than_a_hex_colour(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    # the deliveries table held 7 characters: `burgundy` alone failed on PostgreSQL (a 500)
    response = await get(client, customer, color="burgundy", finish="matte")
    assert response.status_code == 200
