"""RFC 9457 problem documents for every failure, framework errors included."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from carimg.api.headers import REQUEST_ID_HEADER, request_id_of
from carimg.api.jsonresponse import json_bytes, problem_document
from carimg.config import Settings
from carimg.domain.errors import DomainError
from carimg.domain.pricing import pricing_for

PROBLEM_MEDIA_TYPE = "application/problem+json"
logger = logging.getLogger("carimg.api")


class Problem(BaseModel):
    """An RFC 9457 problem document (extension members vary by status)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    request_id: str


def problem_response(
    request: Request,
    status: int,
    detail: str,
    *,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extensions: Any,
) -> Response:
    """A problem document response carrying the request id."""
    request_id = request_id_of(request)
    base_url: str = request.app.state.settings.base_url
    document = problem_document(base_url, status, detail, request_id, title, **extensions)
    response_headers = {
        REQUEST_ID_HEADER: request_id,
        **getattr(request.state, "rate_headers", {}),
        **(headers or {}),
    }
    return Response(
        json_bytes(document), status, headers=response_headers, media_type=PROBLEM_MEDIA_TYPE
    )


def payment_extensions(settings: Settings) -> tuple[dict[str, Any], dict[str, str]]:
    """What a 402 tells the client about buying credits, and its `Link: rel="payment"` header."""
    pricing = pricing_for(settings.pricing_variant)
    base = settings.base_url
    billing = f"{base}/dashboard/billing"
    packs = [
        {
            "id": pack.id,
            "credits": pack.credits,
            "price": pack.cents / 100,
            "checkout_url": f"{billing}?pack={pack.id}",
        }
        for pack in pricing.packs
    ]
    plans = [
        {
            "id": plan.id,
            "price_monthly": plan.price_monthly,
            "credits_per_month": plan.credits_per_month,
            "distinct_vehicles_per_month": plan.distinct_vehicles_per_month,
            "checkout_url": f"{billing}?plan={plan.id}",
        }
        for plan in pricing.plans
    ]
    extensions = {
        "checkout_url": packs[0]["checkout_url"],
        "pricing": {
            "credits_per_dollar": pricing.credits_per_dollar,
            "packs": packs,
            "plans": plans,
            "pricing_url": f"{base}/api/v1/pricing",
        },
    }
    return extensions, {"Link": f'<{billing}>; rel="payment"'}


async def _domain_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DomainError)
    extensions, headers = dict(exc.extensions), dict(exc.headers)
    if exc.status == 402:
        payment, link = payment_extensions(request.app.state.settings)
        extensions = payment | extensions
        headers |= link
        next_plan = extensions.get("next_plan")
        if isinstance(next_plan, dict) and "checkout_url" not in next_plan:
            # The spec's next_plan carries its checkout_url, as each plan in pricing does.
            plans = {plan["id"]: plan for plan in payment["pricing"]["plans"]}
            if next_plan.get("id") in plans:
                checkout_url = plans[next_plan["id"]]["checkout_url"]
                extensions["next_plan"] = {**next_plan, "checkout_url": checkout_url}
    return problem_response(
        request, exc.status, exc.detail, title=exc.title, headers=headers, **extensions
    )


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        detail = (
            f"No endpoint at {request.url.path}. See {request.app.state.settings.base_url}/docs."
        )
    elif exc.status_code == 405:
        detail = f"{request.method} is not allowed on {request.url.path}."
    else:
        detail = str(exc.detail)
    return problem_response(request, exc.status_code, detail, headers=exc.headers)


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0] if exc.errors() else {}
    location = [str(part) for part in first.get("loc", ())]
    parameter = location[-1] if len(location) > 1 else (location[0] if location else "body")
    message = first.get("msg", "Invalid request.")
    return problem_response(
        request,
        400,
        f"Invalid value for '{parameter}': {message}.",
        code="invalid_params",
        parameter=parameter,
        retryable=False,
    )


async def _unexpected_error(request: Request, exc: Exception) -> Response:
    logger.exception("unexpected failure", extra={"request_id": request_id_of(request)})
    return problem_response(
        request,
        500,
        "Unexpected failure. Retry later; check the balance before retrying a purchase.",
    )


_HANDLERS: tuple[tuple[type[Exception], Callable[[Request, Exception], Awaitable[Response]]], ...]
_HANDLERS = (
    (DomainError, _domain_error),
    (StarletteHTTPException, _http_error),
    (RequestValidationError, _validation_error),
)


def install_problem_handlers(app: FastAPI) -> None:
    """Route every error, framework ones included, through problem documents."""
    for error_type, handler in _HANDLERS:
        app.add_exception_handler(error_type, handler)
    app.add_exception_handler(Exception, _unexpected_error)


async def problem_for(request: Request, error: Exception) -> Response:
    """The problem document the installed handlers give `error` (for routes served outside
    the framework, see `carimg.api.hotpaths`)."""
    for error_type, handler in _HANDLERS:
        if isinstance(error, error_type):
            return await handler(request, error)
    return await _unexpected_error(request, error)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries describing problem documents for the given statuses."""
    return {
        status: {
            "description": HTTPStatus(status).phrase,
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }
