"""GET /api/v1/account and GET /api/v1/pricing (spec: Account response, Pricing variants, Scopes,
Charges by operation): balance and its value, pricing, 30 days of usage, the key, links per
variant, the plan (variant B); the public, cacheable pricing document."""

from __future__ import annotations

import re
import secrets
from typing import Any

import httpx
import pytest

from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint
from tests.conftest import Customer

ACCOUNT_URL = "/api/v1/account"
PRICING_URL = "/api/v1/pricing"
THUMB = {**CAMRY, "size": "thumb"}  # one variant, rendered once per test session
# Rules of the HTTP layer and the pricing tables run on one database; stored data on both.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
VARIANT_B = pytest.mark.parametrize("overrides", [{"pricing_variant": "B"}], ids=["variant-B"])
PACKS = {
    "A": [(5000, 500), (10000, 1000), (25000, 2500), (100000, 10000)],
    "B": [(100, 100), (500, 500), (1000, 1000), (2500, 2500), (10000, 10000)],
}
PLANS_B = ["free", "pro", "business", "enterprise"]
LINKS_B = {
    "create_checkout": "/api/v1/billing/checkout",
    "billing_portal": "/api/v1/billing/portal",
    "pricing": "/api/v1/pricing",
    "docs": "/docs",
    "openapi": "/openapi.json",
    "mcp": "/api/mcp",
}


async def account(client: httpx.AsyncClient, customer: Customer) -> dict[str, Any]:
    response = await client.get(ACCOUNT_URL, headers=customer.headers)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == f"http://testserver/docs/errors#{status}"
    assert body["request_id"] == response.headers["x-request-id"]
    return body


# -- authentication and scope ---------------------------------------------------------------


@SQLITE_ONLY
async def test_account_without_a_key_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get(ACCOUNT_URL)
    assert_problem(response, 401)
    assert "www-authenticate" not in response.headers


