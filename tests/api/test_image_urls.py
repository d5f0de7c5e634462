"""POST /api/v1/image-urls and GET /api/v1/images/car?response=url: minting signed delivery URLs.

One credit per URL, charged once at creation as one debit; every item validated before anything is
charged; renewing URLs bill one credit for the first load of each later ttl window.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest

from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.api.delivery_helpers import (
    DELIVERY_PREFIX,
    IMAGE_URLS,
    THUMB,
    RenderCalls,
    debits,
    mint,
    path_of,
    sqlite_only,
    token_of,
)
from tests.api.images_helpers import fresh_paint
from tests.conftest import Customer

BOUNDS = {"delivery_ttl_min": 300, "delivery_ttl_max": 7200, "delivery_ttl_default": 900}
VEHICLE = {"make": "toyota", "model": "camry", "year": 2020, "view": "front-3-4", "color": "silver"}


def iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def car(**changes: Any) -> dict[str, Any]:
    return {**THUMB, **changes}


# -- the response ------------------------------------------------------------------------------


async def test_a_single_body_mints_one_url_for_one_credit(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car())
    assert response.status_code == 201
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"data", "billing", "request_id"}
    assert body["request_id"] == response.headers["x-request-id"]
    [url] = body["data"]
    assert set(url) == {"id", "url", "expires_at", "max_uses", "vehicle"}
    assert url["url"].startswith(DELIVERY_PREFIX)
    assert url["expires_at"] == iso(clock.now() + timedelta(seconds=3600))
    assert url["max_uses"] == 0
    assert url["vehicle"] == {**VEHICLE, "width": 256, "format": "png"}
    assert body["billing"] == {
        "charged_on": "creation",
        "credits_charged": 1,
        "credits_remaining": 99,
        "credits_per_url": 1,
    }


async def test_a_batch_is_one_debit_of_one_credit_per_url(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    images = [car(), car(view="side", format="webp"), car(color="red", width=300, height=200)]
    response = await mint(client, customer.headers, *images, ttl_seconds=600, max_uses=5)
    assert response.status_code == 201
    body = response.json()
    assert [u["vehicle"] for u in body["data"]] == [
        {**VEHICLE, "width": 256, "format": "png"},
        {**VEHICLE, "view": "side", "width": 256, "format": "webp"},
        {**VEHICLE, "color": "red", "width": 300, "height": 200, "format": "png"},
    ]
    assert {u["max_uses"] for u in body["data"]} == {5}
    assert len({u["id"] for u in body["data"]}) == len({u["url"] for u in body["data"]}) == 3
    assert body["billing"]["credits_charged"] == 3
    assert body["billing"]["credits_remaining"] == 97
    assert await debits(services, customer.account_id) == [-3]


@sqlite_only
async def test_fifty_images_is_the_largest_batch(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await mint(client, customer.headers, *[car()] * 50)
    assert response.status_code == 201
    assert len(response.json()["data"]) == 50
    assert await debits(services, customer.account_id) == [-50]


@sqlite_only
async def test_minting_renders_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    renders = RenderCalls(services)
    response = await mint(client, customer.headers, car(color=fresh_paint()))
    assert response.status_code == 201
    assert renders.count == 0


@sqlite_only
async def test_urls_carry_no_key_or_account_identifier(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await mint(client, customer.headers, car(), car())
    urls = [u["url"] for u in response.json()["data"]]
    for url in urls:
        token = token_of(url)
        assert url == DELIVERY_PREFIX + token
        assert len(token) >= 32
        for secret in (customer.key, customer.key[:12], customer.key_id, customer.account_id):
            assert secret not in url
        assert customer.email.split("@")[0] not in url
    assert urls[0] != urls[1]  # the same image twice is two unguessable URLs


# -- validation: all items first, nothing charged ------------------------------------------------


@sqlite_only
async def test_unknown_properties_are_400(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for body, parameter, index in [
        ({**THUMB, "colour": "red"}, "colour", None),
        ({"images": [THUMB], "ttl": 60}, "ttl", None),
        ({"images": [THUMB, {**THUMB, "colour": "red"}]}, "colour", 1),
    ]:
        response = await client.post(IMAGE_URLS, json=body, headers=customer.headers)
        assert response.status_code == 400, body
        assert response.headers["content-type"] == "application/problem+json"
        problem = response.json()
        assert problem["code"] == "invalid_params"
        assert problem["parameter"] == parameter
        assert problem.get("index") == index
    assert await services.ledger.balance(customer.account_id) == 100


async def test_a_failing_item_names_its_index_and_nothing_is_charged(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for bad, status, parameter in [
        ({"color": "plaid"}, 400, "color"),
        ({"model": "zzz-no-such"}, 404, None),
    ]:
        response = await mint(client, customer.headers, car(), car(view="rear"), car(**bad))
        assert response.status_code == status
        problem = response.json()
        assert problem["index"] == 2
        assert problem.get("parameter") == parameter
        assert problem["detail"].startswith("images[2]: ")
    assert await services.ledger.balance(customer.account_id) == 100
    assert await debits(services, customer.account_id) == []


@sqlite_only
async def test_more_than_fifty_images_is_400(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await mint(client, customer.headers, *[car()] * 51)
    assert response.status_code == 400
    assert response.json()["parameter"] == "images"
    assert await services.ledger.balance(customer.account_id) == 100


@sqlite_only
async def test_an_empty_batch_is_400(client: httpx.AsyncClient, customer: Customer) -> None:
    response = await client.post(IMAGE_URLS, json={"images": []}, headers=customer.headers)
    assert response.status_code == 400


@sqlite_only
async def test_a_body_over_64_kib_is_413(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for content in (
        orjson.dumps({**THUMB, "model": "x" * (64 * 1024)}),
        orjson.dumps({"images": [car(model="x" * 2000)] * 51}),
        b"x" * (64 * 1024 + 1),
    ):
        response = await client.post(
            IMAGE_URLS,
            content=content,
            headers={**customer.headers, "Content-Type": "application/json"},
        )
        assert response.status_code == 413
        assert response.headers["content-type"] == "application/problem+json"
    assert await services.ledger.balance(customer.account_id) == 100


@sqlite_only
async def test_a_body_of_exactly_64_kib_is_read(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = orjson.dumps(car(model="camry"))
    content = body[:-1] + b" " * (64 * 1024 - len(body)) + b"}"
    assert len(content) == 64 * 1024
    response = await client.post(
        IMAGE_URLS,
        content=content,
        headers={**customer.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 201


@sqlite_only
async def test_malformed_json_is_400(client: httpx.AsyncClient, customer: Customer) -> None:
    for content in (b'{"make": "toyota",', b"[1, 2", b"not json", b"", b"[]", b'"camry"'):
        response = await client.post(
            IMAGE_URLS,
            content=content,
            headers={**customer.headers, "Content-Type": "application/json"},
        )
        assert response.status_code == 400, content
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json()["code"] == "invalid_params"


@sqlite_only
async def test_a_body_without_a_key_is_401_whatever_it_holds(client: httpx.AsyncClient) -> None:
    for content in (orjson.dumps(THUMB), b"{not json", orjson.dumps({"images": []})):
        response = await client.post(
            IMAGE_URLS, content=content, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 401, content


@sqlite_only
async def test_ttl_seconds_outside_60_to_604800_is_400(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for ttl in (59, 604801, 0, -60):
        response = await mint(client, customer.headers, car(), car(), ttl_seconds=ttl)
        assert response.status_code == 400, ttl
        assert response.json()["parameter"] == "ttl_seconds"
    assert await services.ledger.balance(customer.account_id) == 100


@sqlite_only
async def test_ttl_seconds_from_60_to_604800_is_accepted(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    for ttl in (60, 604800):
        response = await mint(client, customer.headers, car(), car(), ttl_seconds=ttl)
        assert response.status_code == 201
        expected = iso(clock.now() + timedelta(seconds=ttl))
        assert [u["expires_at"] for u in response.json()["data"]] == [expected] * 2


@sqlite_only
@pytest.mark.parametrize("overrides", [BOUNDS], ids=["bounds-300-7200"])
async def test_ttl_seconds_is_clamped_to_the_deployments_bounds(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    for ttl, granted in [(None, 900), (60, 300), (86400, 7200), (600, 600)]:
        options = {} if ttl is None else {"ttl_seconds": ttl}
        response = await mint(client, customer.headers, car(), **options)
        assert response.status_code == 201
        expires_at = response.json()["data"][0]["expires_at"]
        assert expires_at == iso(clock.now() + timedelta(seconds=granted)), ttl


@sqlite_only
@pytest.mark.parametrize("overrides", [BOUNDS], ids=["bounds-300-7200"])
async def test_options_show_the_deployments_ttl_bounds(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/images/options")
    limits = response.json()["data"]["limits"]
    assert limits["delivery_ttl"] == {"default": 900, "min": 300, "max": 7200}
    assert limits["max_batch_urls"] == 50


@sqlite_only
async def test_max_uses_from_0_to_1000_is_accepted(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    for max_uses in (0, 1, 1000):
        response = await mint(client, customer.headers, car(), max_uses=max_uses)
        assert response.status_code == 201
        assert response.json()["data"][0]["max_uses"] == max_uses


@sqlite_only
async def test_max_uses_outside_0_to_1000_is_400(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for max_uses in (-1, 1001, 2.5):
        response = await mint(client, customer.headers, car(), car(), max_uses=max_uses)
        assert response.status_code == 400, max_uses
        assert response.json()["parameter"] == "max_uses"
    assert await services.ledger.balance(customer.account_id) == 100


async def test_a_short_balance_is_402_and_mints_nothing(
    client: httpx.AsyncClient, make_customer: Any, services: Services
) -> None:
    poor: Customer = await make_customer(credits=2)
    response = await mint(client, poor.headers, car(), car(), car())
    assert response.status_code == 402
    assert response.headers["content-type"] == "application/problem+json"
    assert 'rel="payment"' in response.headers["link"]
    problem = response.json()
    assert problem["title"] == "Insufficient credits"
    assert (problem["balance"], problem["required_credits"]) == (2, 3)
    assert "data" not in problem
    assert await services.ledger.balance(poor.account_id) == 2
    assert await debits(services, poor.account_id) == []
    exact = await mint(client, poor.headers, car(), car())
    assert exact.status_code == 201
    assert exact.json()["billing"]["credits_remaining"] == 0


@sqlite_only
async def test_minting_needs_a_key(client: httpx.AsyncClient) -> None:
    response = await client.post(IMAGE_URLS, json=THUMB)
    assert response.status_code == 401


@sqlite_only
async def test_minting_needs_the_images_read_scope(
    client: httpx.AsyncClient, make_customer: Any, services: Services
) -> None:
    reader: Customer = await make_customer(scopes=("account:read",))
    response = await mint(client, reader.headers, car())
    assert response.status_code == 403
    assert response.json()["required_scope"] == "images:read"
    assert await services.ledger.balance(reader.account_id) == 100


# -- GET /api/v1/images/car?response=url -------------------------------------------------------


async def test_the_image_endpoint_mints_one_url_for_one_credit(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    for credits_remaining, (params, headers) in enumerate(
        [({"response": "url"}, {}), ({}, {"Accept": "application/json"})], start=1
    ):
        response = await client.get(
            "/api/v1/images/car",
            params={"make": "toyota", "model": "camry", "year": 2020, "size": "thumb", **params},
            headers={**customer.headers, **headers},
        )
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/json"
        body = response.json()
        assert set(body) == {"data", "billing", "request_id"}
        assert body["request_id"] == response.headers["x-request-id"]
        data = body["data"]
        assert set(data) == {
            "url", "expires_at", "max_uses", "vehicle", "width", "height", "format"
        }  # fmt: skip
        assert data["url"].startswith(DELIVERY_PREFIX)
        assert data["expires_at"] == iso(clock.now() + timedelta(seconds=3600))
        assert data["max_uses"] == 0
        assert data["vehicle"] == {**VEHICLE, "width": 256, "format": "png"}
        assert (data["width"], data["height"], data["format"]) == (256, 256, "png")
        assert body["billing"] == {
            "credits_charged": 1, "credits_remaining": 100 - credits_remaining
        }  # fmt: skip
        load = await client.get(path_of(data["url"]))
        assert load.status_code == 200 and load.headers["content-type"] == "image/png"
    assert await debits(services, customer.account_id) == [-1, -1]


# -- renewing URLs -----------------------------------------------------------------------------


async def test_a_renewing_url_states_when_it_stops_renewing(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car(), renew=True, renew_days=30)
    assert response.status_code == 201
    [url] = response.json()["data"]
    assert url["renews_until"] == iso(clock.now() + timedelta(days=30))
    assert url["expires_at"] == iso(clock.now() + timedelta(seconds=3600))
    assert response.json()["billing"]["credits_charged"] == 1


@sqlite_only
async def test_renew_days_defaults_to_365(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car(), renew=True)
    assert response.json()["data"][0]["renews_until"] == iso(clock.now() + timedelta(days=365))


@sqlite_only
async def test_a_url_that_does_not_renew_has_no_renews_until(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await mint(client, customer.headers, car())
    assert "renews_until" not in response.json()["data"][0]


@sqlite_only
async def test_renewing_needs_unlimited_uses_and_1_to_365_days(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for options, parameter in [
        ({"renew": True, "max_uses": 5}, "renew"),
        ({"renew": True, "renew_days": 0}, "renew_days"),
        ({"renew": True, "renew_days": 366}, "renew_days"),
        ({"renew_days": 30}, "renew_days"),
    ]:
        response = await mint(client, customer.headers, car(), **options)
        assert response.status_code == 400, options
        assert response.json()["parameter"] == parameter
    for days in (1, 365):
        accepted = await mint(client, customer.headers, car(), renew=True, renew_days=days)
        assert accepted.status_code == 201
    assert await services.ledger.balance(customer.account_id) == 98


async def test_the_first_load_of_each_later_window_bills_one_credit(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car(), ttl_seconds=60, renew=True)
    path = path_of(response.json()["data"][0]["url"])
    balance = await services.ledger.balance(customer.account_id)
    assert (await client.get(path)).status_code == 200
    assert await services.ledger.balance(customer.account_id) == balance == 99
    for window in (1, 2):
        clock.advance(60)
        first = await client.get(path)
        again = await client.get(path)
        assert first.status_code == again.status_code == 200
        assert await services.ledger.balance(customer.account_id) == 99 - window
    assert await debits(services, customer.account_id) == [-1, -1, -1]


async def test_a_quiet_window_is_not_billed(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car(), ttl_seconds=60, renew=True)
    path = path_of(response.json()["data"][0]["url"])
    clock.advance(60 * 5 + 30)  # windows 1 to 4 pass without a load
    assert (await client.get(path)).status_code == 200
    assert await services.ledger.balance(customer.account_id) == 98


async def test_racing_loads_in_a_new_window_pay_once(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    response = await mint(client, customer.headers, car(), ttl_seconds=60, renew=True)
    path = path_of(response.json()["data"][0]["url"])
    clock.advance(61)
    loads = await asyncio.gather(*(client.get(path) for _ in range(10)))
    assert [load.status_code for load in loads] == [200] * 10
    assert await services.ledger.balance(customer.account_id) == 98
    assert await debits(services, customer.account_id) == [-1, -1]


async def test_racing_loads_that_meet_the_last_credit_all_serve(
    client: httpx.AsyncClient, make_customer: Any, services: Services, clock: FixedClock
) -> None:
    """The window is paid by whichever load comes first; the others must not see a 402."""
    owner: Customer = await make_customer(credits=2)
    response = await mint(client, owner.headers, car(), ttl_seconds=60, renew=True)
    path = path_of(response.json()["data"][0]["url"])
    clock.advance(61)
    loads = await asyncio.gather(*(client.get(path) for _ in range(10)))
    assert [load.status_code for load in loads] == [200] * 10
    assert await services.ledger.balance(owner.account_id) == 0


async def test_an_empty_balance_stops_renewal_with_402_until_credits_arrive(
    client: httpx.AsyncClient, make_customer: Any, services: Services, clock: FixedClock
) -> None:
    owner: Customer = await make_customer(credits=1)
    response = await mint(client, owner.headers, car(), ttl_seconds=60, renew=True)
    path = path_of(response.json()["data"][0]["url"])
    created = clock.now()
    clock.advance(150)  # inside window 2: 120–180 s after minting
    refused = await client.get(path)
    assert refused.status_code == 402
    assert refused.headers["content-type"] == "application/problem+json"
    problem = refused.json()
    assert (problem["balance"], problem["required_credits"]) == (0, 1)
    window = problem["renewal_window"]
    assert window["index"] == 2
    assert datetime.fromisoformat(window["starts_at"]) == created + timedelta(seconds=120)
    assert datetime.fromisoformat(window["ends_at"]) == created + timedelta(seconds=180)
    await services.ledger.grant(owner.account_id, 5, "grant:test")
    resumed = await client.get(path)
    assert resumed.status_code == 200
    assert await services.ledger.balance(owner.account_id) == 4


async def test_a_renewing_url_expires_when_renewal_ends(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    response = await mint(
        client, customer.headers, car(), ttl_seconds=43200, renew=True, renew_days=1
    )
    path = path_of(response.json()["data"][0]["url"])
    clock.advance(43200 + 1)
    assert (await client.get(path)).status_code == 200
    clock.advance(43200)
    expired = await client.get(path)
    assert expired.status_code == 403
    assert await services.ledger.balance(customer.account_id) == 98
