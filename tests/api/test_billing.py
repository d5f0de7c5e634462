"""Charges (spec: Charges by operation, Pricing variants, Errors 402/502): the opening grant, one
ledger debit per delivered image, free errors, refunds of failed renders, variant B's plan caps."""

from __future__ import annotations

import io
import re
import uuid
from datetime import UTC, datetime
from functools import cache
from typing import Any

import httpx
import pytest
from PIL import Image, ImageDraw

from carimg.services import Services
from carimg.store.records import LedgerEntry
from carimg.store.usage import UsageStore
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint
from tests.conftest import Customer

THUMB = {**CAMRY, "size": "thumb"}  # one variant, rendered once per test session
CIVIC = {"make": "honda", "model": "civic", "year": "2020"}
CIVIC_ID = "veh_c937d6ac7511a"
PAYMENT_LINK = re.compile(r'^<(http://testserver/[^>]+)>; rel="payment"$')
VARIANT_B = pytest.mark.parametrize("overrides", [{"pricing_variant": "B"}], ids=["variant-B"])


@cache
def stand_in_png() -> bytes:
    """A 1024 px source render stand-in: the rules here decide before or after rendering,
    never on what is drawn."""
    image = Image.new("RGBA", (1024, 1024), (0, 0, 0, 0))
    ImageDraw.Draw(image).rectangle((200, 400, 824, 700), fill=(90, 90, 100, 255))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture
