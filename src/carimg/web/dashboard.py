"""The signed-in dashboard: balance and its value, 30 days of usage as a chart, keys (create with
scopes and origins, shown once, revoke), buying credits and the billing portal."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.domain import keys as key_rules
from carimg.domain.errors import DomainError, InvalidParameter
from carimg.domain.records import Account
from carimg.domain.web_accounts import Overview
from carimg.web.csrf import CsrfProtected
from carimg.web.pages import redirect, render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)

SCOPE_CHOICES = (
    (key_rules.IMAGES_READ, "Fetch images and create signed image URLs (costs credits)."),
    (key_rules.ACCOUNT_READ, "Read the balance, usage and pricing."),
    (key_rules.BILLING_WRITE, "Create checkout links for credit packs (never pays by itself)."),
    (
        key_rules.BILLING_PURCHASE,
        "Pay for a plan or an open invoice with a payment token. Off unless needed; never "
        "with allowed origins.",
    ),
)
DEFAULT_SCOPES = key_rules.DEFAULT_SCOPES
SERIES = ("images", "urls", "credits")


@dataclass(frozen=True, slots=True)
class Chart:
    """The usage chart's geometry (inline SVG: bars for images, lines for URLs and credits)."""

    width: int
    height: int
    left: int
    bottom: int
    top: int
    days: list[dict[str, Any]]  # date, label, images, urls, credits, x, bar_y, bar_h
    ticks: list[tuple[int, float]]  # value, y
    url_points: str
    credit_points: str
    bar_width: float
    totals: dict[str, int]
    peak: int


def usage_days(usage: dict[str, Any], today: date, count: int = 30) -> list[dict[str, Any]]:
    """Every one of the last `count` days, zero where nothing happened."""
    by_day = {row["date"]: row for row in usage["by_day"]}
    days = []
    for offset in range(count - 1, -1, -1):
        day = today - timedelta(days=offset)
        row = by_day.get(day.isoformat(), {})
        days.append({"date": day, **{name: max(0, int(row.get(name, 0))) for name in SERIES}})
    return days


def _nice_ceiling(value: int) -> int:
    """A round axis maximum at or above `value` (1, 2, 5 × 10ⁿ)."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if value <= step * factor:
                return step * factor
        step *= 10


def usage_chart(usage: dict[str, Any], today: date) -> Chart:
    days = usage_days(usage, today)
    width, height, left, right, top, bottom = 720, 240, 44, 12, 12, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((max(day[name] for name in SERIES) for day in days), default=0)
    ceiling = _nice_ceiling(max(peak, 4))
    slot = plot_w / len(days)

    def y(value: int) -> float:
        return round(top + plot_h - value / ceiling * plot_h, 1)

    for index, day in enumerate(days):
        day["x"] = round(left + slot * index + slot / 2, 1)
        day["bar_y"] = y(day["images"])
        day["bar_h"] = round(top + plot_h - day["bar_y"], 1)
        day["label"] = day["date"].strftime("%b %-d")
        day["show_label"] = index % 5 == 4 or index == 0
    return Chart(
        width=width,
        height=height,
        left=left,
        bottom=top + plot_h,
        top=top,
        days=days,
        ticks=[(value, y(value)) for value in range(0, ceiling + 1, max(1, ceiling // 4))],
        url_points=" ".join(f"{day['x']},{y(day['urls'])}" for day in days),
        credit_points=" ".join(f"{day['x']},{y(day['credits'])}" for day in days),
        bar_width=round(slot * 0.6, 1),
        totals={name: sum(day[name] for day in days) for name in SERIES},
        peak=peak,
    )


async def _dashboard(
    request: Request,
    services: ServicesDep,
    account: Account,
    status: int = 200,
    **context: Any,
) -> Response:
    overview: Overview = await services.web_accounts.overview(account)
    active = sum(1 for row in overview.keys if row.key.active)
    values: dict[str, Any] = {
        "overview": overview,
        "packs": overview.packs,
        "plans": overview.plans,
        "chart": usage_chart(overview.usage, services.clock.now().date()),
        "active_keys": active,
        "max_keys": key_rules.MAX_ACTIVE_KEYS,
        "scope_choices": SCOPE_CHOICES,
        "checked_scopes": DEFAULT_SCOPES,
        "new_key": None,
        "key_error": None,
        "billing_error": None,
        "form": {"name": "", "origins": ""},
        **context,
    }
    return await render_page(request, "dashboard.html", status, **values)


@router.get("/dashboard")
async def dashboard_page(request: Request, services: ServicesDep, account: SignedIn) -> Response:
    return await _dashboard(request, services, account)


@router.post("/dashboard/keys", dependencies=[CsrfProtected])
async def create_key(
    request: Request,
    services: ServicesDep,
    account: SignedIn,
    name: Annotated[str, Form(max_length=200)] = "",
    scopes: Annotated[list[str] | None, Form()] = None,
    origins: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """The new key's plaintext is in this response only (no redirect: it is never stored)."""
    chosen = tuple(scopes or ())
    try:
        if not chosen:
            raise InvalidParameter("scopes", "Choose at least one scope.")
        plaintext, record = await services.web_accounts.create_key(
            account, name=name, scopes=chosen, origins=tuple(origins.split())
        )
    except DomainError as error:
        return await _dashboard(
            request,
            services,
            account,
            error.status,
            key_error=error.detail,
            checked_scopes=chosen,
            form={"name": name, "origins": origins},
        )
    return await _dashboard(request, services, account, 201, new_key=(plaintext, record))


