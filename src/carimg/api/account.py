"""GET /api/v1/account and GET /api/v1/pricing."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep, authenticated
from carimg.api.caching import envelope_response
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.account import pricing_json
from carimg.domain.keys import ACCOUNT_READ
from carimg.domain.records import Principal

router = APIRouter(tags=["account"])


@router.get(
    "/api/v1/account",
    operation_id="get_account",
    summary="Balance, pricing, 30 days of usage, this key and links (free)",
    responses={
        200: {"description": "Account response: data, links, request_id."},
        **problem_responses(401, 403, 429),
    },
    response_class=Response,
    dependencies=[StrictQuery],
)
async def get_account(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(ACCOUNT_READ))],
) -> Response:
    has_payment = await services.billing.has_payment_method(principal.account.id)
    data, links = await services.account_view.document(principal, has_payment_method=has_payment)
    body = {"data": data, "links": links, "request_id": request_id_of(request)}
    headers = {"Cache-Control": "private, no-store", **request.state.rate_headers}
    return JSONBody(body, headers=headers)


@router.get(
    "/api/v1/pricing",
    operation_id="get_pricing",
    summary="Credit packs, plans (variant B) and credits per dollar (public)",
    responses={200: {"description": "Pricing."}, **problem_responses(400)},
    response_class=Response,
    dependencies=[StrictQuery],
)
async def get_pricing(request: Request, services: ServicesDep) -> Response:
    data = pricing_json(services.pricing, services.settings.base_url)
    data |= {"currency": "usd", "variant": services.pricing.variant}
    return envelope_response(request, data, max_age=3600)
