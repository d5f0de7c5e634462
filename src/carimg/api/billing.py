"""Buying credits: checkout and portal URLs, the Stripe webhook, and the local hosted pages."""

from __future__ import annotations

import hmac
from html import escape
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import HTMLResponse, Response

from carimg.api.auth import ServicesDep, authenticated
from carimg.api.bodies import body_openapi, parse_json, read_body, validate_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.per_address import retry_after
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.errors import Forbidden, NotFound, RateLimited
from carimg.domain.keys import BILLING_WRITE
from carimg.domain.pricing import Pricing
from carimg.domain.records import Principal
from carimg.domain.signing import unsign_value

router = APIRouter(tags=["billing"])
CHECKOUT_PATH = "/api/v1/billing/checkout"
CHECKOUT_LIMIT = 1024
CONFIRMS_PER_MINUTE = 10  # the operator token guards money: no guessing at speed


class CheckoutRequest(BaseModel):
    """A pack (`credits`, one of the pack sizes) or, in pricing variant B, a `plan`."""

    model_config = ConfigDict(extra="forbid")

    credits: int | None = Field(default=None, description="One of the pack sizes.")
    plan: str | None = Field(default=None, description="A plan id (variant B).")


def checkout_body(pricing: Pricing) -> dict[str, Any]:
    """The checkout body's OpenAPI entry for a deployment's pricing: exactly one of a pack size
    and a paid plan (the routes are declared before any deployment is known)."""
    packs = [pack.credits for pack in pricing.packs]
    plans = [plan.id for plan in pricing.plans if plan.price_monthly > 0]
    choices: list[dict[str, Any]] = [
        {
            "required": ["credits"],
            "properties": {"credits": {"type": "integer", "enum": packs}, "plan": {"type": "null"}},
        }
    ]
    if plans:
        choices.append(
            {
                "required": ["plan"],
                "properties": {
                    "plan": {"type": "string", "enum": plans},
                    "credits": {"type": "null"},
                },
            }
        )
    schema = CheckoutRequest.model_json_schema() | {"anyOf": choices}
    entry: dict[str, Any] = body_openapi(CheckoutRequest, description="A pack size or a plan.")[
        "requestBody"
    ]
    return entry | {"content": {"application/json": {"schema": schema}}}


@router.post(
    CHECKOUT_PATH,
    operation_id="create_checkout",
    summary="A hosted checkout URL for a credit pack or plan (charges nothing)",
    status_code=201,
    response_class=Response,
    responses={
        201: {"description": "The hosted checkout URL."},
        **problem_responses(400, 401, 403, 413, 429, 500),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(CheckoutRequest, description="A pack size or a plan."),
)
async def create_checkout(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(BILLING_WRITE))],
) -> Response:
    """A human must open the URL and pay; credits arrive when the payment is confirmed."""
    raw = parse_json(await read_body(request, CHECKOUT_LIMIT))
    body = validate_body(CheckoutRequest, raw)
    hosted = await services.billing.checkout(principal, credits=body.credits, plan=body.plan)
    assert hosted.checkout is not None
    checkout = hosted.checkout
    data: dict[str, Any] = {
        "url": hosted.url,
        "checkout_url": hosted.url,
        "checkout_id": checkout.id,
        "credits": checkout.credits,
        "cents": checkout.cents,
        "provider": checkout.provider,
    }
    if checkout.plan:
        data["plan"] = checkout.plan
    return JSONBody(
        {"data": data, "request_id": request_id_of(request)},
        status_code=201,
        headers=request.state.rate_headers,
    )


@router.post(
    "/api/v1/billing/portal",
    operation_id="create_billing_portal",
    summary="A hosted customer-portal URL (after a first purchase)",
    description="400 until the account has bought credits (there is no customer to show yet).",
    status_code=201,
    response_class=Response,
    responses={
        201: {"description": "The portal URL."},
        **problem_responses(400, 401, 403, 429, 500),
    },
    dependencies=[StrictQuery],
)
async def create_portal(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(BILLING_WRITE))],
) -> Response:
    hosted = await services.billing.portal(principal)
    return JSONBody(
        {
            "data": {"url": hosted.url, "portal_url": hosted.url},
            "request_id": request_id_of(request),
        },
        status_code=201,
        headers=request.state.rate_headers,
    )


