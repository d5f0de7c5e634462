"""POST /api/v1/image-urls: signed delivery URLs for browsers, one credit per URL at creation."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncConnection
from starlette.responses import Response

from carimg.api import imageschemas
from carimg.api.auth import ServicesDep, authenticated
from carimg.api.bodies import body_openapi, parse_json, read_body, validate_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody, json_bytes
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.deliveryurls import Minted, MintedUrl
from carimg.domain.errors import DomainError, InvalidParameter, InvalidRequest
from carimg.domain.idempotency import KEY_PATTERN, RecordedResponse, Recorder, check_key
from carimg.domain.imagerequest import ImageSpec, parse_image_request
from carimg.domain.keys import IMAGES_READ
from carimg.domain.records import Principal
from carimg.services import Services
from carimg.years import MAX_YEAR, MIN_YEAR

BODY_LIMIT = 64 * 1024
ROUTE = "POST /api/v1/image-urls"
router = APIRouter(tags=["images"])


class ImageItem(BaseModel):
    """One image request (the JSON spelling of the image endpoint's query)."""

    model_config = ConfigDict(extra="forbid")

    make: str | None = Field(default=None, min_length=1, json_schema_extra=imageschemas.NAME)
    brand: str | None = Field(
        default=None,
        min_length=1,
        description="Another spelling of make; not with make (400).",
        json_schema_extra=imageschemas.NAME,
    )
    model: str | None = Field(default=None, min_length=1, json_schema_extra=imageschemas.NAME)
    year: int | None = Field(default=None, ge=MIN_YEAR, le=MAX_YEAR)
    vehicle: str | None = Field(default=None, description="A catalog vehicle id (veh_…).")
    view: str | None = Field(default=None, json_schema_extra=imageschemas.VIEW)
    color: str | None = Field(
        default=None, description="A preset or any hex.", json_schema_extra=imageschemas.COLOR
    )
    finish: str | None = Field(
        default=None,
        description="gloss, metallic, satin or matte (carimg's own; default: the preset's).",
        json_schema_extra=imageschemas.FINISH,
    )
    width: int | None = Field(default=None, ge=1, le=1024)
    height: int | None = Field(default=None, ge=1, le=1024)
    size: str | None = Field(default=None, json_schema_extra=imageschemas.SIZE)
    fit: str | None = Field(default=None, json_schema_extra=imageschemas.FIT)
    background: str | None = Field(default=None, json_schema_extra=imageschemas.BACKGROUND)
    trim: bool | None = None
    padding: int | None = Field(default=None, ge=0, le=50)
    reflection: bool | None = Field(
        default=None,
        description="A faint floor reflection (carimg's own; needs a background, or jpg).",
    )
    format: str | None = Field(default=None, json_schema_extra=imageschemas.FORMAT)


def _integral(value: Any) -> Any:
    """JSON has one number type: 5.0 is the whole number 5 (JSON Schema's integer takes it)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# Whole numbers only: not true, not "3600", not 2.5.
WholeNumber = Annotated[int, BeforeValidator(_integral), Field(strict=True)]


class _Minting(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ttl_seconds: WholeNumber | None = Field(
        default=None,
        description="60–604800, default 3600.",
        json_schema_extra={"minimum": 60, "maximum": 604800},
    )
    max_uses: WholeNumber = Field(
        default=0,
        description="0–1000; 0 is unlimited.",
        json_schema_extra={"minimum": 0, "maximum": 1000},
    )
    renew: bool = Field(default=False, description="Renew each ttl window (max_uses 0 only).")
    renew_days: WholeNumber | None = Field(
        default=None,
        description="1–365, default 365.",
        json_schema_extra={"minimum": 1, "maximum": 365},
    )


class BatchRequest(_Minting):
    images: list[Any] = Field(  # items validated one by one
        min_length=1,
        max_length=50,
        json_schema_extra=lambda schema: schema.update(items=ImageItem.model_json_schema()),
    )


class SingleRequest(ImageItem, _Minting):
    pass


def _item_spec(services: Services, item: dict[str, Any], accept: str | None) -> ImageSpec:
    values = validate_body(ImageItem, item).model_dump()
    if values.get("brand") is not None:
        if values.get("make") is not None:
            raise InvalidParameter("brand", "Send 'make' or 'brand', not both.")
        values["make"] = values["brand"]
    values.pop("brand")
    return parse_image_request(services.catalog, values, accept=accept)


def parse_mint_request(
    services: Services, body: Any, accept: str | None
) -> tuple[list[ImageSpec], _Minting]:
    """Validate every item before anything is charged; a failing item's problem has `index`."""
    if not isinstance(body, dict):
        raise InvalidRequest("The body must be a JSON object: one image request, or {images: […]}.")
    if "images" not in body:
        options = {k: body.pop(k) for k in list(body) if k in _Minting.model_fields}
        minting = validate_body(_Minting, options)
        return [_item_spec(services, body, accept)], minting
    items = body.get("images")
    limit = services.settings.max_batch_urls
    if isinstance(items, list) and len(items) > limit:
        raise InvalidParameter("images", f"A batch holds 1 to {limit} images.")
    batch = validate_body(BatchRequest, body)
    specs: list[ImageSpec] = []
    for index, item in enumerate(batch.images):
        try:
            specs.append(_item_spec(services, item, accept))
        except DomainError as error:
            error.extensions["index"] = index
            error.detail = f"images[{index}]: {error.detail}"
            raise
    return specs, batch


def delivery_url_json(url: MintedUrl) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": url.id,
        "url": url.url,
        "expires_at": url.expires_at.isoformat().replace("+00:00", "Z"),
        "max_uses": url.max_uses,
        "vehicle": url.spec.vehicle_params(),
    }
    if url.renews_until is not None:
        record["renews_until"] = url.renews_until.isoformat().replace("+00:00", "Z")
    return record


