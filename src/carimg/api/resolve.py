"""POST /api/v1/images/resolve: free text to a ready image request (free, deterministic)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from carimg.api.auth import ServicesDep, authenticated
from carimg.api.bodies import body_openapi, parse_json, read_body, validate_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.api.vehicles import hit_json, make_json
from carimg.domain.errors import InvalidParameter, NotFound
from carimg.domain.keys import ACCOUNT_READ, IMAGES_READ
from carimg.domain.limits import JSON_INT_MAX
from carimg.domain.records import Principal
from carimg.domain.resolver import Resolution, Unresolved, resolve
from carimg.years import MIN_YEAR

router = APIRouter(tags=["images"])
RESOLVE_LIMIT = 4 * 1024


class ResolveRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        min_length=1,
        max_length=200,
        description="What the user typed (not blank).",
        json_schema_extra={"pattern": r"\S"},
    )
    year: int | None = Field(
        default=None,
        ge=MIN_YEAR,
        description="Overrides a year in the text.",
        json_schema_extra={"maximum": JSON_INT_MAX},
    )
    make: str | None = Field(default=None, max_length=60, description="Constrain to a make.")
    model: str | None = Field(default=None, max_length=60, description="Constrain to a model.")


def resolution_json(resolution: Resolution) -> dict[str, Any]:
    vehicle = resolution.vehicle
    extracted = resolution.extracted
    params: dict[str, Any] = {
        "make": vehicle.make.slug,
        "model": vehicle.model.slug,
        "year": vehicle.year,
        "view": resolution.view,
        "color": resolution.color,
        "vehicle_id": vehicle.id,
    }
    for name in ("size", "width", "format"):
        if getattr(resolution, name) is not None:
            params[name] = getattr(resolution, name)
    return {
        "params": params,
        "display": {"make_name": vehicle.make.name, "model_name": vehicle.model.name},
        "candidates": [hit_json(hit) for hit in resolution.candidates],
        "confidence": resolution.confidence,
        "image_path": resolution.image_path(),
        "extracted": {
            "year": extracted.year,
            "color": extracted.color,
            "view": extracted.view,
            "size": extracted.size,
            "width": extracted.width,
            "format": extracted.format,
        },
    }


@router.post(
    "/api/v1/images/resolve",
    operation_id="resolve_vehicle",
    summary="Resolve a free-text description to an image request (free)",
    response_class=Response,
    responses={
        200: {"description": "Resolve response."},
        **problem_responses(400, 401, 403, 404, 413, 429),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(ResolveRequest, description="The text to resolve."),
)
async def resolve_vehicle(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(ACCOUNT_READ, IMAGES_READ))],
) -> Response:
    """Use `image_path` directly when confidence is high; show candidates when medium or low."""
    body = validate_body(ResolveRequest, parse_json(await read_body(request, RESOLVE_LIMIT)))
    if not body.query.strip():
        raise InvalidParameter("query", "'query' is empty.")
    try:
        resolution = await asyncio.to_thread(
            resolve, services.catalog, body.query, year=body.year, make=body.make, model=body.model
        )
    except Unresolved as missing:
        extensions: dict[str, Any] = (
            {"makes": [make_json(m) for m in missing.makes]} if missing.makes else {}
        )
        raise NotFound(str(missing), **extensions) from None
    return JSONBody(
        {"data": resolution_json(resolution), "request_id": request_id_of(request)},
        headers=request.state.rate_headers,
    )
