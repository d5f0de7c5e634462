"""Buying credits: hosted checkout (never charges by itself), payment confirmation, the portal.

Two providers behind one contract: `local` (carimg hosts the checkout page; an operator confirms
the payment) and `stripe` (Stripe Checkout; a signed webhook confirms it). Either way a paid
checkout credits its account exactly once.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

import stripe

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, InvalidParameter, InvalidRequest, Unavailable
from carimg.domain.keys import BILLING_WRITE
from carimg.domain.pricing import Pricing
from carimg.domain.signing import sign_value
from carimg.store.checkouts import Checkout, CheckoutStore
from carimg.store.oauth import CONNECTION_PREFIX
from carimg.store.records import Principal

PORTAL_LIFETIME = 3600


@dataclass(frozen=True, slots=True)
class HostedUrl:
    url: str
    checkout: Checkout | None = None


class CheckoutProvider(Protocol):
    name: str

    async def start(self, checkout: Checkout) -> tuple[str, str | None]:
        """The hosted page's URL and the provider's reference for the checkout."""
        ...

    async def portal(self, account_id: str, customer_ref: str | None) -> str: ...


class LocalProvider:
    """carimg hosts the checkout page itself; an operator confirms the payment."""

    name = "local"

    def __init__(self, settings: Settings, secret_key: str, clock: Clock) -> None:
        self._base = settings.base_url
        self._secret = secret_key
        self._clock = clock

    async def start(self, checkout: Checkout) -> tuple[str, str | None]:
        return f"{self._base}/billing/checkout/{checkout.id}", None

    async def portal(self, account_id: str, customer_ref: str | None) -> str:
        token = sign_value(
            self._secret,
            "portal",
            {"account_id": account_id, "exp": self._clock.time() + PORTAL_LIFETIME},
        )
        return f"{self._base}/billing/portal?token={token}"


class StripeProvider:
    """Stripe Checkout Sessions and billing-portal sessions through the official SDK."""

    name = "stripe"

    def __init__(self, settings: Settings) -> None:
        if not settings.stripe_secret_key:
            raise ValueError("CARIMG_STRIPE_SECRET_KEY is required with the stripe provider")
        self._client = stripe.StripeClient(settings.stripe_secret_key)
        self._base = settings.base_url

    async def start(self, checkout: Checkout) -> tuple[str, str | None]:
        params: dict[str, Any] = {
            "mode": "payment",
            "client_reference_id": checkout.account_id,
            "customer_creation": "always",
            "line_items": [
                {
                    "quantity": 1,
                    "price_data": {
                        "currency": "usd",
                        "unit_amount": checkout.cents,
                        "product_data": {"name": f"{checkout.credits:,} carimg credits"},
                    },
                }
            ],
            "metadata": {"checkout_id": checkout.id, "account_id": checkout.account_id},
            "success_url": f"{self._base}/billing/checkout/{checkout.id}?status=success",
            "cancel_url": f"{self._base}/billing/checkout/{checkout.id}?status=cancelled",
        }
        try:
            session = await asyncio.to_thread(
                self._client.checkout.sessions.create,
                params,  # type: ignore[arg-type]
            )
        except stripe.StripeError as error:
            raise Unavailable(f"The payment provider did not answer: {error}.") from error
        return str(session.url), str(session.id)

    async def portal(self, account_id: str, customer_ref: str | None) -> str:
        if not customer_ref:
            raise InvalidRequest("No Stripe customer is known for this account yet.")
        params: Any = {"customer": customer_ref, "return_url": f"{self._base}/"}
        try:
            session = await asyncio.to_thread(self._client.billing_portal.sessions.create, params)
        except stripe.StripeError as error:
            raise Unavailable(f"The payment provider did not answer: {error}.") from error
        return str(session.url)


class Billing:
    def __init__(
        self,
        store: CheckoutStore,
        provider: CheckoutProvider,
        pricing: Pricing,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._store = store
        self.provider = provider
        self._pricing = pricing
        self._settings = settings
        self._clock = clock

    def _priced(self, credits: int | None, plan: str | None) -> tuple[int, int, str | None]:
        if (credits is None) == (plan is None):
            raise InvalidRequest("Send either 'credits' (a pack size) or 'plan'.")
        if credits is not None:
            pack = next((p for p in self._pricing.packs if p.credits == credits), None)
            if pack is None:
                sizes = [p.credits for p in self._pricing.packs]
                raise InvalidParameter(
                    "credits",
                    f"'credits' is one of the pack sizes: {', '.join(map(str, sizes))}.",
                    allowed=sizes,
                )
            return pack.credits, pack.cents, None
        paid_plans = [p for p in self._pricing.plans if p.price_monthly > 0]
        chosen = next((p for p in paid_plans if p.id == plan), None)
        if chosen is None:
            raise InvalidParameter(
                "plan",
                "This deployment sells no plans."
                if not paid_plans
                else f"'plan' is one of {', '.join(p.id for p in paid_plans)}.",
                allowed=[p.id for p in paid_plans],
            )
        return chosen.credits_per_month, round(chosen.price_monthly * 100), chosen.id

    async def checkout(
        self, principal: Principal, *, credits: int | None = None, plan: str | None = None
    ) -> HostedUrl:
        """A hosted checkout URL; nothing is charged until a human pays on that page."""
        amount, cents, plan_id = self._priced(credits, plan)
        checkout = Checkout(
            id=f"chk_{uuid.uuid4().hex[:24]}",
            account_id=principal.account.id,
            provider=self.provider.name,
            credits=amount,
            cents=cents,
            plan=plan_id,
            state="pending",
            provider_ref=None,
            customer_ref=None,
            created_at=self._clock.now(),
            paid_at=None,
        )
        await self._store.create(checkout)
        url, provider_ref = await self.provider.start(checkout)
        if provider_ref:
            await self._store.set_provider_ref(checkout.id, provider_ref)
        return HostedUrl(url, checkout)

    async def confirm(self, checkout_id: str, customer_ref: str | None = None) -> tuple[bool, int]:
        """Mark a checkout paid and credit it; a second confirmation changes nothing."""
        checkout = await self._store.get(checkout_id)
        if checkout is None:
            raise InvalidParameter("checkout", f"No checkout {checkout_id}.")
        return await self._store.mark_paid(checkout_id, self._clock.now(), customer_ref)

    async def get(self, checkout_id: str) -> Checkout | None:
        return await self._store.get(checkout_id)

    async def portal(self, principal: Principal) -> HostedUrl:
        """A hosted customer portal, for a key or the dashboard, never for a connected app (403,
        whatever its scopes); it needs a previous purchase (400 otherwise)."""
        if principal.key.prefix == CONNECTION_PREFIX:
            raise Forbidden(
                "Connected apps cannot open the billing portal, whatever their scopes: a portal "
                "URL needs an API key with billing:write, or the dashboard.",
                required_scope=BILLING_WRITE,
            )
        purchases = await self._store.paid_of(principal.account.id)
        if not purchases:
            raise InvalidRequest(
                "The billing portal opens after a first purchase; create a checkout first."
            )
        customer = next((p.customer_ref for p in reversed(purchases) if p.customer_ref), None)
        return HostedUrl(await self.provider.portal(principal.account.id, customer))

    async def has_payment_method(self, account_id: str) -> bool:
        return await self._store.count_paid(account_id) > 0

    async def purchases(self, account_id: str) -> list[Checkout]:
        return await self._store.paid_of(account_id)

    async def stripe_event(self, payload: bytes, signature: str | None) -> str:
        """Verify a Stripe webhook with its signature and apply it; returns what was done."""
        secret = self._settings.stripe_webhook_secret
        if not secret:
            raise InvalidRequest("Stripe webhooks are not configured on this deployment.")
        try:
            event = stripe.Webhook.construct_event(payload, signature or "", secret)
        except (ValueError, stripe.SignatureVerificationError) as error:
            raise InvalidRequest(f"The webhook signature is not valid: {error}.") from error
        if event["type"] != "checkout.session.completed":
            return "ignored"
        # Current stripe-python objects are not dicts (no `.get`): read the session as plain data
        session: dict[str, Any] = event["data"]["object"].to_dict()
        checkout_id = (session.get("metadata") or {}).get("checkout_id")
        if not checkout_id or await self._store.get(checkout_id) is None:
            return "unknown checkout"
        if session.get("payment_status") not in ("paid", "no_payment_required"):
            return "unpaid"
        paid, _ = await self._store.mark_paid(
            checkout_id, self._clock.now(), session.get("customer")
        )
        return "credited" if paid else "already credited"