def stand_in_renders(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    async def render(*_: object) -> bytes:
        return stand_in_png()

    monkeypatch.setattr(services.render_pool, "render", render)


async def entries(services: Services, account_id: str) -> list[LedgerEntry]:
    return await services.ledger.entries(account_id)


async def fill_month(services: Services, customer: Customer, vehicles: int) -> None:
    """Count `vehicles` made-up vehicles as served to the customer this month."""
    usage = UsageStore(services.db)
    month = services.clock.now().strftime("%Y-%m")
    for _ in range(vehicles):
        admitted, _count = await usage.admit_vehicle(
            customer.account_id, month, f"veh_fake{uuid.uuid4().hex[:9]}", 100
        )
        assert admitted


def assert_payment_details(response: httpx.Response, variant: str) -> dict[str, Any]:
    """The members and the header every 402 carries; returns the body."""
    assert response.status_code == 402, response.text
    assert response.headers["content-type"] == "application/problem+json"
    link = PAYMENT_LINK.match(response.headers["link"])
    assert link, response.headers["link"]
    body: dict[str, Any] = response.json()
    assert body["checkout_url"].startswith("http://testserver/")
    pricing = body["pricing"]
    assert pricing["credits_per_dollar"] == {"A": 1000, "B": 100}[variant]
    assert pricing["pricing_url"] == "http://testserver/api/v1/pricing"
    assert len(pricing["packs"]) == {"A": 4, "B": 5}[variant]
    for pack in pricing["packs"]:
        assert set(pack) >= {"id", "credits", "price", "checkout_url"}
        assert pack["checkout_url"].startswith("http://testserver/")
        assert pack["price"] * pricing["credits_per_dollar"] == pack["credits"]
    assert isinstance(pricing["plans"], list)
    assert "x-credits-charged" not in response.headers
    return body


# -- grants and debits ------------------------------------------------------------------------


async def test_a_new_account_starts_with_100_credits(
    client: httpx.AsyncClient, services: Services
) -> None:
    account = await services.accounts.create_account(f"new-{uuid.uuid4().hex[:8]}@example.com")
    assert await services.ledger.balance(account.id) == 100
    [grant] = await entries(services, account.id)
    assert (grant.kind, grant.amount, grant.balance_after) == ("grant", 100, 100)
    key, _ = await services.accounts.create_key(account)
    response = await client.get(IMAGE_URL, params=THUMB, headers={"x-api-key": key})
    assert response.status_code == 200
    assert response.headers["x-credits-charged"] == "1"
    assert response.headers["x-credits-remaining"] == "99"


async def test_each_delivered_image_is_one_debit_with_a_unique_reference(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    remaining = []
    for _ in range(3):
        response = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
        assert response.status_code == 200
        remaining.append(response.headers["x-credits-remaining"])
    assert remaining == ["99", "98", "97"]
    grant, *debits = await entries(services, customer.account_id)
    assert grant.kind == "grant"
    assert [(d.kind, d.amount, d.balance_after) for d in debits] == [
        ("debit", -1, 99),
        ("debit", -1, 98),
        ("debit", -1, 97),
    ]
    assert len({d.reference for d in debits}) == 3
    assert await services.ledger.balance(customer.account_id) == 97


# -- 402 --------------------------------------------------------------------------------------


async def test_an_empty_balance_is_402_insufficient_credits_with_payment_details(
    client: httpx.AsyncClient, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    broke: Customer = await make_customer(credits=0)
    response = await client.get(IMAGE_URL, params=THUMB, headers=broke.headers)
    body = assert_payment_details(response, "A")
    assert body["title"] == "Insufficient credits"
    assert body["status"] == 402
    assert "code" not in body
    assert (body["balance"], body["required_credits"]) == (0, 1)
    assert body["pricing"]["plans"] == []
    assert response.headers["ratelimit-limit"] == "120"
    assert await services.ledger.balance(broke.account_id) == 0
    assert await entries(services, broke.account_id) == []


@VARIANT_B
async def test_variant_b_402_offers_the_variant_b_packs_and_plans(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    broke: Customer = await make_customer(credits=0)
    response = await client.get(IMAGE_URL, params=THUMB, headers=broke.headers)
    body = assert_payment_details(response, "B")
    assert body["title"] == "Insufficient credits"
    plans = body["pricing"]["plans"]
    assert [plan["id"] for plan in plans] == ["free", "pro", "business", "enterprise"]
    for plan in plans:
        assert set(plan) >= {
            "id",
            "price_monthly",
            "credits_per_month",
            "distinct_vehicles_per_month",
            "checkout_url",
        }
    assert plans[0]["distinct_vehicles_per_month"] == 100


async def test_every_client_error_costs_nothing(
    client: httpx.AsyncClient, customer: Customer, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    account = await services.accounts.by_email(customer.email)
    reader_key, _ = await services.accounts.create_key(account, scopes=("account:read",))
    cases: list[tuple[dict[str, str], dict[str, str], int]] = [
        ({**THUMB, "color": "plaid"}, customer.headers, 400),
        ({**THUMB, "response": "html"}, customer.headers, 400),
        ({**THUMB, "colour": "red"}, customer.headers, 400),
        ({**THUMB, "model": "zzz"}, customer.headers, 404),
        ({"vehicle": "veh_0000000000000"}, customer.headers, 404),
        (THUMB, {"Authorization": f"Bearer {reader_key}"}, 403),
    ]
    for params, headers, status in cases:
        response = await client.get(IMAGE_URL, params=params, headers=headers)
        assert response.status_code == status, (params, response.text)
        assert "x-credits-charged" not in response.headers
    await services.accounts.set_status(customer.email, "suspended")
    suspended = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert suspended.status_code == 403
    assert await services.ledger.balance(customer.account_id) == 100
    assert [e.kind for e in await entries(services, customer.account_id)] == ["grant"]


# -- 502 --------------------------------------------------------------------------------------


async def test_a_render_that_fails_after_the_charge_is_502_and_refunded(
    client: httpx.AsyncClient,
    customer: Customer,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def failing(*_: object) -> bytes:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(services.render_pool, "render", failing)
    response = await client.get(
        IMAGE_URL, params={**CAMRY, "color": fresh_paint()}, headers=customer.headers
    )
    assert response.status_code == 502
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert "code" not in body
    assert "refunded" in body["detail"]
    assert "x-credits-charged" not in response.headers
    _grant, debit, refund = await entries(services, customer.account_id)
    assert (debit.kind, debit.amount, debit.balance_after) == ("debit", -1, 99)
    assert (refund.kind, refund.amount, refund.balance_after) == ("refund", 1, 100)
    assert refund.reference == f"refund:{debit.reference}"
    assert await services.ledger.balance(customer.account_id) == 100


# -- variant B --------------------------------------------------------------------------------


@VARIANT_B
async def test_variant_b_keyed_images_are_private_no_store(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "private, no-store"


@VARIANT_B
async def test_a_new_vehicle_over_the_plan_cap_is_402_plan_vehicle_limit(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await fill_month(services, customer, 100)
    response = await client.get(IMAGE_URL, params=CIVIC, headers=customer.headers)
    body = assert_payment_details(response, "B")
    assert body["title"] == "Plan limit reached"
    assert body["code"] == "plan_vehicle_limit"
    assert body["scope"] == "month"
    assert body["plan"] == "free"
    assert (body["vehicles_this_month"], body["vehicles_per_month"]) == (100, 100)
    assert body["requested"] == CIVIC_ID
    next_plan = body["next_plan"]
    assert (next_plan["id"], next_plan["name"]) == ("pro", "Pro")
    assert next_plan["price"]["monthly"] == 29
    assert "yearly" in next_plan["price"]
    assert next_plan["adds"] == 2500 - 100
    assert next_plan["checkout_url"].startswith("http://testserver/")
    assert await services.ledger.balance(customer.account_id) == 100
    assert [e.kind for e in await entries(services, customer.account_id)] == ["grant"]


@VARIANT_B
async def test_a_vehicle_already_served_this_month_is_always_allowed(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await fill_month(services, customer, 99)
    served = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert served.status_code == 200  # the 100th distinct vehicle
    refused = await client.get(IMAGE_URL, params=CIVIC, headers=customer.headers)
    assert refused.status_code == 402 and refused.json()["code"] == "plan_vehicle_limit"
    again = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert again.status_code == 200
    assert again.headers["x-credits-remaining"] == "98"


@VARIANT_B
@pytest.mark.usefixtures("stand_in_renders")
async def test_the_plan_vehicle_cap_resets_with_the_calendar_month(
    client: httpx.AsyncClient, customer: Customer, services: Services, clock: Any
) -> None:
    await fill_month(services, customer, 100)
    civic = {**CIVIC, "color": fresh_paint()}
    assert (await client.get(IMAGE_URL, params=civic, headers=customer.headers)).status_code == 402
    now = clock.now()
    next_month = datetime(now.year + now.month // 12, now.month % 12 + 1, 1, tzinfo=UTC)
    clock.advance((next_month - now).total_seconds())
    response = await client.get(IMAGE_URL, params=civic, headers=customer.headers)
    assert response.status_code == 200
    assert response.headers["x-credits-remaining"] == "99"
