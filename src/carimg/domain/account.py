"""The account document: balance, its value, pricing, 30 days of usage, the key, the plan, links."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from typing import Any

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.ledger import Ledger
from carimg.domain.pricing import Pricing
from carimg.domain.usage_text import month_key
from carimg.store.records import LedgerEntry, Principal
from carimg.store.usage import UsageStore


def pricing_json(pricing: Pricing, base_url: str) -> dict[str, Any]:
    """Packs (and plans in variant B) as clients see them."""
    document: dict[str, Any] = {
        "credits_per_image": pricing.credits_per_image,
        "credits_per_dollar": pricing.credits_per_dollar,
        "free_credits": pricing.free_credits,
        "packs": [
            {"id": p.id, "credits": p.credits, "cents": p.cents, "label": p.label}
            for p in pricing.packs
        ],
    }
    if pricing.plans:
        document["plans"] = [
            {
                "id": plan.id,
                "name": plan.name,
                "price_monthly": plan.price_monthly,
                "credits_per_month": plan.credits_per_month,
                "distinct_vehicles_per_month": plan.distinct_vehicles_per_month,
                "checkout_url": f"{base_url}/dashboard/billing?plan={plan.id}",
            }
            for plan in pricing.plans
        ]
    return document


_COUNTS = ("images", "urls", "credits")


def usage_30d(entries: list[LedgerEntry]) -> dict[str, Any]:
    """Images and URLs delivered and credits spent, in total and by day (UTC)."""
    days: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(_COUNTS, 0))
    for entry in entries:
        day = days[entry.created_at.date().isoformat()]
        if entry.kind == "debit":
            day["credits"] += -entry.amount
            if entry.reference.startswith("debit:image:"):
                day["images"] += 1
            elif entry.reference.startswith("debit:urls:"):
                day["urls"] += -entry.amount
        elif entry.kind == "refund":
            day["credits"] -= entry.amount
            if entry.reference.startswith("refund:debit:image:"):
                day["images"] -= 1
    by_day = [{"date": date, **counts} for date, counts in sorted(days.items())]
    totals = {name: sum(days[date][name] for date in days) for name in _COUNTS}
    return {**totals, "by_day": by_day}


class AccountView:
    def __init__(
        self, ledger: Ledger, usage: UsageStore, pricing: Pricing, settings: Settings, clock: Clock
    ) -> None:
        self._ledger = ledger
        self._usage = usage
        self._pricing = pricing
        self._settings = settings
        self._clock = clock

    async def document(
        self, principal: Principal, *, has_payment_method: bool
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The account `data` and its `links`."""
        account, key = principal.account, principal.key
        balance = await self._ledger.balance(account.id)
        since = self._clock.now() - timedelta(days=30)
        entries = await self._ledger.entries_since(account.id, since)
        base = self._settings.base_url
        data: dict[str, Any] = {
            "credits": balance,
            "credits_value_usd": round(balance / self._pricing.credits_per_dollar, 2),
            "auto_reload": False,
            "has_payment_method": has_payment_method,
            "pricing": pricing_json(self._pricing, base),
            "usage_30d": usage_30d(entries),
            "key": {
                "id": key.id,
                "prefix": key.prefix,
                "name": key.name,
                "scopes": list(key.scopes),
                "origins": list(key.origins),
                "created_at": key.created_at.isoformat().replace("+00:00", "Z"),
            },
            "email": account.email,
            "status": account.status,
        }
        plan = next((p for p in self._pricing.plans if p.id == account.plan), None)
        if self._pricing.plans:
            month = month_key(self._clock.now())
            data["plan"] = {
                "id": account.plan,
                "name": plan.name if plan else account.plan,
                "price_monthly": plan.price_monthly if plan else None,
                "credits_per_month": plan.credits_per_month if plan else None,
                "distinct_vehicles_per_month": plan.distinct_vehicles_per_month if plan else None,
                "vehicles_this_month": await self._usage.vehicles_in_month(account.id, month),
            }
            links = {
                "create_checkout": "/api/v1/billing/checkout",
                "billing_portal": "/api/v1/billing/portal",
                "pricing": "/api/v1/pricing",
                "docs": "/docs",
                "openapi": "/openapi.json",
                "mcp": "/api/mcp",
            }
        else:
            links = {
                "dashboard": f"{base}/dashboard",
                "pricing": f"{base}/api/v1/pricing",
                "create_checkout": "/api/v1/billing/checkout",
                "billing_portal": "/api/v1/billing/portal",
                "docs": "/docs",
                "openapi": "/openapi.json",
            }
        return data, links