@router.post(
    "/api/v1/billing/webhook",
    operation_id="stripe_webhook",
    summary="Stripe webhook (signature-verified); credits a paid checkout once",
    description="Stripe calls this: a 400 unless Stripe webhooks are configured on the "
    "deployment and `Stripe-Signature` verifies the body with the endpoint's secret.",
    response_class=Response,
    responses={
        200: {"description": '{"received": true, "result": …}: what the event changed.'},
        **problem_responses(400),
    },
    include_in_schema=True,
    openapi_extra={
        "parameters": [
            {
                "name": "Stripe-Signature",
                "in": "header",
                "required": True,
                "description": "Stripe's signature of the body (t=…,v1=…).",
                "schema": {"type": "string"},
            }
        ],
        "requestBody": {
            "required": True,
            "description": "A Stripe event.",
            "content": {"application/json": {"schema": {"type": "object"}}},
        },
    },
)
async def stripe_webhook(request: Request, services: ServicesDep) -> Response:
    payload = await read_body(request, 512 * 1024)
    result = await services.billing.stripe_event(payload, request.headers.get("stripe-signature"))
    return JSONBody({"received": True, "result": result})


# -- hosted pages of the local provider ---------------------------------------------------------

_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title} · carimg</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;
color:#1d2125}}.card{{border:1px solid #d8dde3;border-radius:12px;padding:1.5rem}}
.paid{{color:#1b7f3b}}input,button{{font:inherit;padding:.5rem .75rem}}
button{{background:#1d2125;color:#fff;border:0;border-radius:8px}}</style></head>
<body><div class="card">{body}</div></body></html>"""


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(_PAGE.format(title=escape(title), body=body), status_code=status)


@router.get("/billing/checkout/{checkout_id}", include_in_schema=False)
async def checkout_page(checkout_id: str, services: ServicesDep) -> Response:
    checkout = await services.billing.get(checkout_id)
    if checkout is None:
        return _page("Checkout not found", "<h1>Checkout not found</h1>", 404)
    price = f"${checkout.cents / 100:,.2f}"
    summary = f"<h1>{checkout.credits:,} carimg credits</h1><p>{escape(price)}</p>"
    if checkout.state == "paid":
        return _page("Paid", summary + '<p class="paid">Paid. The credits are on the account.</p>')
    form = (
        f'<form method="post" action="/billing/checkout/{escape(checkout.id)}/confirm">'
        "<p>This deployment takes payments offline. An operator confirms the payment here with "
        "the operator token, or runs <code>carimg admin confirm-checkout --id "
        f"{escape(checkout.id)}</code>.</p>"
        '<p><input type="password" name="operator_token" placeholder="Operator token" '
        'aria-label="Operator token" required> <button type="submit">Confirm payment</button></p>'
        "</form>"
    )
    return _page("Checkout", summary + form)


@router.post("/billing/checkout/{checkout_id}/confirm", include_in_schema=False)
async def confirm_checkout_page(
    request: Request,
    checkout_id: str,
    services: ServicesDep,
    operator_token: Annotated[str, Form()] = "",
) -> Response:
    wait = await retry_after(services, request, "confirm", CONFIRMS_PER_MINUTE)
    if wait is not None:
        raise RateLimited("Too many confirmation attempts from this address.", retry_after=wait)
    expected = services.settings.operator_token
    if not expected or not hmac.compare_digest(operator_token.encode(), expected.encode()):
        raise Forbidden("Only an operator confirms payments (operator token required).")
    if await services.billing.get(checkout_id) is None:
        raise NotFound(f"No checkout {checkout_id}.")
    await services.billing.confirm(checkout_id)
    return await checkout_page(checkout_id, services)


@router.get("/billing/portal", include_in_schema=False)
async def portal_page(token: str, services: ServicesDep) -> Response:
    payload = unsign_value(services.secret_key, "portal", token)
    if not payload or float(payload.get("exp", 0)) < services.clock.time():
        return _page("Link expired", "<h1>This portal link expired</h1>", 403)
    purchases = await services.billing.purchases(str(payload["account_id"]))
    rows = "".join(
        f"<tr><td>{p.paid_at:%Y-%m-%d}</td><td>{p.credits:,} credits</td>"
        f"<td>${p.cents / 100:,.2f}</td></tr>"
        for p in purchases
        if p.paid_at
    )
    return _page("Billing", f"<h1>Purchases</h1><table>{rows}</table>")
