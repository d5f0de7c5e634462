"""Idempotency-Key on POST /api/v1/image-urls: retries replay the first response, charged once.

Scoped to account and route, remembered 24 hours, claimed in the database (so several server
processes agree); a retry that overtakes the running original gets 409 with Retry-After 2.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.render import RenderPool
from carimg.services import Services
from tests.api.delivery_helpers import (
    IMAGE_URLS,
    THUMB,
    debits,
    sqlite_only,
)
from tests.conftest import Customer

BATCH = {"images": [THUMB, {**THUMB, "view": "rear"}], "ttl_seconds": 600}


async def post(
    client: httpx.AsyncClient,
    customer: Customer,
    key: str | None,
    body: dict[str, Any] = BATCH,
) -> httpx.Response:
    headers = dict(customer.headers)
    if key is not None:
        headers["Idempotency-Key"] = key
    return await client.post(IMAGE_URLS, json=body, headers=headers)


async def test_the_same_key_and_body_replays_the_first_response_byte_for_byte(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    first = await post(client, customer, "order-1234")
    again = await post(client, customer, "order-1234")
    assert first.status_code == again.status_code == 201
    assert "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    assert again.headers["content-type"] == "application/json"
    assert await debits(services, customer.account_id) == [-2]
    assert await services.ledger.balance(customer.account_id) == 98


async def test_without_a_key_every_request_mints_and_charges(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    first = await post(client, customer, None)
    again = await post(client, customer, None)
    assert first.status_code == again.status_code == 201
    assert first.json()["data"][0]["url"] != again.json()["data"][0]["url"]
    assert await debits(services, customer.account_id) == [-2, -2]


async def test_the_same_key_with_a_different_body_is_422(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    first = await post(client, customer, "order-1234")
    changed = await post(client, customer, "order-1234", {**BATCH, "max_uses": 3})
    assert first.status_code == 201
    assert changed.status_code == 422
    assert changed.headers["content-type"] == "application/problem+json"
    assert changed.json()["status"] == 422
    assert "idempotent-replayed" not in changed.headers
    assert await debits(services, customer.account_id) == [-2]


@sqlite_only
async def test_a_malformed_key_is_400_and_charges_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for key in ("", "two words", "k" * 256, "semi;colon", "slash/key", "ключ"):
        headers: dict[str, str | bytes] = {**customer.headers, "Idempotency-Key": key.encode()}
        response = await client.post(IMAGE_URLS, json=BATCH, headers=headers)
        assert response.status_code == 400, key
        problem = response.json()
        assert (problem["code"], problem["parameter"]) == ("invalid_params", "Idempotency-Key")
    assert await debits(services, customer.account_id) == []


@sqlite_only
async def test_keys_of_1_to_255_letters_digits_and_dot_underscore_colon_dash_are_accepted(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    for key in ("k", "k" * 255, "Order.2024_01:batch-7"):
        response = await post(client, customer, key)
        assert response.status_code == 201, key


async def test_keys_are_scoped_per_account(
    client: httpx.AsyncClient, customer: Customer, make_customer: Any, services: Services
) -> None:
    other: Customer = await make_customer()
    mine = await post(client, customer, "shared-key")
    theirs = await post(client, other, "shared-key", {**BATCH, "max_uses": 9})
    assert mine.status_code == theirs.status_code == 201
    assert "idempotent-replayed" not in theirs.headers
    assert theirs.json()["data"][0]["max_uses"] == 9
    assert await debits(services, customer.account_id) == [-2]
    assert await debits(services, other.account_id) == [-2]


async def test_a_key_is_remembered_for_24_hours(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    first = await post(client, customer, "daily")
    clock.advance(24 * 3600 - 60)
    within = await post(client, customer, "daily")
    assert within.headers["idempotent-replayed"] == "true"
    assert within.content == first.content
    assert await debits(services, customer.account_id) == [-2]


async def test_a_key_is_forgotten_after_24_hours(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: FixedClock
) -> None:
    first = await post(client, customer, "daily")
    clock.advance(24 * 3600 + 1)
    later = await post(client, customer, "daily", {**BATCH, "max_uses": 2})
    assert later.status_code == 201
    assert "idempotent-replayed" not in later.headers
    assert later.content != first.content
    assert await debits(services, customer.account_id) == [-2, -2]


async def test_a_failed_original_is_forgotten_so_a_corrected_retry_runs(
    client: httpx.AsyncClient, make_customer: Any, services: Services
) -> None:
    poor: Customer = await make_customer(credits=1)
    refused = await post(client, poor, "checkout-7")
    assert refused.status_code == 402
    corrected = await post(client, poor, "checkout-7", THUMB)
    assert corrected.status_code == 201
    assert "idempotent-replayed" not in corrected.headers
    replay = await post(client, poor, "checkout-7", THUMB)
    assert replay.headers["idempotent-replayed"] == "true"
    assert await debits(services, poor.account_id) == [-1]


async def test_an_invalid_original_is_forgotten_so_a_corrected_retry_runs(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    invalid = await post(client, customer, "fix-me", {**BATCH, "max_uses": 5000})
    assert invalid.status_code == 400
    corrected = await post(client, customer, "fix-me")
    assert corrected.status_code == 201
    assert "idempotent-replayed" not in corrected.headers
    assert await debits(services, customer.account_id) == [-2]


async def test_a_retry_that_overtakes_the_running_original_is_409_with_retry_after_2(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    minting = services.delivery_urls.mint
    started, release = asyncio.Event(), asyncio.Event()

    async def slow_mint(*args: Any, **kwargs: Any) -> Any:
        started.set()
        await release.wait()
        return await minting(*args, **kwargs)

    services.delivery_urls.mint = slow_mint  # type: ignore[method-assign]
    original = asyncio.create_task(post(client, customer, "slow"))
    try:
        await asyncio.wait_for(started.wait(), 10)
        overtaking = await asyncio.wait_for(post(client, customer, "slow"), 10)
        assert overtaking.status_code == 409
        assert overtaking.headers["retry-after"] == "2"
        assert overtaking.headers["content-type"] == "application/problem+json"
        assert await debits(services, customer.account_id) == []
    finally:
        release.set()
    first = await original
    assert first.status_code == 201
    retried = await post(client, customer, "slow")
    assert retried.headers["idempotent-replayed"] == "true"
    assert retried.content == first.content
    assert await debits(services, customer.account_id) == [-2]


async def test_racing_retries_charge_once_and_agree(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    responses = await asyncio.gather(*(post(client, customer, "race") for _ in range(10)))
    assert await debits(services, customer.account_id) == [-2]
    created = [r for r in responses if r.status_code == 201]
    conflicts = [r for r in responses if r.status_code == 409]
    assert len(created) + len(conflicts) == 10
    assert [r.headers.get("idempotent-replayed") for r in created].count(None) == 1
    assert len({r.content for r in created}) == 1
    assert {r.headers["retry-after"] for r in conflicts} <= {"2"}
    settled = await post(client, customer, "race")
    assert settled.headers["idempotent-replayed"] == "true"
    assert settled.content == created[0].content


@asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


async def test_two_instances_on_one_database_agree(
    client: httpx.AsyncClient,
    customer: Customer,
    services: Services,
    settings: Settings,
    catalog: Catalog,
    clock: FixedClock,
) -> None:
    """The claim lives in the database: a second process sees the first one's key."""
    second = create_app(settings, catalog=catalog, clock=clock, render_pool=RenderPool(0))
    async with running(second) as other:
        one = await post(client, customer, "two-processes")
        two = await post(other, customer, "two-processes")
        assert two.headers["idempotent-replayed"] == "true"
        assert two.content == one.content
        changed = await post(other, customer, "two-processes", THUMB)
        assert changed.status_code == 422
        raced = await asyncio.gather(*(post(c, customer, "raced") for c in (client, other) * 5))
    assert await debits(services, customer.account_id) == [-2, -2]
    created = [r for r in raced if r.status_code == 201]
    assert {r.status_code for r in raced} <= {201, 409}
    assert [r.headers.get("idempotent-replayed") for r in created].count(None) == 1
    assert len({r.content for r in created}) == 1
