"""Variant B plan caps hold on every way to buy an image: URLs too, and under concurrency."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from carimg.services import Services
from carimg.store.usage import UsageStore
from tests.api.images_helpers import fresh_paint
from tests.api.test_billing import fill_month
from tests.conftest import Customer

VARIANT_B = pytest.mark.parametrize("overrides", [{"pricing_variant": "B"}])
URLS = "/api/v1/image-urls"


def camry(year: int) -> dict[str, Any]:
    return {"make": "toyota", "model": "camry", "year": year, "size": "thumb"}


@VARIANT_B
async def test_minting_urls_for_a_new_vehicle_past_the_cap_is_402_and_charges_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await fill_month(services, customer, 100)
    response = await client.post(URLS, json=camry(2020), headers=customer.headers)
    assert response.status_code == 402
    assert response.json()["code"] == "plan_vehicle_limit"
    assert await services.ledger.balance(customer.account_id) == 100


@VARIANT_B
async def test_a_batch_counts_each_new_vehicle_and_is_refused_whole(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await fill_month(services, customer, 99)
    batch = {"images": [camry(2019), camry(2020)]}
    response = await client.post(URLS, json=batch, headers=customer.headers)
    assert response.status_code == 402
    assert await services.ledger.balance(customer.account_id) == 100
    single = await client.post(URLS, json=camry(2019), headers=customer.headers)
    assert single.status_code == 201


@VARIANT_B
async def test_a_refused_request_counts_no_vehicle(
    client: httpx.AsyncClient, make_customer: Any, services: Services
) -> None:
    broke: Customer = await make_customer(credits=0)
    response = await client.post(URLS, json=camry(2020), headers=broke.headers)
    assert response.status_code == 402 and "code" not in response.json()
    month = services.clock.now().strftime("%Y-%m")
    assert await UsageStore(services.db).vehicles_in_month(broke.account_id, month) == 0


@VARIANT_B
async def test_concurrent_new_vehicles_never_pass_the_cap(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await fill_month(services, customer, 97)
    responses = await asyncio.gather(
        *(
            client.post(URLS, json=camry(year), headers=customer.headers)
            for year in range(2012, 2020)
        )
    )
    assert sorted(r.status_code for r in responses) == [201] * 3 + [402] * 5
    month = services.clock.now().strftime("%Y-%m")
    assert await UsageStore(services.db).vehicles_in_month(customer.account_id, month) == 100


@VARIANT_B
async def test_a_refunded_render_counts_no_vehicle(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    async def broken(*_: object) -> bytes:
        raise RuntimeError("render crashed")

    services.render_pool.render = broken  # type: ignore[method-assign]
    response = await client.get(
        "/api/v1/images/car",
        params={**camry(2018), "color": fresh_paint()},
        headers=customer.headers,
    )
    assert response.status_code == 502
    month = services.clock.now().strftime("%Y-%m")
    assert await UsageStore(services.db).vehicles_in_month(customer.account_id, month) == 0
