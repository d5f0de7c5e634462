"""The paid image path on the generative backend: billing, cache, refunds, 503s, health."""

from __future__ import annotations

import httpx
import pytest

from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL
from tests.conftest import Customer
from tests.generative.fakeimages import FakeImages

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
SIDE = {**CAMRY, "view": "side", "color": "red", "w": "256", "format": "png"}


async def balance(client: httpx.AsyncClient, customer: Customer) -> int:
    response = await client.get("/api/v1/account", headers=customer.headers)
    credits: int = response.json()["data"]["credits"]
    return credits


async def get(client: httpx.AsyncClient, customer: Customer, **params: str) -> httpx.Response:
    return await client.get(IMAGE_URL, params={**SIDE, **params}, headers=customer.headers)


async def test_a_generated_image_costs_one_credit_and_then_comes_from_the_cache(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages
) -> None:
    first = await get(client, customer)
    assert first.status_code == 200, first.text
    assert first.headers["X-Image-Source"] == "generated"
    assert (
        first.headers["X-Credits-Charged"] == "1" and first.headers["X-Credits-Remaining"] == "99"
    )
    again = await get(client, customer)
    assert again.headers["X-Image-Source"] == "cache" and again.content == first.content
    assert images_server.calls == {"generations": 1, "edits": 1}
    assert await balance(client, customer) == 98


async def test_the_etag_carries_the_generative_render_version(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    response = await get(client, customer)
    assert response.status_code == 200, response.text
    assert services.images.renderer.version.startswith("openai-")
    assert response.headers["ETag"] != ""


@pytest.mark.parametrize("behaviour", ["500", "refusal", "truncated", "malformed"])
async def test_a_provider_failure_is_a_502_with_the_credit_refunded(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages, behaviour: str
) -> None:
    images_server.script = [behaviour]
    response = await get(client, customer, color="blue")
    assert response.status_code == 502
    assert response.headers["Content-Type"] == "application/problem+json"
    assert await balance(client, customer) == 100


async def test_a_provider_429_is_a_503_with_retry_after_and_nothing_charged(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages
) -> None:
    images_server.script = ["429"]
    response = await get(client, customer, color="green")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "7"
    assert await balance(client, customer) == 100


async def test_an_open_breaker_is_a_503_before_any_charge_or_call(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages
) -> None:
    images_server.default = "500"
    for paint in ("white", "black", "gray"):  # CARIMG_OPENAI_BREAKER_FAILURES=3 here
        assert (await get(client, customer, color=paint)).status_code == 502
    calls = sum(images_server.calls.values())
    refused = await get(client, customer, color="silver")
    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
    assert sum(images_server.calls.values()) == calls
    assert await balance(client, customer) == 100


async def test_cached_images_keep_serving_while_the_provider_is_down(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages
) -> None:
    assert (await get(client, customer, color="tan")).status_code == 200
    images_server.default = "500"
    for paint in ("white", "black", "gray"):
        await get(client, customer, color=paint)
    cached = await get(client, customer, color="tan")
    assert cached.status_code == 200 and cached.headers["X-Image-Source"] == "cache"
    other_size = await get(client, customer, color="tan", w="128")
    assert other_size.status_code == 200  # derived from the cached source, no model call


async def test_health_reports_the_backend_and_its_open_breaker(
    client: httpx.AsyncClient, customer: Customer, images_server: FakeImages
) -> None:
    renderer = (await client.get("/api/health")).json()["dependencies"]["renderer"]
    assert renderer["kind"] == "openai" and renderer["state"] == "ok"
    images_server.default = "500"
    for paint in ("white", "black", "gray"):
        await get(client, customer, color=paint)
    health = (await client.get("/api/health")).json()
    assert health["dependencies"]["renderer"]["state"] == "error: CircuitOpen"
    assert health["status"] == "degraded"