def urls_body(minted: Minted, request_id: str) -> dict[str, Any]:
    return {
        "data": [delivery_url_json(url) for url in minted.urls],
        "billing": {
            "charged_on": "creation",
            "credits_charged": minted.credits_charged,
            "credits_remaining": minted.credits_remaining,
            "credits_per_url": 1,
        },
        "request_id": request_id,
    }


async def single_url_response(
    request: Request, services: Services, principal: Principal, spec: ImageSpec
) -> Response:
    """`GET /api/v1/images/car?response=url`: one URL minted by the same code as the batch."""
    minted = await services.delivery_urls.mint(principal, [spec])
    url = minted.urls[0]
    width, height = spec.expected_size()
    body = {
        "data": {
            "url": url.url,
            "expires_at": url.expires_at.isoformat().replace("+00:00", "Z"),
            "max_uses": url.max_uses,
            "vehicle": spec.vehicle_params(),
            "width": width,
            "height": height,
            "format": spec.format,
        },
        "billing": {
            "credits_charged": minted.credits_charged,
            "credits_remaining": minted.credits_remaining,
        },
        "request_id": request_id_of(request),
    }
    headers = {"Vary": "Accept", "Cache-Control": "no-store"}
    return JSONBody(body, headers=headers | getattr(request.state, "rate_headers", {}))


@router.post(
    "/api/v1/image-urls",
    operation_id="create_image_urls",
    summary="Mint signed delivery URLs (1 credit per URL, charged at creation)",
    status_code=201,
    response_class=Response,
    responses={
        201: {"description": "ImageUrlsResponse: the URLs and the one debit that paid for them."},
        **problem_responses(400, 401, 402, 403, 404, 409, 413, 422, 429, 500),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(
        BatchRequest, SingleRequest, description="One image request or a batch."
    ),
)
async def create_image_urls(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(IMAGES_READ))],
    idempotency_key: Annotated[
        str | None,
        Header(
            alias="Idempotency-Key",
            description="Retry safely: same key, same body, no new charge.",
            json_schema_extra={"pattern": f"^{KEY_PATTERN.pattern}$"},
        ),
    ] = None,
) -> Response:
    """Validates every item first; nothing is charged unless all URLs are created."""
    body = await read_body(request, BODY_LIMIT)
    accept = request.headers.get("accept")

    async def mint(record: Recorder | None = None) -> RecordedResponse:
        specs, options = parse_mint_request(services, parse_json(body), accept)
        headers = {"content-type": "application/json"}

        def response_of(minted: Minted) -> RecordedResponse:
            payload = json_bytes(urls_body(minted, request_id_of(request)))
            return RecordedResponse(201, headers, payload)

        async def on_minted(conn: AsyncConnection, minted: Minted) -> None:
            if record is not None:
                await record(conn, response_of(minted))

        minted = await services.delivery_urls.mint(
            principal,
            specs,
            ttl_seconds=options.ttl_seconds,
            max_uses=options.max_uses,
            renew=options.renew,
            renew_days=options.renew_days,
            on_minted=on_minted,
        )
        return response_of(minted)

    if idempotency_key is None:
        result = await mint()
    else:
        result = await services.idempotency.run(
            principal.account.id, ROUTE, check_key(idempotency_key), body, mint
        )
    headers = dict(result.headers) | getattr(request.state, "rate_headers", {})
    if result.replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(result.body, result.status, headers=headers)
