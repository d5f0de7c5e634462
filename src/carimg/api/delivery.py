"""GET and HEAD /api/v1/delivery/{token}: what browsers load, with no key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.api.images import ImageBody
from carimg.api.imageschemas import IMAGE_CONTENT
from carimg.api.problems import problem_responses
from carimg.domain.deliveryurls import Asking, Loaded
from carimg.formats import MEDIA_TYPES
from carimg.services import Services

router = APIRouter(tags=["delivery"])


def cache_control(loaded: Loaded, variant: str) -> str:
    """Unlimited URLs are publicly cacheable for their remaining life; capped ones never."""
    if loaded.max_uses:
        return "private, no-store"
    if loaded.restricted:  # a shared cache would serve it to any site, past the origin check
        return f"private, max-age={min(300, loaded.seconds_left)}"
    left = loaded.seconds_left
    if variant == "A":
        return f"public, max-age={left}, s-maxage={left}, stale-while-revalidate=60"
    return f"public, max-age={min(300, left)}, s-maxage={min(3600, left)}, must-revalidate"


async def serve_delivery(request: Request, services: Services, token: str, head: bool) -> Response:
    """One load (GET) or validation (HEAD); also served outside FastAPI, see api/hotpaths."""
    headers = request.headers
    loaded = await services.delivery_urls.load(
        token,
        asking=Asking(
            referer=headers.get("referer"),
            origin=headers.get("origin"),
            fetch_site=headers.get("sec-fetch-site"),
        ),
        head=head,
        if_none_match=request.headers.get("if-none-match"),
    )
    return delivery_response(loaded, services.settings.pricing_variant, head)


def delivery_response(loaded: Loaded, pricing_variant: str, head: bool) -> Response:
    """The response to a load (see `serve_delivery`)."""
    if loaded.data is None:
        headers = _validators(loaded, pricing_variant)
        headers["Content-Type"] = MEDIA_TYPES[loaded.spec.format]
        response = Response(status_code=200 if head else 304, headers=headers)
        # A HEAD renders nothing, so the image's length is unknown here: no Content-Length
        # (Starlette would send 0, which RFC 9110 forbids unless the GET's body were empty).
        response.raw_headers = [h for h in response.raw_headers if h[0] != b"content-length"]
        return response
    return delivery_body(loaded, loaded.data, pricing_variant)


def delivery_body(loaded: Loaded, data: bytes, pricing_variant: str) -> ImageBody:
    """A load that sends the image (`data`, the loaded image)."""
    headers = _validators(loaded, pricing_variant) | {
        "X-Image-Source": str(loaded.source),
        "X-Image-Width": str(loaded.width),
        "X-Image-Height": str(loaded.height),
    }
    return ImageBody(data, MEDIA_TYPES[loaded.spec.format], headers)


def _validators(loaded: Loaded, pricing_variant: str) -> dict[str, str]:
    return {"ETag": loaded.etag, "Cache-Control": cache_control(loaded, pricing_variant)}


@router.get(
    "/api/v1/delivery/{token}",
    operation_id="get_delivery",
    summary="Load a signed delivery URL (free until it expires)",
    response_class=Response,
    responses={
        200: {"description": "The image.", "content": IMAGE_CONTENT},
        304: {"description": "If-None-Match matched."},
        **problem_responses(403, 410, 502, 503),
    },
)
async def get_delivery(request: Request, services: ServicesDep, token: str) -> Response:
    """First load renders and caches; capped URLs count loads and answer 410 when used up."""
    return await serve_delivery(request, services, token, head=False)


@router.head(
    "/api/v1/delivery/{token}",
    operation_id="head_delivery",
    summary="Validate a delivery URL without rendering or using a load",
    response_class=Response,
    responses=problem_responses(403, 410, 503),
)
async def head_delivery(request: Request, services: ServicesDep, token: str) -> Response:
    return await serve_delivery(request, services, token, head=True)
