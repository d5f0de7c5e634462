"""Limits (spec: Limits, Errors 429/502): fixed 60-second windows per key and per account with the
plans' numbers, the daily cold-render share per account and the deployment's render ceiling.

Requests that only need to pass authentication are free 304s (`If-None-Match: *`) or 400s, so
the windows fill without rendering; cold renders use a stand-in renderer (the budget decides
before anything is drawn) and a fresh paint per test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.domain.embed import PLAYGROUND_COOKIE
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint, stand_in_png
from tests.conftest import Customer

ANY_ETAG = {"If-None-Match": "*"}
# The rate windows live in the counters, not the database: their tests run on SQLite alone.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
CEILING_50 = pytest.mark.parametrize(  # the free plan's 2 % share of 50 is one cold render a day
    "overrides", [{"daily_render_ceiling": 50}], ids=["ceiling-50"]
)
# FixedClock starts at 2027-01-15T08:00:00Z, on a minute boundary.
NEXT_MIDNIGHT = "2027-01-16T00:00:00Z"
SECONDS_TO_MIDNIGHT = 16 * 3600


@pytest.fixture
def overrides() -> dict[str, Any]:
    """Settings a test changes; parametrize `overrides` to change them."""
    return {}


@pytest.fixture
def settings(tmp_path: Path, database_url: str, overrides: dict[str, Any]) -> Settings:
    return Settings(
        data_dir=tmp_path / "var",
        database_url=database_url,
        base_url="http://testserver",
        render_workers=0,
        **overrides,
    )


@pytest.fixture
def renders(services: Services, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A stand-in renderer; returns the paints it was asked to render."""
    calls: list[str] = []

    async def render(_appearance: object, _view: str, paint: str) -> bytes:
        calls.append(paint)
        return stand_in_png()

    monkeypatch.setattr(services.render_pool, "render", render)
    return calls


async def free_requests(client: httpx.AsyncClient, headers: dict[str, str], count: int) -> None:
    """`count` authenticated requests answered with a free 304."""
    for _ in range(count):
        response = await client.get(IMAGE_URL, params=CAMRY, headers={**headers, **ANY_ETAG})
        assert response.status_code == 304, response.text


async def cold(client: httpx.AsyncClient, customer: Customer, paint: str) -> httpx.Response:
    return await client.get(
        IMAGE_URL, params={**CAMRY, "color": paint, "size": "thumb"}, headers=customer.headers
    )


async def kinds(services: Services, customer: Customer) -> list[str]:
    return [entry.kind for entry in await services.ledger.entries(customer.account_id)]


def assert_rate_headers(response: httpx.Response, limit: int, remaining: int) -> None:
    assert response.headers["ratelimit-limit"] == str(limit)
    assert response.headers["ratelimit-remaining"] == str(remaining)
    assert 1 <= int(response.headers["ratelimit-reset"]) <= 60


# -- per-key window ---------------------------------------------------------------------------


