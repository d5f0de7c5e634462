"""Rules found in review: renewals, render budgets on every way in, private caching for origin-
restricted URLs, worker crashes answered 503, bounded event timestamps, cache accounting."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from carimg.render import RenderPoolRestarted
from carimg.services import Services
from carimg.store.blobs import LocalBlobStore
from carimg.store.render_cache import RenderCache
from tests.api.delivery_helpers import THUMB, mint_url
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint
from tests.conftest import Customer

DAY = 86400


async def test_head_and_304_in_an_unpaid_renewal_window_charge_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: object
) -> None:
    path = await mint_url(client, customer.headers, THUMB, renew=True, ttl_seconds=3600)
    first = await client.get(path)
    balance = await services.ledger.balance(customer.account_id)
    clock.advance(3601)  # type: ignore[attr-defined]
    assert (await client.head(path)).status_code == 200
    etag = first.headers["etag"]
    assert (await client.get(path, headers={"If-None-Match": etag})).status_code == 304
    assert await services.ledger.balance(customer.account_id) == balance
    assert (await client.get(path)).status_code == 200
    assert await services.ledger.balance(customer.account_id) == balance - 1


async def test_a_renewal_load_that_fails_gives_the_renewal_back(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: object
) -> None:
    path = await mint_url(
        client, customer.headers, {**THUMB, "color": fresh_paint()}, renew=True, ttl_seconds=3600
    )
    balance = await services.ledger.balance(customer.account_id)
    clock.advance(3601)  # type: ignore[attr-defined]

    async def broken(*_: object) -> bytes:
        raise RuntimeError("render crashed")

    services.render_pool.render = broken  # type: ignore[method-assign]
    assert (await client.get(path)).status_code == 502
    # the renewal is given back, and so is the URL's own credit (its first load failed)
    assert await services.ledger.balance(customer.account_id) == balance + 1


@pytest.mark.parametrize("overrides", [{"daily_render_ceiling": 50}])  # free share: 1 a day
async def test_first_loads_of_signed_urls_count_against_the_daily_share(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    first = await mint_url(client, customer.headers, {**THUMB, "color": fresh_paint()})
    second = await mint_url(client, customer.headers, {**THUMB, "color": fresh_paint()})
    assert (await client.get(first)).status_code == 200
    refused = await client.get(second)
    assert refused.status_code == 429
    assert refused.json()["code"] == "account_generation_cap"


async def test_unlimited_urls_of_origin_restricted_keys_are_not_shared_cached(
    client: httpx.AsyncClient, make_customer: object
) -> None:
    restricted: Customer = await make_customer(origins=("https://shop.example",))  # type: ignore[operator]
    path = await mint_url(client, restricted.headers, THUMB)
    response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["cache-control"].startswith("private")


async def test_a_render_worker_crash_is_a_503_that_costs_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    async def crashed(*_: object) -> bytes:
        raise RenderPoolRestarted("a render worker died")

    services.render_pool.render = crashed  # type: ignore[method-assign]
    response = await client.get(
        IMAGE_URL, params={**CAMRY, "color": fresh_paint()}, headers=customer.headers
    )
    assert response.status_code == 503
    assert "retry-after" in response.headers
    assert await services.ledger.balance(customer.account_id) == 100


@pytest.mark.parametrize("timestamp", ["9999-12-31T23:59:59-23:59", "1970-01-01T00:00:00Z"])
async def test_event_timestamps_outside_the_era_are_400(
    client: httpx.AsyncClient, timestamp: str
) -> None:
    event = {"event": "cli_command", "anonymous_id": "a", "source": "cli", "timestamp": timestamp}
    response = await client.post("/api/v1/events", json={"events": [event]})
    assert response.status_code == 400 and response.json()["index"] == 0


async def test_the_memory_cache_counts_a_replaced_entry_once(tmp_path: Path) -> None:
    cache = RenderCache(LocalBlobStore(tmp_path), memory_bytes=1000)
    for _ in range(5):
        await cache.put_derived("same", b"x" * 200)
    await cache.put_derived("other", b"y" * 200)
    for path in tmp_path.rglob("*"):  # only the memory copies remain
        if path.is_file():
            path.unlink()
    assert await cache.get_derived("same") == b"x" * 200
    assert await cache.get_derived("other") == b"y" * 200


@pytest.mark.parametrize("overrides", [{"operator_token": "s3cret-operator-token"}])
async def test_operator_confirmations_are_rate_limited_per_address(
    client: httpx.AsyncClient,
) -> None:
    statuses = [
        (
            await client.post("/billing/checkout/chk_x/confirm", data={"operator_token": "guess"})
        ).status_code
        for _ in range(11)
    ]
    assert statuses == [403] * 10 + [429]


async def test_two_accounts_may_use_the_same_request_id(
    client: httpx.AsyncClient, customer: Customer, make_customer: object
) -> None:
    other: Customer = await make_customer()  # type: ignore[operator]
    for who in (customer, other):
        image = await client.get(
            IMAGE_URL,
            params={**CAMRY, "size": "thumb"},
            headers={**who.headers, "X-Request-Id": "shared-id-1"},
        )
        assert image.status_code == 200
    for who in (customer, other):
        report = await client.post(
            "/api/v1/feedback",
            json={"request_id": "shared-id-1", "rating": 5},
            headers=who.headers,
        )
        assert report.status_code == 201


async def test_a_crash_after_the_charge_still_leaves_the_response_to_replay(
    app: object, customer: Customer, services: Services
) -> None:
    async def crash(*_: object) -> None:
        raise RuntimeError("the process died after the commit")

    services.idempotency._store.complete = crash  # type: ignore[method-assign]
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        headers = {**customer.headers, "Idempotency-Key": "order-77"}
        first = await client.post("/api/v1/image-urls", json=THUMB, headers=headers)
        assert first.status_code == 500
        retry = await client.post("/api/v1/image-urls", json=THUMB, headers=headers)
    assert retry.status_code == 201
    assert retry.headers["idempotent-replayed"] == "true"
    assert await services.ledger.balance(customer.account_id) == 99


async def test_a_batch_item_that_is_not_an_object_is_400_with_its_index(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    batch = {"images": [THUMB, "camry please"]}
    response = await client.post("/api/v1/image-urls", json=batch, headers=customer.headers)
    assert response.status_code == 400 and response.json()["index"] == 1


@pytest.mark.parametrize(
    "options", [{"max_uses": True}, {"ttl_seconds": "3600"}, {"renew_days": 2.5}]
)
async def test_minting_options_are_whole_numbers_not_look_alikes(
    client: httpx.AsyncClient, customer: Customer, options: dict[str, object]
) -> None:
    body = {"images": [THUMB], **options}
    response = await client.post("/api/v1/image-urls", json=body, headers=customer.headers)
    assert response.status_code == 400


async def test_minting_options_take_a_whole_number_written_as_a_float(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = {"images": [THUMB], "max_uses": 5.0, "ttl_seconds": 600.0}
    response = await client.post("/api/v1/image-urls", json=body, headers=customer.headers)
    assert response.status_code == 201, response.text
    minted = response.json()["data"][0]
    assert minted["max_uses"] == 5 and type(minted["max_uses"]) is int


async def test_a_year_wider_than_64_bits_is_400_not_a_server_error(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/api/v1/vehicles", params={"year": 2**87})
    assert response.status_code == 400
    assert response.json()["parameter"] == "year"


async def test_the_default_port_of_an_allowed_origin_matches(
    client: httpx.AsyncClient, make_customer: object
) -> None:
    restricted: Customer = await make_customer(origins=("https://shop.example",))  # type: ignore[operator]
    path = await mint_url(client, restricted.headers, THUMB)
    ok = await client.get(path, headers={"Referer": "https://shop.example:443/cars/1"})
    assert ok.status_code == 200
    other_port = await client.get(path, headers={"Origin": "https://shop.example:8443"})
    assert other_port.status_code == 403


async def test_an_exhausted_url_that_also_expired_answers_403(
    client: httpx.AsyncClient, customer: Customer, clock: object
) -> None:
    path = await mint_url(client, customer.headers, THUMB, max_uses=1, ttl_seconds=60)
    assert (await client.get(path)).status_code == 200
    clock.advance(61)  # type: ignore[attr-defined]
    assert (await client.get(path)).status_code == 403


async def test_stored_idempotent_responses_do_not_hold_delivery_tokens_in_clear(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    from sqlalchemy import select

    from carimg.store.tables import idempotency

    headers = {**customer.headers, "Idempotency-Key": "order-88"}
    minted = await client.post("/api/v1/image-urls", json=THUMB, headers=headers)
    token = minted.json()["data"][0]["url"].rsplit("/", 1)[1]
    async with services.engine.connect() as conn:
        stored = (await conn.execute(select(idempotency.c.body))).scalar_one()
    assert token.encode() not in stored
    replay = await client.post("/api/v1/image-urls", json=THUMB, headers=headers)
    assert replay.content == minted.content
