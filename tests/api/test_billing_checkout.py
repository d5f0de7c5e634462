"""Buying credits (spec: POST /api/v1/billing/checkout, POST /api/v1/billing/portal, Scopes,
Pricing variants; issue 7: Account and billing): hosted checkout that charges nothing, the local
provider's hosted page confirmed by an operator, the Stripe webhook verified with the SDK's own
signature scheme, credits granted exactly once, the customer portal after a first purchase."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import stripe

from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.domain.errors import DomainError
from carimg.services import Services
from tests.conftest import Customer

CHECKOUT_URL = "/api/v1/billing/checkout"
PORTAL_URL = "/api/v1/billing/portal"
WEBHOOK_URL = "/api/v1/billing/webhook"
OPERATOR_TOKEN = "operator-secret-for-tests"
WEBHOOK_SECRET = "whsec_test"
BILLING_SCOPES = ("images:read", "account:read", "billing:write")
PACKS_A = [5000, 10000, 25000, 100000]
VARIANT_B = pytest.mark.parametrize("overrides", [{"pricing_variant": "B"}], ids=["variant-B"])
# Rules decided before anything is stored run on one database; the rest run on both.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def overrides() -> dict[str, Any]:
    """Settings a test changes; parametrize `overrides` to change them."""
    return {}


@pytest.fixture
def settings(tmp_path: Path, database_url: str, overrides: dict[str, Any]) -> Settings:
    """The local payment provider with an operator token and a Stripe webhook secret."""
    values: dict[str, Any] = {
        "data_dir": tmp_path / "var",
        "database_url": database_url,
        "base_url": "http://testserver",
        "render_workers": 0,
        "operator_token": OPERATOR_TOKEN,
        "stripe_webhook_secret": WEBHOOK_SECRET,
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
async def buyer(make_customer) -> Customer:  # type: ignore[no-untyped-def]
    """A device-flow style key: images:read, account:read and billing:write."""
    customer: Customer = await make_customer(scopes=BILLING_SCOPES)
    return customer


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == f"http://testserver/docs/errors#{status}"
    assert body["request_id"] == response.headers["x-request-id"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


async def checkout(
    client: httpx.AsyncClient, customer: Customer, body: dict[str, Any]
) -> dict[str, Any]:
    response = await client.post(CHECKOUT_URL, json=body, headers=customer.headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def credits(client: httpx.AsyncClient, customer: Customer) -> int:
    response = await client.get("/api/v1/account", headers=customer.headers)
    assert response.status_code == 200, response.text
    balance: int = response.json()["data"]["credits"]
    return balance


async def confirm_on_page(
    client: httpx.AsyncClient, checkout_id: str, token: str = OPERATOR_TOKEN
) -> httpx.Response:
    """What the operator's browser sends from the hosted checkout page's form."""
    return await client.post(
        f"/billing/checkout/{checkout_id}/confirm", data={"operator_token": token}
    )


async def paid_checkout(
    client: httpx.AsyncClient, services: Services, customer: Customer, amount: int
) -> str:
    """A checkout of `amount` credits, created by the API and paid; returns its id."""
    checkout_id: str = (await checkout(client, customer, {"credits": amount}))["checkout_id"]
    assert (await services.billing.confirm(checkout_id))[0]
    return checkout_id


async def purchase_entries(services: Services, customer: Customer) -> list[Any]:
    return [e for e in await services.ledger.entries(customer.account_id) if e.kind == "purchase"]


# -- scope, authentication, body --------------------------------------------------------------


@SQLITE_ONLY
async def test_checkout_without_a_key_is_401(client: httpx.AsyncClient) -> None:
    response = await client.post(CHECKOUT_URL, json={"credits": 5000})
    assert_problem(response, 401)


@SQLITE_ONLY
async def test_checkout_with_a_default_key_is_403_required_scope_billing_write(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.post(CHECKOUT_URL, json={"credits": 5000}, headers=customer.headers)
    body = assert_problem(response, 403)
    assert body["required_scope"] == "billing:write"


@SQLITE_ONLY
async def test_checkout_body_over_1_kib_is_413(client: httpx.AsyncClient, buyer: Customer) -> None:
    body = json.dumps({"credits": 5000}) + " " * 1024  # valid JSON, 1 KiB + 15 bytes
    response = await client.post(
        CHECKOUT_URL,
        content=body,
        headers={**buyer.headers, "Content-Type": "application/json"},
    )
    assert_problem(response, 413)


@SQLITE_ONLY
async def test_checkout_body_of_exactly_1_kib_is_accepted(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    start = json.dumps({"credits": 5000})
    body = start + " " * (1024 - len(start))
    assert len(body.encode()) == 1024
    response = await client.post(
        CHECKOUT_URL,
        content=body,
        headers={**buyer.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 201, response.text


@SQLITE_ONLY
async def test_checkout_with_an_unknown_property_is_400(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    response = await client.post(
        CHECKOUT_URL, json={"credits": 5000, "coupon": "FREE"}, headers=buyer.headers
    )
    body = assert_problem(response, 400)
    assert body["parameter"] == "coupon"
    assert body["code"] == "invalid_params"


@SQLITE_ONLY
async def test_checkout_credits_that_are_not_a_pack_size_are_400_with_allowed(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    for amount in (1, 4999, 7500, 1000000, 0, -5000):
        response = await client.post(CHECKOUT_URL, json={"credits": amount}, headers=buyer.headers)
        body = assert_problem(response, 400)
        assert body["parameter"] == "credits", amount
        assert body["allowed"] == PACKS_A, amount


@SQLITE_ONLY
async def test_checkout_credits_that_are_not_an_integer_are_400(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    response = await client.post(CHECKOUT_URL, json={"credits": 5000.5}, headers=buyer.headers)
    assert assert_problem(response, 400)["parameter"] == "credits"


@SQLITE_ONLY
async def test_checkout_of_a_plan_in_variant_a_is_400(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    response = await client.post(CHECKOUT_URL, json={"plan": "pro"}, headers=buyer.headers)
    body = assert_problem(response, 400)
    assert body["parameter"] == "plan"
    assert body["allowed"] == []


@SQLITE_ONLY
async def test_checkout_needs_a_json_object_naming_one_pack(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    headers = {**buyer.headers, "Content-Type": "application/json"}
    for body in (b"", b"{", b"[5000]", b'{"credits": 5000, "plan": "pro"}', b"{}"):
        response = await client.post(CHECKOUT_URL, content=body, headers=headers)
        assert_problem(response, 400)


# -- a checkout charges nothing ---------------------------------------------------------------


async def test_checkout_returns_201_with_a_hosted_url_and_charges_nothing(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    response = await client.post(CHECKOUT_URL, json={"credits": 10000}, headers=buyer.headers)
    assert response.status_code == 201, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.headers["ratelimit-limit"] == "120"
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"]
    data = body["data"]
    url = urlsplit(data["url"])
    assert (url.scheme, url.netloc) == ("http", "testserver")
    assert url.path == f"/billing/checkout/{data['checkout_id']}"
    assert (data["credits"], data["cents"]) == (10000, 1000)
    assert await services.ledger.balance(buyer.account_id) == 100
    assert [e.kind for e in await services.ledger.entries(buyer.account_id)] == ["grant"]
    pending = await services.billing.get(data["checkout_id"])
    assert pending is not None and pending.state == "pending"


@SQLITE_ONLY
async def test_each_checkout_is_a_new_hosted_url(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    first = await checkout(client, buyer, {"credits": 5000})
    second = await checkout(client, buyer, {"credits": 5000})
    assert first["checkout_id"] != second["checkout_id"]
    assert first["url"] != second["url"]


@SQLITE_ONLY
@VARIANT_B
async def test_variant_b_sells_its_own_packs(client: httpx.AsyncClient, buyer: Customer) -> None:
    data = await checkout(client, buyer, {"credits": 500})
    assert (data["credits"], data["cents"]) == (500, 500)
    refused = await client.post(CHECKOUT_URL, json={"credits": 5000}, headers=buyer.headers)
    assert assert_problem(refused, 400)["allowed"] == [100, 500, 1000, 2500, 10000]


# -- the local provider: hosted page, operator confirmation ----------------------------------


@SQLITE_ONLY
async def test_the_hosted_checkout_page_shows_the_pack_and_its_price(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    data = await checkout(client, buyer, {"credits": 25000})
    page = await client.get(data["url"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "25,000" in page.text
    assert "$25.00" in page.text
    assert f'action="/billing/checkout/{data["checkout_id"]}/confirm"' in page.text
    assert OPERATOR_TOKEN not in page.text


@SQLITE_ONLY
async def test_an_unknown_checkout_page_is_404(client: httpx.AsyncClient) -> None:
    page = await client.get("/billing/checkout/chk_doesnotexist")
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")


async def test_local_checkout_end_to_end_credits_once_even_if_confirmed_twice(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    data = await checkout(client, buyer, {"credits": 5000})
    page = await client.get(data["url"])
    assert page.status_code == 200 and "$5.00" in page.text
    assert await credits(client, buyer) == 100  # opening the page pays nothing

    confirmed = await confirm_on_page(client, data["checkout_id"])
    assert confirmed.status_code == 200
    assert confirmed.headers["content-type"].startswith("text/html")
    assert "Paid" in confirmed.text
    assert await credits(client, buyer) == 5100

    again = await confirm_on_page(client, data["checkout_id"])
    assert again.status_code == 200 and "Paid" in again.text
    assert await credits(client, buyer) == 5100
    paid_page = await client.get(data["url"])
    assert "Paid" in paid_page.text and "operator_token" not in paid_page.text
    [purchase] = await purchase_entries(services, buyer)
    assert (purchase.amount, purchase.balance_after) == (5000, 5100)
    assert purchase.reference == f"purchase:{data['checkout_id']}"


async def test_the_admin_confirm_checkout_logic_credits_once(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    """`carimg admin confirm-checkout --id …` runs `services.billing.confirm`."""
    data = await checkout(client, buyer, {"credits": 10000})
    assert await services.billing.confirm(data["checkout_id"]) == (True, 10100)
    assert await services.billing.confirm(data["checkout_id"]) == (False, 10100)
    assert (await confirm_on_page(client, data["checkout_id"])).status_code == 200
    assert await credits(client, buyer) == 10100
    assert len(await purchase_entries(services, buyer)) == 1


@SQLITE_ONLY
async def test_confirming_an_unknown_checkout_through_admin_logic_is_400(
    services: Services,
) -> None:
    with pytest.raises(DomainError, match="No checkout") as raised:
        await services.billing.confirm("chk_doesnotexist")
    assert raised.value.status == 400


async def test_a_wrong_operator_token_is_403_and_credits_nothing(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    data = await checkout(client, buyer, {"credits": 5000})
    for token in ("", "wrong-token", OPERATOR_TOKEN + "x", OPERATOR_TOKEN.upper()):
        response = await confirm_on_page(client, data["checkout_id"], token)
        assert_problem(response, 403)
    assert await credits(client, buyer) == 100
    pending = await services.billing.get(data["checkout_id"])
    assert pending is not None and pending.state == "pending"
    assert await purchase_entries(services, buyer) == []


@SQLITE_ONLY
async def test_guessing_the_operator_token_is_rate_limited_per_address(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    data = await checkout(client, buyer, {"credits": 5000})
    for _ in range(10):
        assert (await confirm_on_page(client, data["checkout_id"], "guess")).status_code == 403
    refused = await confirm_on_page(client, data["checkout_id"], OPERATOR_TOKEN)
    assert_problem(refused, 429)
    assert int(refused.headers["retry-after"]) >= 1
    assert await credits(client, buyer) == 100


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"operator_token": None}], ids=["no-operator-token"])
async def test_without_an_operator_token_setting_no_one_confirms_on_the_page(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    data = await checkout(client, buyer, {"credits": 5000})
    for token in ("", "anything"):
        assert_problem(await confirm_on_page(client, data["checkout_id"], token), 403)
    assert await credits(client, buyer) == 100


@SQLITE_ONLY
async def test_confirming_an_unknown_checkout_with_the_operator_token_is_404(
    client: httpx.AsyncClient,
) -> None:
    assert_problem(await confirm_on_page(client, "chk_doesnotexist"), 404)


@VARIANT_B
async def test_variant_b_plan_checkout_switches_the_plan_after_payment(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    data = await checkout(client, buyer, {"plan": "pro"})
    assert (data["plan"], data["credits"], data["cents"]) == ("pro", 25000, 2900)
    before = (await client.get("/api/v1/account", headers=buyer.headers)).json()["data"]
    assert (before["plan"]["id"], before["credits"]) == ("free", 100)
    assert (await confirm_on_page(client, data["checkout_id"])).status_code == 200
    after = (await client.get("/api/v1/account", headers=buyer.headers)).json()["data"]
    assert after["plan"]["id"] == "pro"
    assert after["plan"]["distinct_vehicles_per_month"] == 2500
    assert after["credits"] == 25100


@SQLITE_ONLY
@VARIANT_B
async def test_variant_b_sells_only_its_paid_plans(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    for plan in ("free", "enterprise", "platinum"):
        response = await client.post(CHECKOUT_URL, json={"plan": plan}, headers=buyer.headers)
        body = assert_problem(response, 400)
        assert body["parameter"] == "plan", plan
        assert body["allowed"] == ["pro", "business"], plan


# -- the portal -------------------------------------------------------------------------------


@SQLITE_ONLY
async def test_portal_with_a_default_key_is_403_required_scope_billing_write(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = assert_problem(await client.post(PORTAL_URL, headers=customer.headers), 403)
    assert body["required_scope"] == "billing:write"


@SQLITE_ONLY
async def test_portal_without_a_key_is_401(client: httpx.AsyncClient) -> None:
    assert_problem(await client.post(PORTAL_URL), 401)


async def test_portal_before_any_purchase_is_400(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    assert_problem(await client.post(PORTAL_URL, headers=buyer.headers), 400)


@SQLITE_ONLY
async def test_portal_with_only_an_unpaid_checkout_is_400(
    client: httpx.AsyncClient, buyer: Customer
) -> None:
    await checkout(client, buyer, {"credits": 5000})
    assert_problem(await client.post(PORTAL_URL, headers=buyer.headers), 400)


async def test_portal_after_a_purchase_is_201_with_a_url_listing_the_purchase(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    await paid_checkout(client, services, buyer, 25000)
    response = await client.post(PORTAL_URL, headers=buyer.headers)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"]
    url = body["data"]["url"]
    assert url.startswith("http://testserver/billing/portal?")
    page = await client.get(url)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "25,000 credits" in page.text
    assert "$25.00" in page.text


async def test_the_portal_page_lists_only_paid_purchases_of_that_account(
    client: httpx.AsyncClient, buyer: Customer, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    other: Customer = await make_customer(scopes=BILLING_SCOPES)
    await services.billing.confirm(
        (await checkout(client, other, {"credits": 100000}))["checkout_id"]
    )
    await services.billing.confirm(
        (await checkout(client, buyer, {"credits": 5000}))["checkout_id"]
    )
    await checkout(client, buyer, {"credits": 10000})  # never paid
    url = (await client.post(PORTAL_URL, headers=buyer.headers)).json()["data"]["url"]
    page = (await client.get(url)).text
    assert "5,000 credits" in page
    assert "10,000 credits" not in page
    assert "100,000 credits" not in page


@SQLITE_ONLY
async def test_a_portal_link_expires_after_an_hour(
    client: httpx.AsyncClient, buyer: Customer, services: Services, clock: FixedClock
) -> None:
    await services.billing.confirm(
        (await checkout(client, buyer, {"credits": 5000}))["checkout_id"]
    )
    url = (await client.post(PORTAL_URL, headers=buyer.headers)).json()["data"]["url"]
    clock.advance(3601)
    page = await client.get(url)
    assert page.status_code == 403
    assert "5,000 credits" not in page.text


@SQLITE_ONLY
async def test_an_altered_portal_link_is_refused(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    await services.billing.confirm(
        (await checkout(client, buyer, {"credits": 5000}))["checkout_id"]
    )
    url = (await client.post(PORTAL_URL, headers=buyer.headers)).json()["data"]["url"]
    page = await client.get(url[:-1] + ("0" if url[-1] != "0" else "1"))
    assert page.status_code == 403
    assert "5,000 credits" not in page.text


# -- the Stripe webhook -----------------------------------------------------------------------


def stripe_event(
    checkout_id: str, event_type: str = "checkout.session.completed", **session: Any
) -> bytes:
    """A webhook body as Stripe sends it for a Checkout Session."""
    event = {
        "id": f"evt_{uuid.uuid4().hex[:24]}",
        "object": "event",
        "api_version": "2024-06-20",
        "created": int(time.time()),
        "livemode": False,
        "type": event_type,
        "data": {
            "object": {
                "id": f"cs_test_{uuid.uuid4().hex[:24]}",
                "object": "checkout.session",
                "mode": "payment",
                "payment_status": "paid",
                "status": "complete",
                "customer": "cus_test123",
                "metadata": {"checkout_id": checkout_id},
                **session,
            }
        },
    }
    return json.dumps(event).encode()


def signature(payload: bytes, secret: str = WEBHOOK_SECRET, timestamp: int | None = None) -> str:
    """The `Stripe-Signature` header, computed by the SDK's own scheme."""
    header: str = stripe.WebhookSignature.generate_signature_header(
        payload.decode(), secret, timestamp=int(time.time()) if timestamp is None else timestamp
    )
    return header