@SQLITE_ONLY
async def test_the_121st_request_of_a_minute_on_a_free_key_is_429_without_code(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await free_requests(client, customer.headers, 120)
    response = await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/problem+json"
    assert_rate_headers(response, 120, 0)
    assert response.headers["retry-after"] == response.headers["ratelimit-reset"]
    body = response.json()
    assert body["status"] == 429
    assert "code" not in body
    assert "120" in body["detail"]
    assert await kinds(services, customer) == ["grant"]


@SQLITE_ONLY
async def test_cheap_requests_count_against_the_key_window(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    invalid = {**CAMRY, "color": "plaid"}  # a 400 decided after authentication
    for count in range(1, 121):
        response = await client.get(IMAGE_URL, params=invalid, headers=customer.headers)
        assert response.status_code == 400
        assert response.headers["ratelimit-remaining"] == str(120 - count)
    limited = await client.get(IMAGE_URL, params=invalid, headers=customer.headers)
    assert limited.status_code == 429
    assert "retry-after" in limited.headers


@SQLITE_ONLY
async def test_a_new_window_resets_the_key_count(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    await free_requests(client, customer.headers, 120)
    limited = await client.get(IMAGE_URL, params=CAMRY, headers={**customer.headers, **ANY_ETAG})
    assert limited.status_code == 429
    clock.advance(int(limited.headers["retry-after"]))
    response = await client.get(IMAGE_URL, params=CAMRY, headers={**customer.headers, **ANY_ETAG})
    assert response.status_code == 304
    assert_rate_headers(response, 120, 119)


@SQLITE_ONLY
@pytest.mark.parametrize(("plan", "limit"), [("pro", 120), ("business", 600), ("enterprise", 1200)])
async def test_key_windows_follow_the_plan(
    client: httpx.AsyncClient, make_customer, plan: str, limit: int
) -> None:  # type: ignore[no-untyped-def]
    customer: Customer = await make_customer(plan=plan)
    response = await client.get(IMAGE_URL, params=CAMRY, headers={**customer.headers, **ANY_ETAG})
    assert response.status_code == 304
    assert_rate_headers(response, limit, limit - 1)


# -- per-account window -----------------------------------------------------------------------


@SQLITE_ONLY
async def test_the_account_window_spans_its_keys_and_is_429_account_rate_limited(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    second, _ = await services.accounts.create_key(account)
    third, _ = await services.accounts.create_key(account)
    await free_requests(client, customer.headers, 120)
    await free_requests(client, {"Authorization": f"Bearer {second}"}, 120)
    response = await client.get(IMAGE_URL, params=CAMRY, headers={"x-api-key": third})
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "account_rate_limited"
    assert body["plan"] == "free"
    assert "240" in body["detail"]
    assert response.headers["retry-after"] == response.headers["ratelimit-reset"]
    assert_rate_headers(response, 120, 119)  # the third key's own window is barely used
    assert await kinds(services, customer) == ["grant"]


# -- daily cold-render share and ceiling ------------------------------------------------------


@CEILING_50
async def test_a_spent_cold_render_share_is_429_account_generation_cap(
    client: httpx.AsyncClient, customer: Customer, services: Services, renders: list[str]
) -> None:
    assert (await cold(client, customer, fresh_paint())).headers["x-image-source"] == "generated"
    response = await cold(client, customer, fresh_paint())
    assert response.status_code == 429
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "account_generation_cap"
    assert body["retry_after_seconds"] == SECONDS_TO_MIDNIGHT
    assert body["reset_at"] == NEXT_MIDNIGHT
    assert response.headers["retry-after"] == str(SECONDS_TO_MIDNIGHT)
    assert "ratelimit-limit" in response.headers
    assert len(renders) == 1
    assert await kinds(services, customer) == ["grant", "debit"]


@CEILING_50
async def test_cached_variants_keep_serving_when_the_share_is_spent(
    client: httpx.AsyncClient, customer: Customer, renders: list[str]
) -> None:
    paint = fresh_paint()
    assert (await cold(client, customer, paint)).status_code == 200
    assert (await cold(client, customer, fresh_paint())).status_code == 429
    response = await cold(client, customer, paint)
    assert response.status_code == 200
    assert response.headers["x-image-source"] == "cache"
    assert response.headers["x-credits-remaining"] == "98"
    other_size = await client.get(  # a new size of a rendered source is no cold render
        IMAGE_URL, params={**CAMRY, "color": paint, "size": "small"}, headers=customer.headers
    )
    assert other_size.status_code == 200
    assert len(renders) == 1


@pytest.mark.parametrize("overrides", [{"daily_render_ceiling": 1}], ids=["ceiling-1"])
async def test_the_deployment_ceiling_is_502_generation_at_capacity(
    client: httpx.AsyncClient, make_customer, services: Services, renders: list[str]
) -> None:  # type: ignore[no-untyped-def]
    first: Customer = await make_customer()
    second: Customer = await make_customer()
    assert (await cold(client, first, fresh_paint())).status_code == 200
    response = await cold(client, second, fresh_paint())
    assert response.status_code == 502
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "generation_at_capacity"
    assert body["retry_after_seconds"] == SECONDS_TO_MIDNIGHT
    assert body["reset_at"] == NEXT_MIDNIGHT
    assert len(renders) == 1
    assert await kinds(services, second) == ["grant"]


@CEILING_50
async def test_the_daily_render_counters_reset_at_midnight_utc(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock, renders: list[str]
) -> None:
    assert (await cold(client, customer, fresh_paint())).status_code == 200
    paint = fresh_paint()
    capped = await cold(client, customer, paint)
    assert capped.status_code == 429
    clock.advance(capped.json()["retry_after_seconds"] - 1)
    assert (await cold(client, customer, paint)).status_code == 429  # one second before
    clock.advance(1)
    response = await cold(client, customer, paint)
    assert response.status_code == 200
    assert response.headers["x-image-source"] == "generated"
    assert len(renders) == 2


@CEILING_50
async def test_a_refused_request_does_not_use_up_the_cold_render_share(
    client: httpx.AsyncClient, make_customer, services: Services, renders: list[str]
) -> None:  # type: ignore[no-untyped-def]
    broke: Customer = await make_customer(credits=0)
    assert (await cold(client, broke, fresh_paint())).status_code == 402
    await services.ledger.grant(broke.account_id, 10, "grant:test:top-up")
    response = await cold(client, broke, fresh_paint())
    assert response.status_code == 200, response.text
    assert len(renders) == 1


# -- the free grants' share of the ceiling -------------------------------------------------------

# A ceiling of 30, as the hostile probe had: free grants get 10 % of it (3), a Business plan 25 %.
CEILING_30 = pytest.mark.parametrize(
    "overrides", [{"daily_render_ceiling": 30}], ids=["ceiling-30"]
)


async def free_preview(client: httpx.AsyncClient, services: Services) -> httpx.Response:
    """A new variant previewed under a new playground cookie (a cold render nobody pays for)."""
    cookie, _ = services.embed.playground_cookie()
    paint = fresh_paint().lstrip("#")
    return await client.get(
        f"/images/car.png?brand=toyota&model=camry&year=2020&color=%23{paint}&size=thumb",
        headers={"Cookie": f"{PLAYGROUND_COOKIE}={cookie}"},
    )


@SQLITE_ONLY
@CEILING_30
async def test_free_grants_cannot_spend_the_renders_paying_accounts_are_entitled_to(
    client: httpx.AsyncClient, make_customer, services: Services, renders: list[str]
) -> None:  # type: ignore[no-untyped-def]
    for _ in range(30):  # as many free previews as the whole ceiling
        await free_preview(client, services)
    business: Customer = await make_customer(plan="business")
    response = await cold(client, business, fresh_paint())
    assert response.status_code == 200, response.text
    assert response.headers["x-image-source"] == "generated"


@SQLITE_ONLY
@CEILING_30
async def test_past_their_share_free_grants_are_502_generation_at_capacity(
    client: httpx.AsyncClient, services: Services, renders: list[str]
) -> None:
    for _ in range(3):
        assert (await free_preview(client, services)).status_code == 200
    refused = await free_preview(client, services)
    assert refused.status_code == 502
    body = refused.json()
    assert body["code"] == "generation_at_capacity"
    assert body["free_share"] == 3
    assert body["reset_at"] == NEXT_MIDNIGHT
    assert len(renders) == 3
