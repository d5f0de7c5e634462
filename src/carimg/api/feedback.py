"""POST /api/v1/feedback: ratings and verdicts on delivered renders."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict
from starlette.responses import Response

from carimg.api.auth import ServicesDep, authenticated
from carimg.api.bodies import body_openapi, parse_json, read_body, validate_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.feedback import FeedbackReport
from carimg.domain.imagerequest import MAX_NAME_LENGTH
from carimg.domain.keys import ACCOUNT_READ, IMAGES_READ
from carimg.domain.records import Principal
from carimg.domain.views import COLORS, FINISHES, VIEW_BY_NAME
from carimg.years import MAX_YEAR, MIN_YEAR

router = APIRouter(tags=["feedback"])
FEEDBACK_LIMIT = 8 * 1024


_NAMED: JsonDict = {"type": "string", "pattern": r"\S", "maxLength": MAX_NAME_LENGTH}
# What `Feedback.record` asks beyond the members' types: a rating or a verdict, and the image
# named by its request_id or by make, model and year.
_RULES: JsonDict = {
    "allOf": [
        {
            "anyOf": [
                {"required": ["rating"], "properties": {"rating": {"type": "integer"}}},
                {"required": ["verdict"], "properties": {"verdict": {"type": "string"}}},
            ]
        },
        {
            "anyOf": [
                {"required": ["request_id"], "properties": {"request_id": {"type": "string"}}},
                {
                    "required": ["make", "model", "year"],
                    "properties": {
                        "make": _NAMED,
                        "model": _NAMED,
                        "year": {"type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR},
                    },
                },
            ]
        },
    ]
}
_VIEW: JsonDict = {"enum": [*sorted(VIEW_BY_NAME), None]}
_COLOR: JsonDict = {
    "anyOf": [
        {"type": "string", "enum": list(COLORS)},
        {"type": "string", "pattern": r"^#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$"},
        {"type": "null"},
    ]
}
_FINISH: JsonDict = {"enum": [*FINISHES, None]}


class FeedbackRequest(BaseModel):
    """A rating (1–5) or a verdict on one image, named by `request_id` or by make, model and
    year."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_RULES)

    request_id: str | None = Field(default=None, min_length=1, max_length=128)
    make: str | None = Field(default=None, min_length=1)
    model: str | None = Field(default=None, min_length=1)
    year: int | None = None
    view: str | None = Field(default=None, json_schema_extra=_VIEW)
    color: str | None = Field(default=None, json_schema_extra=_COLOR)
    finish: str | None = Field(default=None, json_schema_extra=_FINISH)
    rating: int | None = Field(default=None, ge=1, le=5)
    verdict: Literal["good", "bad"] | None = None
    reason: str | None = Field(default=None, max_length=500)

    @field_validator("rating", mode="before")
    @classmethod
    def _no_boolean_rating(cls, value: object) -> object:
        """`true` is no rating (it would count as a 1, a negative report), as in image requests."""
        if isinstance(value, bool):
            raise ValueError("a rating is a whole number from 1 to 5")
        return value


@router.post(
    "/api/v1/feedback",
    operation_id="create_feedback",
    summary="Rate a delivered render (free); repeated bad reports regenerate it",
    description="Bad reports (verdict bad, or a rating of 1 or 2) from "
    "`CARIMG_FEEDBACK_FLAG_THRESHOLD` accounts send a render back for a new variation; a report "
    "counts only when it names the `request_id` that delivered that variation to its account. "
    "Other reports are recorded and change nothing.",
    status_code=201,
    response_class=Response,
    responses={
        201: {"description": "Feedback response: asset_id, recorded, flagged."},
        **problem_responses(400, 401, 403, 404, 413, 429),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(FeedbackRequest, description="The image and the verdict."),
)
async def create_feedback(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(IMAGES_READ, ACCOUNT_READ))],
) -> Response:
    body = validate_body(FeedbackRequest, parse_json(await read_body(request, FEEDBACK_LIMIT)))
    recorded = await services.feedback.record(principal, FeedbackReport(**body.model_dump()))
    data = {"asset_id": recorded.asset_id, "recorded": True, "flagged": recorded.flagged}
    return JSONBody(
        {"data": data, "request_id": request_id_of(request)},
        status_code=201,
        headers=request.state.rate_headers,
    )