@SQLITE_ONLY
async def test_account_with_an_unknown_key_is_401_invalid_token(client: httpx.AsyncClient) -> None:
    unknown = "cimg_" + secrets.token_urlsafe(32)  # well formed, never issued
    response = await client.get(ACCOUNT_URL, headers={"Authorization": f"Bearer {unknown}"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"] == 'Bearer error="invalid_token"'


@SQLITE_ONLY
async def test_account_without_account_read_is_403_required_scope(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    reader: Customer = await make_customer(scopes=("images:read", "billing:write"))
    response = await client.get(ACCOUNT_URL, headers=reader.headers)
    body = assert_problem(response, 403)
    assert body["required_scope"] == "account:read"


@SQLITE_ONLY
async def test_account_accepts_the_x_api_key_header(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(ACCOUNT_URL, headers={"x-api-key": customer.key})
    assert response.status_code == 200
    assert response.json()["data"]["credits"] == 100


# -- the document -----------------------------------------------------------------------------


@SQLITE_ONLY
async def test_account_is_a_private_envelope_with_data_links_and_request_id(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(ACCOUNT_URL, headers=customer.headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["cache-control"] == "private, no-store"
    assert response.headers["ratelimit-limit"] == "120"
    assert response.headers["ratelimit-remaining"] == "119"
    body = response.json()
    assert set(body) == {"data", "links", "request_id"}
    assert body["request_id"] == response.headers["x-request-id"]


async def test_account_reports_the_balance_and_its_dollar_value_in_variant_a(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    rich: Customer = await make_customer(credits=12345)
    data = (await account(client, rich))["data"]
    assert data["credits"] == 12345
    assert data["credits_value_usd"] == pytest.approx(12.35)  # 1000 credits per dollar
    assert data["auto_reload"] is False
    assert data["has_payment_method"] is False


@VARIANT_B
async def test_account_values_credits_at_100_per_dollar_in_variant_b(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    rich: Customer = await make_customer(credits=250)
    data = (await account(client, rich))["data"]
    assert data["credits"] == 250
    assert data["credits_value_usd"] == pytest.approx(2.5)


@SQLITE_ONLY
async def test_account_reading_is_free(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for _ in range(3):
        await account(client, customer)
    assert await services.ledger.balance(customer.account_id) == 100
    assert [e.kind for e in await services.ledger.entries(customer.account_id)] == ["grant"]


@SQLITE_ONLY
async def test_account_pricing_in_variant_a_has_the_packs_and_no_plans(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    pricing = (await account(client, customer))["data"]["pricing"]
    assert pricing["credits_per_image"] == 1
    assert pricing["credits_per_dollar"] == 1000
    assert [(p["credits"], p["cents"]) for p in pricing["packs"]] == PACKS["A"]
    assert all(isinstance(p.get("label", ""), str) for p in pricing["packs"])
    assert not pricing.get("plans")


@SQLITE_ONLY
@VARIANT_B
async def test_account_pricing_in_variant_b_has_its_packs_and_plans(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    pricing = (await account(client, customer))["data"]["pricing"]
    assert pricing["credits_per_image"] == 1
    assert pricing["credits_per_dollar"] == 100
    assert [(p["credits"], p["cents"]) for p in pricing["packs"]] == PACKS["B"]
    assert [plan["id"] for plan in pricing["plans"]] == PLANS_B


async def test_account_key_shows_prefix_scopes_and_creation_time_never_the_secret(
    client: httpx.AsyncClient, make_customer, clock: FixedClock
) -> None:  # type: ignore[no-untyped-def]
    scopes = ("images:read", "account:read", "billing:write")
    holder: Customer = await make_customer(scopes=scopes)
    response = await client.get(ACCOUNT_URL, headers=holder.headers)
    key = response.json()["data"]["key"]
    assert key["prefix"] and holder.key.startswith(key["prefix"])
    assert len(key["prefix"]) < len(holder.key)
    assert sorted(key["scopes"]) == sorted(scopes)
    assert key["created_at"] == clock.now().isoformat().replace("+00:00", "Z")
    assert holder.key not in response.text


# -- usage_30d --------------------------------------------------------------------------------


@SQLITE_ONLY
async def test_usage_30d_is_zero_for_a_new_account(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    usage = (await account(client, customer))["data"]["usage_30d"]
    assert (usage["images"], usage["urls"], usage["credits"]) == (0, 0, 0)
    assert all((day["images"], day["urls"], day["credits"]) == (0, 0, 0) for day in usage["by_day"])


async def test_usage_30d_counts_an_image_a_batch_of_urls_and_a_refund(
    client: httpx.AsyncClient,
    customer: Customer,
    services: Services,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    image = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert image.status_code == 200
    batch = {"images": [THUMB, {**THUMB, "view": "side"}]}
    urls = await client.post("/api/v1/image-urls", json=batch, headers=customer.headers)
    assert urls.status_code == 201, urls.text

    async def failing(*_: object) -> bytes:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(services.render_pool, "render", failing)
    refunded = await client.get(
        IMAGE_URL, params={**CAMRY, "color": fresh_paint()}, headers=customer.headers
    )
    assert refunded.status_code == 502
    usage = (await account(client, customer))["data"]["usage_30d"]
    # 1 image kept, 2 URLs, and the failed image's debit cancelled by its refund
    assert (usage["images"], usage["urls"], usage["credits"]) == (1, 2, 3)
    today = clock.now().date().isoformat()
    assert usage["by_day"] == [{"date": today, "images": 1, "urls": 2, "credits": 3}]


async def test_usage_30d_splits_usage_by_utc_day(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    first_day = clock.now().date().isoformat()
    assert (await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)).status_code == 200
    clock.advance(86400)
    second_day = clock.now().date().isoformat()
    for _ in range(2):
        response = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
        assert response.status_code == 200
    usage = (await account(client, customer))["data"]["usage_30d"]
    assert (usage["images"], usage["credits"]) == (3, 3)
    assert [(d["date"], d["images"], d["credits"]) for d in usage["by_day"]] == [
        (first_day, 1, 1),
        (second_day, 2, 2),
    ]


async def test_usage_30d_forgets_usage_older_than_30_days(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    assert (await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)).status_code == 200
    clock.advance(31 * 86400)
    data = (await account(client, customer))["data"]
    assert data["credits"] == 99  # the balance remembers
    usage = data["usage_30d"]
    assert (usage["images"], usage["urls"], usage["credits"], usage["by_day"]) == (0, 0, 0, [])


async def test_has_payment_method_after_a_paid_checkout(
    client: httpx.AsyncClient, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    buyer: Customer = await make_customer(scopes=("account:read", "billing:write"))
    checkout = await client.post(
        "/api/v1/billing/checkout", json={"credits": 5000}, headers=buyer.headers
    )
    assert checkout.status_code == 201, checkout.text
    await services.billing.confirm(checkout.json()["data"]["checkout_id"])
    data = (await account(client, buyer))["data"]
    assert data["has_payment_method"] is True
    assert data["credits"] == 5100
    assert data["credits_value_usd"] == pytest.approx(5.1)


# -- links and plan per variant ---------------------------------------------------------------


@SQLITE_ONLY
async def test_variant_a_links_name_the_dashboard_and_pricing_addresses(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    links = (await account(client, customer))["links"]
    assert links["dashboard"] == "http://testserver/dashboard"
    assert links["pricing"] == "http://testserver/api/v1/pricing"
    assert all(isinstance(value, str) and value for value in links.values())


@SQLITE_ONLY
@VARIANT_B
async def test_variant_b_links_are_the_relative_paths_of_the_spec(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    links = (await account(client, customer))["links"]
    assert {name: links[name] for name in LINKS_B} == LINKS_B
    assert all(value.startswith("/") for value in links.values())


@SQLITE_ONLY
@VARIANT_B
async def test_variant_b_relative_links_resolve_on_this_deployment(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    links = (await account(client, customer))["links"]
    for name in ("pricing", "openapi"):
        response = await client.get(links[name])
        assert response.status_code == 200, (name, response.status_code)


@SQLITE_ONLY
async def test_variant_a_has_no_plan(client: httpx.AsyncClient, customer: Customer) -> None:
    assert "plan" not in (await account(client, customer))["data"]


@VARIANT_B
async def test_variant_b_reports_the_accounts_plan(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    pro: Customer = await make_customer(plan="pro")
    plan = (await account(client, pro))["data"]["plan"]
    assert plan["id"] == "pro"
    assert plan["price_monthly"] == 29
    assert plan["credits_per_month"] == 25000
    assert plan["distinct_vehicles_per_month"] == 2500


@VARIANT_B
async def test_variant_b_plan_counts_the_vehicles_served_this_month(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    assert (await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)).status_code == 200
    plan = (await account(client, customer))["data"]["plan"]
    assert (plan["id"], plan["distinct_vehicles_per_month"]) == ("free", 100)
    assert plan["vehicles_this_month"] == 1


# -- GET /api/v1/pricing ----------------------------------------------------------------------


@SQLITE_ONLY
async def test_pricing_is_public_and_lists_variant_a_packs(client: httpx.AsyncClient) -> None:
    response = await client.get(PRICING_URL)
    assert response.status_code == 200
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"]
    data = body["data"]
    assert data["credits_per_image"] == 1
    assert data["credits_per_dollar"] == 1000
    assert [(p["credits"], p["cents"]) for p in data["packs"]] == PACKS["A"]
    for pack in data["packs"]:
        assert pack["cents"] * data["credits_per_dollar"] == pack["credits"] * 100
    assert not data.get("plans")


@SQLITE_ONLY
@VARIANT_B
async def test_pricing_in_variant_b_lists_its_packs_and_plans(client: httpx.AsyncClient) -> None:
    data = (await client.get(PRICING_URL)).json()["data"]
    assert data["credits_per_dollar"] == 100
    assert [(p["credits"], p["cents"]) for p in data["packs"]] == PACKS["B"]
    plans = {plan["id"]: plan for plan in data["plans"]}
    assert list(plans) == PLANS_B
    for plan in plans.values():
        assert set(plan) >= {
            "id",
            "price_monthly",
            "credits_per_month",
            "distinct_vehicles_per_month",
            "checkout_url",
        }
    assert (plans["pro"]["price_monthly"], plans["pro"]["credits_per_month"]) == (29, 25000)
    assert (plans["business"]["price_monthly"], plans["business"]["credits_per_month"]) == (
        99,
        150000,
    )
    assert plans["free"]["distinct_vehicles_per_month"] == 100


@SQLITE_ONLY
async def test_pricing_is_publicly_cacheable_with_a_free_304(client: httpx.AsyncClient) -> None:
    first = await client.get(PRICING_URL)
    assert first.headers["cache-control"] == "public, max-age=3600"
    etag = first.headers["etag"]
    assert re.fullmatch(r'(W/)?"[^"]+"', etag)
    again = await client.get(PRICING_URL, headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""


@SQLITE_ONLY
async def test_pricing_rejects_unknown_query_parameters(client: httpx.AsyncClient) -> None:
    response = await client.get(PRICING_URL, params={"variant": "B"})
    body = assert_problem(response, 400)
    assert body["parameter"] == "variant"
