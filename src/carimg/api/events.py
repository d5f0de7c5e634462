"""POST /api/v1/events: public, CORS-enabled funnel events, written after the response."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.background import BackgroundTask
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.api.bodies import parse_json, read_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.per_address import retry_after
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.errors import DomainError, RateLimited
from carimg.domain.events import MAX_EVENTS, MAX_PROPERTIES, parse_events

router = APIRouter(tags=["events"])
EVENTS_LIMIT = 32 * 1024
BATCHES_PER_MINUTE = 120
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, X-Request-Id",
    "Access-Control-Max-Age": "86400",
    "Access-Control-Expose-Headers": "X-Request-Id, Retry-After",
}

_INT64 = 2**63  # the JSON parser refuses integer literals outside 64 bits (floats are fine)
# RFC 3339 as `parse_events` reads it; years 2001–2099 so that no offset moves it out of
# 2000–2100, days 01–28 so that every date exists.
_TIMESTAMP = (
    r"^20(0[1-9]|[1-9][0-9])-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])[Tt ]"
    r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
EVENTS_BODY = {
    "title": "EventBatch",
    "type": "object",
    "required": ["events"],
    "additionalProperties": False,
    "properties": {
        "events": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_EVENTS,
            "items": {
                "title": "Event",
                "type": "object",
                "required": ["event", "anonymous_id", "source"],
                "additionalProperties": False,
                "properties": {
                    "event": {
                        "type": "string",
                        "pattern": r"^[a-z0-9_.:\-]{1,64}$",
                        "description": "cli_command, web_page_view, … or another name.",
                    },
                    "anonymous_id": {"type": "string", "minLength": 1, "maxLength": 128},
                    "source": {"type": "string", "pattern": r"^[a-z0-9_.\-]{1,32}$"},
                    "properties": {
                        "type": "object",
                        "maxProperties": MAX_PROPERTIES,
                        "additionalProperties": {
                            "anyOf": [
                                {"type": ["string", "boolean", "null"]},
                                {"type": "integer", "minimum": -_INT64, "maximum": 2 * _INT64 - 1},
                                {"type": "number", "not": {"type": "integer"}},
                            ]
                        },
                    },
                    "timestamp": {
                        "type": ["string", "null"],
                        "pattern": _TIMESTAMP,
                        "description": "RFC 3339; between the years 2000 and 2100.",
                    },
                },
            },
        }
    },
}


@router.options("/api/v1/events", include_in_schema=False)
async def events_preflight() -> Response:
    return Response(status_code=204, headers=CORS)


@router.post(
    "/api/v1/events",
    operation_id="create_events",
    summary="Funnel events from clients (public, never billed)",
    status_code=202,
    response_class=Response,
    responses={202: {"description": "{accepted}"}, **problem_responses(400, 413, 429, 503)},
    dependencies=[StrictQuery],
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "A batch of events.",
            "content": {"application/json": {"schema": EVENTS_BODY}},
        }
    },
)
async def create_events(request: Request, services: ServicesDep) -> Response:
    """1–20 events per batch, at most 32 KiB, 120 batches a minute per IP."""
    retry = await retry_after(services, request, "events", BATCHES_PER_MINUTE)
    if retry is not None:
        error = RateLimited(
            f"More than {BATCHES_PER_MINUTE} event batches a minute from this address.",
            retry_after=retry,
        )
        error.headers |= CORS
        raise error
    try:
        rows = parse_events(
            parse_json(await read_body(request, EVENTS_LIMIT)), services.clock.now()
        )
    except DomainError as error:  # a browser beacon can read why its batch was refused
        error.headers |= CORS
        raise
    return JSONBody(
        {"accepted": len(rows), "request_id": request_id_of(request)},
        status_code=202,
        headers=CORS,
        background=BackgroundTask(services.events.add_all, rows),
    )
