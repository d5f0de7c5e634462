"""GET /api/v1/images/car: one studio render of a catalog vehicle, for one credit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from carimg.api import imageschemas
from carimg.api.auth import ServicesDep, authenticated
from carimg.api.headers import request_id_of
from carimg.api.image_urls import single_url_response
from carimg.api.problems import problem_responses
from carimg.api.query import IGNORED_HEADER, StrictQuery
from carimg.domain.errors import InvalidParameter
from carimg.domain.imagerequest import ImageSpec, parse_image_request
from carimg.domain.images import NotModified
from carimg.domain.keys import IMAGES_READ
from carimg.domain.records import Principal
from carimg.services import Services
from carimg.years import MAX_YEAR, MIN_YEAR

router = APIRouter(tags=["images"])

# (canonical, alias): the spec's other spellings of a parameter; sending both is 400.
ALIASES = (("make", "brand"), ("view", "angle"), ("color", "paint"), ("background", "bg"))
# The integer parameters' bounds (FastAPI validates them; api/hotpaths reads them too).
INTEGER_BOUNDS = {
    "year": (MIN_YEAR, MAX_YEAR),
    "w": (1, 1024),
    "h": (1, 1024),
    "padding": (0, 50),
}
CACHE_CONTROL = {"A": "private, max-age=86400", "B": "private, no-store"}


def merge_aliases(query: dict[str, Any]) -> dict[str, Any]:
    """Canonical names for the domain; a parameter sent under two spellings is 400."""
    merged = dict(query)
    for canonical, alias in ALIASES:
        if merged.get(alias) is not None:
            if merged.get(canonical) is not None:
                raise InvalidParameter(
                    alias, f"Send '{canonical}' or '{alias}', not both (they are one parameter)."
                )
            merged[canonical] = merged[alias]
        merged.pop(alias, None)
    merged["width"], merged["height"] = merged.pop("w", None), merged.pop("h", None)
    return merged


def wants_json(request: Request, response: str | None) -> bool:
    """`response=url`, or an Accept header naming JSON and no image type."""
    if response == "url":
        return True
    accept = request.headers.get("accept", "").lower()
    return "application/json" in accept and "image/" not in accept


class ImageBody(Response):
    """An image with its headers, encoded in one pass: Starlette's `init_headers` scans the
    headers for Content-Type and Content-Length, which an image's never carry, and encodes
    every name again; here header names are encoded once per process."""

    media_type: str  # always given

    def __init__(self, data: bytes, media_type: str, headers: dict[str, str]) -> None:
        super().__init__(data, headers=headers, media_type=media_type)

    def init_headers(self, headers: Mapping[str, str] | None = None) -> None:
        names = _ENCODED_NAMES
        raw = [
            (names.get(name) or _encode_name(name), value.encode("latin-1"))
            for name, value in (headers or {}).items()
        ]
        raw.append((b"content-length", str(len(self.body)).encode("latin-1")))
        raw.append((b"content-type", self.media_type.encode("latin-1")))
        self.raw_headers = raw

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Response's, less a WebSocket denial (no image route is a WebSocket)."""
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await send({"type": "http.response.body", "body": self.body})
        if self.background is not None:  # a route's BackgroundTasks, as Response runs them
            await self.background()


_ENCODED_NAMES: dict[str, bytes] = {}  # header name -> as sent (lowercase latin-1)


def _encode_name(name: str) -> bytes:
    if len(_ENCODED_NAMES) >= 1_000:  # names come from code, not clients: a few dozen
        _ENCODED_NAMES.clear()
    encoded = _ENCODED_NAMES[name] = name.lower().encode("latin-1")
    return encoded


def image_headers(request: Request, spec: ImageSpec, etag: str) -> dict[str, str]:
    settings = request.app.state.settings
    headers = {
        "ETag": etag,
        "Cache-Control": CACHE_CONTROL[settings.pricing_variant],
        "Content-Location": settings.base_url + spec.canonical_path(),
        "Vary": "Accept",
        **getattr(request.state, "rate_headers", {}),
    }
    ignored = getattr(request.state, "ignored_parameters", None)
    if ignored:
        headers[IGNORED_HEADER] = ", ".join(sorted(ignored))
    return headers