def test_the_signature_helper_follows_stripes_v1_scheme() -> None:
    """`t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>`, verified by the SDK itself."""
    payload = b'{"object": "event"}'
    header = signature(payload, timestamp=1_700_000_000)
    expected = hmac.new(
        WEBHOOK_SECRET.encode(), b"1700000000." + payload, hashlib.sha256
    ).hexdigest()
    assert header == f"t=1700000000,v1={expected}"
    fresh = signature(payload)
    assert stripe.WebhookSignature.verify_header(payload.decode(), fresh, WEBHOOK_SECRET, 300)


async def deliver_webhook(
    client: httpx.AsyncClient, payload: bytes, header: str | None
) -> httpx.Response:
    headers = {"Content-Type": "application/json"}
    if header is not None:
        headers["Stripe-Signature"] = header
    return await client.post(WEBHOOK_URL, content=payload, headers=headers)


async def local_checkout(services: Services, customer: Customer, amount: int = 5000) -> str:
    """A checkout created through the billing service (local provider); returns its id."""
    principal = await services.accounts.authenticate(customer.key)
    hosted = await services.billing.checkout(principal, credits=amount)
    assert hosted.checkout is not None
    return hosted.checkout.id


async def test_a_signed_checkout_completed_event_credits_the_checkout(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    payload = stripe_event(checkout_id)
    response = await deliver_webhook(client, payload, signature(payload))
    assert response.status_code == 200, response.text
    assert response.json()["result"] == "credited"
    assert await services.ledger.balance(buyer.account_id) == 5100
    paid = await services.billing.get(checkout_id)
    assert paid is not None and paid.state == "paid" and paid.customer_ref == "cus_test123"


async def test_the_same_event_delivered_twice_credits_once(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    payload = stripe_event(checkout_id)
    first = await deliver_webhook(client, payload, signature(payload))
    second = await deliver_webhook(client, payload, signature(payload))
    assert (first.status_code, second.status_code) == (200, 200)
    assert second.json()["result"] == "already credited"
    assert await services.ledger.balance(buyer.account_id) == 5100
    assert len(await purchase_entries(services, buyer)) == 1


async def test_a_webhook_after_an_operator_confirmation_credits_nothing_more(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    await services.billing.confirm(checkout_id)
    payload = stripe_event(checkout_id)
    response = await deliver_webhook(client, payload, signature(payload))
    assert response.status_code == 200
    assert await services.ledger.balance(buyer.account_id) == 5100


async def test_an_incorrectly_signed_or_unsigned_webhook_is_400_and_credits_nothing(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    payload = stripe_event(checkout_id)
    headers = {
        "other-secret": signature(payload, secret="whsec_someone_else"),
        "other-body": signature(payload + b" "),
        "other-scheme": signature(payload).replace(",v1=", ",v0="),
        "too-old": signature(payload, timestamp=int(time.time()) - 3600),
        "garbled": "t=not-a-time,v1=00",
        "empty": "",
        "unsigned": None,
    }
    for case, header in headers.items():
        response = await deliver_webhook(client, payload, header)
        assert response.status_code == 400, case
        assert_problem(response, 400)
    assert await services.ledger.balance(buyer.account_id) == 100
    pending = await services.billing.get(checkout_id)
    assert pending is not None and pending.state == "pending"


async def test_other_event_types_are_acknowledged_and_ignored(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    for event_type in ("checkout.session.expired", "payment_intent.succeeded", "customer.created"):
        payload = stripe_event(checkout_id, event_type)
        response = await deliver_webhook(client, payload, signature(payload))
        assert response.status_code == 200, response.text
        assert response.json()["result"] == "ignored", event_type
    assert await services.ledger.balance(buyer.account_id) == 100
    pending = await services.billing.get(checkout_id)
    assert pending is not None and pending.state == "pending"


async def test_an_unpaid_completed_session_credits_nothing(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    payload = stripe_event(checkout_id, payment_status="unpaid")
    response = await deliver_webhook(client, payload, signature(payload))
    assert response.status_code == 200
    assert response.json()["result"] == "unpaid"
    assert await services.ledger.balance(buyer.account_id) == 100


@SQLITE_ONLY
async def test_a_signed_event_for_an_unknown_checkout_credits_nothing(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    payload = stripe_event("chk_doesnotexist")
    response = await deliver_webhook(client, payload, signature(payload))
    assert response.status_code == 200
    assert response.json()["result"] == "unknown checkout"
    assert await services.ledger.balance(buyer.account_id) == 100


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"stripe_webhook_secret": None}], ids=["no-secret"])
async def test_webhooks_without_a_configured_secret_are_400(
    client: httpx.AsyncClient, buyer: Customer, services: Services
) -> None:
    checkout_id = await local_checkout(services, buyer)
    payload = stripe_event(checkout_id)
    assert_problem(await deliver_webhook(client, payload, signature(payload)), 400)
    assert await services.ledger.balance(buyer.account_id) == 100
