"""GET /images/car.png: the legacy embed endpoint, serving the same renders under several grants."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response

from carimg.api import imageschemas
from carimg.api.auth import ServicesDep, credential_of
from carimg.api.headers import request_id_of
from carimg.api.images import CACHE_CONTROL, merge_aliases
from carimg.api.per_address import client_ip
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.accounts import require_scope
from carimg.domain.embed import FreeImage, missing_grant
from carimg.domain.errors import InvalidParameter
from carimg.domain.etags import etag_matches
from carimg.domain.imagerequest import ImageSpec, parse_image_request
from carimg.domain.images import NotModified
from carimg.domain.keys import IMAGES_READ
from carimg.domain.signing import EMBED_PATH
from carimg.formats import MEDIA_TYPES
from carimg.years import MAX_YEAR, MIN_YEAR

router = APIRouter(tags=["embed"])
PUBLIC_EXAMPLE = "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400"
WARNING = (
    "This deployment still serves unauthenticated embeds; this will stop. Mint signed URLs "
    "(POST /api/v1/image-urls) or sign embed URLs as a partner."
)


def canonical_query(spec: ImageSpec, raw: dict[str, str], keep_key: bool) -> list[tuple[str, str]]:
    """The legacy spelling (`brand`, `w`, `h`) of what was asked, in a fixed order."""
    vehicle = spec.vehicle
    query = [
        ("brand", vehicle.make.slug),
        ("model", vehicle.model.slug),
        ("year", str(vehicle.year)),
    ]
    if "view" in raw or "angle" in raw:
        query.append(("view", spec.view))
    if "color" in raw or "paint" in raw:
        query.append(("color", spec.color))
    if spec.finish is not None:
        query.append(("finish", spec.finish))
    for name in ("w", "h", "size"):
        if name in raw:
            query.append((name, raw[name].strip().lower()))
    if "format" in raw:
        query.append(("format", "auto" if spec.negotiated else spec.format))
    if "mode" in raw:
        query.append(("mode", "cached"))
    if keep_key and "key" in raw:
        query.append(("key", raw["key"]))
    return query


def _image(
    request: Request, spec: ImageSpec, etag: str, data: bytes, width: int, height: int,
    source: str, headers: dict[str, str],
) -> Response:  # fmt: skip
    headers = {
        "ETag": etag,
        "X-Image-Source": source,
        "X-Image-Width": str(width),
        "X-Image-Height": str(height),
        **({"Vary": "Accept"} if spec.negotiated else {}),
        **headers,
    }
    if request.app.state.settings.embed_open:
        headers["X-Api-Key-Warning"] = WARNING
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(data, media_type=MEDIA_TYPES[spec.format], headers=headers)


def _free(request: Request, spec: ImageSpec, etag: str, free: FreeImage, cache: str) -> Response:
    headers = {"Cache-Control": cache, "X-Credits-Charged": "0"}
    return _image(request, spec, etag, free.data, free.width, free.height, free.source, headers)


@router.get(
    EMBED_PATH,
    operation_id="get_embed_image",
    summary="Legacy embed endpoint (partner-signed, cached, examples, key or session)",
    response_class=Response,
    responses={
        200: {"description": "The image.", "content": imageschemas.IMAGE_CONTENT},
        308: {"description": "Non-canonical spelling: follow to the canonical URL."},
        **problem_responses(400, 401, 402, 403, 404, 429, 502, 503),
    },
    dependencies=[StrictQuery],
)
async def get_embed_image(
    request: Request,
    services: ServicesDep,
    brand: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.NAME,
            description="Make (send brand or make, not both: 400).",
        ),
    ] = None,
    make: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.NAME,
        ),
    ] = None,
    model: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.NAME,
        ),
    ] = None,
    year: Annotated[int | None, Query(ge=MIN_YEAR, json_schema_extra={"maximum": MAX_YEAR})] = None,
    view: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.VIEW,
        ),
    ] = None,
    angle: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.VIEW,
        ),
    ] = None,
    color: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.COLOR,
        ),
    ] = None,
    paint: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.COLOR,
        ),
    ] = None,
    finish: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.FINISH,
        ),
    ] = None,
    w: Annotated[int | None, Query(ge=1, le=1024)] = None,
    h: Annotated[int | None, Query(ge=1, le=1024)] = None,
    size: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.SIZE,
        ),
    ] = None,
    format: Annotated[
        str | None,
        Query(
            json_schema_extra=imageschemas.FORMAT,
        ),
    ] = None,
    mode: Annotated[
        str | None, Query(description="Only `cached`.", json_schema_extra={"enum": ["cached"]})
    ] = None,
    exp: Annotated[str | None, Query(description="Partner URL expiry, unix seconds.")] = None,
    sig: Annotated[str | None, Query(description="Partner HMAC-SHA256, lowercase hex.")] = None,
    key: Annotated[
        str | None, Query(description="Deprecated; off unless the setting is on.")
    ] = None,
) -> Response:
    """Grants are tried in the spec's order; only the key grant costs a credit."""
    settings = services.settings
    grants = services.embed
    raw_items = request.query_params.multi_items()
    raw = dict(raw_items)
    if mode is not None and mode != "cached":
        raise InvalidParameter("mode", "'mode' can only be 'cached'.", allowed=["cached"])
    query = {
        "make": make, "brand": brand, "model": model, "year": year, "view": view,
        "angle": angle, "color": color, "paint": paint, "finish": finish, "w": w, "h": h,
        "size": size, "format": format,
    }  # fmt: skip
    spec = parse_image_request(
        services.catalog, merge_aliases(query), accept=request.headers.get("accept")
    )
    spec = await services.images.renderer.current(spec)
    etag = services.images.renderer.etag(spec)
    if exp is not None or sig is not None:
        left = await grants.check_partner_signature(raw_items)
        free = await grants.free(spec, "partner", left)
        return _free(request, spec, etag, free, f"public, max-age={left}, s-maxage={left}")
    keep_key = settings.embed_query_key
    canonical = canonical_query(spec, raw, keep_key)
    if sorted(canonical) != sorted((k, v) for k, v in raw_items if keep_key or k != "key"):
        return RedirectResponse(f"{EMBED_PATH}?{urlencode(canonical)}", status_code=308)
    if mode == "cached":
        return _free(request, spec, etag, await grants.cached_only(spec), PUBLIC_EXAMPLE)
    if grants.is_example(spec):
        return _free(request, spec, etag, await grants.free(spec, "example"), PUBLIC_EXAMPLE)
    credential = credential_of(request) or (key if keep_key else None)
    if credential is not None:
        principal = await services.accounts.authenticate(credential)
        request.state.rate_headers = (await services.rate.hit(principal)).headers()
        require_scope(principal, IMAGES_READ)
        result = await services.images.deliver(
            principal,
            spec,
            request_id=request_id_of(request),
            if_none_match=request.headers.get("if-none-match"),
        )
        headers = {"Cache-Control": CACHE_CONTROL[settings.pricing_variant]}
        headers |= request.state.rate_headers
        if isinstance(result, NotModified):
            return Response(status_code=304, headers=headers | {"ETag": etag})
        headers |= {
            "X-Credits-Charged": str(result.credits_charged),
            "X-Credits-Remaining": str(result.credits_remaining),
        }
        return _image(
            request, spec, etag, result.data, result.width, result.height, result.source, headers
        )
    if await grants.session_grant(request.cookies, etag, client_ip(request)):
        return _free(
            request, spec, etag, await grants.free(spec, "session"), "private, max-age=300"
        )
    if settings.embed_open:
        return _free(request, spec, etag, await grants.free(spec, "open"), PUBLIC_EXAMPLE)
    raise missing_grant()