@router.get(
    "/api/v1/images/car",
    operation_id="get_car_image",
    summary="A studio render of a catalog vehicle (1 credit)",
    response_class=Response,
    responses={
        200: {
            "description": "The image (or, with response=url, a signed URL).",
            "content": imageschemas.IMAGE_CONTENT,
        },
        304: {"description": "If-None-Match matched: no body, no charge."},
        **problem_responses(400, 401, 402, 403, 404, 429, 502, 503),
    },
    dependencies=[StrictQuery],
)
async def get_car_image(
    request: Request,
    services: ServicesDep,
    principal: Annotated[Principal, Depends(authenticated(IMAGES_READ))],
    make: Annotated[
        str | None, Query(json_schema_extra=imageschemas.NAME, description="Make name or slug.")
    ] = None,
    brand: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.NAME,
            description="Another spelling of make; not with make (400).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.NAME, description="Model name, slug or unique prefix."
        ),
    ] = None,
    year: Annotated[
        int | None, Query(ge=INTEGER_BOUNDS["year"][0], le=INTEGER_BOUNDS["year"][1])
    ] = None,
    vehicle: Annotated[str | None, Query(description="A catalog vehicle id (veh_…).")] = None,
    view: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.VIEW,
            description="front, front-3-4, side, … or an alias.",
        ),
    ] = None,
    angle: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.VIEW,
            description="Another spelling of view; not with view (400).",
        ),
    ] = None,
    color: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.COLOR, description="One of the 15 presets, or any hex."
        ),
    ] = None,
    paint: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.COLOR,
            description="Another spelling of color; not with color (400).",
        ),
    ] = None,
    finish: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.FINISH,
            description="gloss, metallic, satin or matte (carimg's own; default: the preset's).",
        ),
    ] = None,
    w: Annotated[
        int | None,
        Query(
            ge=INTEGER_BOUNDS["w"][0],
            le=INTEGER_BOUNDS["w"][1],
            description="Width, px (fit inside).",
        ),
    ] = None,
    h: Annotated[
        int | None,
        Query(ge=INTEGER_BOUNDS["h"][0], le=INTEGER_BOUNDS["h"][1], description="Height, px."),
    ] = None,
    size: Annotated[
        str | None,
        Query(json_schema_extra=imageschemas.SIZE, description="thumb, small, medium or large."),
    ] = None,
    fit: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.FIT, description="contain (default), cover or inside."
        ),
    ] = None,
    background: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.BACKGROUND,
            description="transparent, white, black or hex.",
        ),
    ] = None,
    bg: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.BACKGROUND,
            description="Another spelling of background; not with background (400).",
        ),
    ] = None,
    trim: Annotated[
        str | None,
        Query(json_schema_extra=imageschemas.FLAG, description="Trim to the vehicle's bounds."),
    ] = None,
    padding: Annotated[
        int | None,
        Query(
            ge=INTEGER_BOUNDS["padding"][0],
            le=INTEGER_BOUNDS["padding"][1],
            description="Padding % with trim.",
        ),
    ] = None,
    reflection: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.FLAG,
            description="A faint floor reflection (carimg's own; needs a background, or jpg).",
        ),
    ] = None,
    format: Annotated[
        str | None,
        Query(json_schema_extra=imageschemas.FORMAT, description="png, webp, jpg (jpeg) or auto."),
    ] = None,
    response: Annotated[
        str | None,
        Query(description="image (default) or url.", json_schema_extra={"enum": ["image", "url"]}),
    ] = None,
) -> Response:
    """Billed 1 credit per 200, from cache or freshly rendered; a 304 is free."""
    query = {
        "make": make, "brand": brand, "model": model, "year": year, "vehicle": vehicle,
        "view": view, "angle": angle, "color": color, "paint": paint, "finish": finish,
        "w": w, "h": h, "size": size, "fit": fit, "background": background, "bg": bg, "trim": trim,
        "padding": padding, "reflection": reflection, "format": format,
    }  # fmt: skip
    return await image_response(request, services, principal, query, response)


async def image_response(
    request: Request,
    services: Services,
    principal: Principal,
    query: dict[str, Any],
    response: str | None,
) -> Response:
    """The endpoint after its parameters are read and its caller authenticated (also served
    outside FastAPI, see api/hotpaths)."""
    if response not in (None, "image", "url"):
        raise InvalidParameter("response", "'response' is image or url.", allowed=["image", "url"])
    spec = parse_image_request(
        services.catalog, merge_aliases(query), accept=request.headers.get("accept")
    )
    if wants_json(request, response):
        return await single_url_response(request, services, principal, spec)
    result = await services.images.deliver(
        principal,
        spec,
        request_id=request_id_of(request),
        if_none_match=request.headers.get("if-none-match"),
    )
    headers = image_headers(request, spec, result.etag)
    if isinstance(result, NotModified):
        return Response(status_code=304, headers=headers | {"X-Credits-Charged": "0"})
    headers |= {
        "X-Credits-Charged": str(result.credits_charged),
        "X-Credits-Remaining": str(result.credits_remaining),
        "X-Image-Source": result.source,
        "X-Image-Width": str(result.width),
        "X-Image-Height": str(result.height),
    }
    return ImageBody(result.data, result.media_type, headers)