@router.post("/dashboard/keys/{key_id}/revoke", dependencies=[CsrfProtected])
async def revoke_key(
    key_id: str, request: Request, services: ServicesDep, account: SignedIn
) -> Response:
    try:
        await services.web_accounts.revoke_key(account, key_id)
    except DomainError as error:
        return await _dashboard(request, services, account, error.status, key_error=error.detail)
    return redirect("/dashboard?notice=key-revoked#keys")


@router.post("/dashboard/checkout", dependencies=[CsrfProtected])
async def checkout(
    request: Request,
    services: ServicesDep,
    account: SignedIn,
    credits: Annotated[int | None, Form()] = None,
    plan: Annotated[str | None, Form(max_length=40)] = None,
) -> Response:
    """To the provider's hosted checkout page; credits arrive when the payment is confirmed."""
    try:
        hosted = await services.web_accounts.checkout(account, credits=credits, plan=plan)
    except DomainError as error:
        return await _dashboard(
            request, services, account, error.status, billing_error=error.detail
        )
    return redirect(hosted.url)


@router.post("/dashboard/portal", dependencies=[CsrfProtected])
async def portal(request: Request, services: ServicesDep, account: SignedIn) -> Response:
    try:
        hosted = await services.web_accounts.portal(account)
    except DomainError as error:
        return await _dashboard(
            request, services, account, error.status, billing_error=error.detail
        )
    return redirect(hosted.url)


@router.get("/dashboard/billing")
async def billing_page(
    request: Request,
    services: ServicesDep,
    account: SignedIn,
    pack: str = "",
    plan: str = "",
) -> Response:
    """Where 402 answers and plan links send people: the chosen pack or plan, one button away."""
    packs = [p for p in services.pricing.packs if p.id == pack] or list(services.pricing.packs)
    plans = [p for p in services.pricing.plans if p.price_monthly > 0]
    chosen_plan = next((p for p in plans if p.id == plan), None)
    if chosen_plan is not None:
        packs, plans = [], [chosen_plan]
    elif pack and len(packs) == 1:
        plans = []
    balance = await services.ledger.balance(account.id)
    return await render_page(
        request,
        "billing.html",
        packs=packs,
        plans=plans,
        balance=balance,
        chosen=bool(pack or plan),
    )
