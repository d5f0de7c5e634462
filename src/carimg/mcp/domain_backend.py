"""The tools on the domain services: the same billing, scopes and errors as the REST endpoints.

The endpoint authenticates each HTTP request (and counts it against the rate windows) and puts
the principal in `current_principal`; every tool reads it from there.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any

from carimg.api.image_urls import delivery_url_json, parse_mint_request
from carimg.api.problems import payment_extensions
from carimg.api.resolve import resolution_json
from carimg.api.vehicles import make_json, vehicles_data
from carimg.domain.accounts import require_scope
from carimg.domain.deliveryurls import DELIVERY_PATH
from carimg.domain.errors import DomainError, InvalidParameter, NotFound, RateLimited
from carimg.domain.feedback import FeedbackReport
from carimg.domain.imagerequest import parse_image_request
from carimg.domain.keys import ACCOUNT_READ, IMAGES_READ
from carimg.domain.options import build_options
from carimg.domain.records import Principal
from carimg.domain.resolver import Unresolved, resolve
from carimg.formats import MEDIA_TYPES
from carimg.mcp.describe import describe_endpoint
from carimg.mcp.tools import (
    DeliveryUrl,
    Feedback,
    FeedbackResult,
    ImageRequest,
    ImageResult,
    ImageUrlsResult,
    ToolFailure,
    VehicleSearch,
    problem_text,
)
from carimg.services import Services

current_principal: ContextVar[Principal] = ContextVar("carimg_mcp_principal")


def problem_of(error: DomainError, services: Services) -> dict[str, Any]:
    """The problem document the REST API would answer with (402s with their payment links)."""
    problem: dict[str, Any] = {
        "status": error.status,
        "title": error.title,
        "detail": error.detail,
        **error.extensions,
    }
    if error.status == 402:
        payment, _ = payment_extensions(services.settings)
        problem = payment | problem
    return problem


@asynccontextmanager
async def tool_failures(services: Services) -> AsyncIterator[None]:
    """Domain errors become tool errors whose text says what to do."""
    try:
        yield
    except DomainError as error:
        retry_after = error.retry_after if isinstance(error, RateLimited) else None
        raise ToolFailure(problem_text(problem_of(error, services), retry_after)) from error


def _iso(value: Any) -> str:
    return str(value.isoformat().replace("+00:00", "Z"))


class DomainBackend:
    """`ToolBackend` for the remote endpoint, on this process's services."""

    def __init__(self, services: Services, openapi: Callable[[], dict[str, Any]]) -> None:
        self._services = services
        self._openapi = openapi

    @staticmethod
    def _principal(*scopes: str) -> Principal:
        principal = current_principal.get()
        if scopes:
            require_scope(principal, *scopes)
        return principal

    async def get_car_image(self, request: ImageRequest) -> ImageResult:
        services = self._services
        async with tool_failures(services):
            principal = self._principal(IMAGES_READ)
            spec = parse_image_request(services.catalog, request.query())
            # One credit buys the URL; its first load (free) brings the bytes, and a failed
            # render refunds the credit, exactly as for a URL minted over REST.
            minted = await services.delivery_urls.mint(principal, [spec])
            url = minted.urls[0]
            loaded = await services.delivery_urls.load(url.url.rsplit(DELIVERY_PATH, 1)[1])
        assert loaded.data is not None and loaded.width and loaded.height
        return ImageResult(
            data=loaded.data,
            media_type=MEDIA_TYPES[loaded.spec.format],
            url=url.url,
            expires_at=_iso(url.expires_at),
            width=loaded.width,
            height=loaded.height,
            vehicle=dict(spec.vehicle_params()),
            credits_charged=minted.credits_charged,
            credits_remaining=minted.credits_remaining,
        )

    async def create_car_image_urls(
        self, images: list[ImageRequest], ttl_seconds: int | None, max_uses: int
    ) -> ImageUrlsResult:
        services = self._services
        async with tool_failures(services):
            principal = self._principal(IMAGES_READ)
            body: dict[str, Any] = {"images": [image.query() for image in images]}
            body |= {"max_uses": max_uses} | (
                {"ttl_seconds": ttl_seconds} if ttl_seconds is not None else {}
            )
            specs, options = parse_mint_request(services, body, None)
            minted = await services.delivery_urls.mint(
                principal, specs, ttl_seconds=options.ttl_seconds, max_uses=options.max_uses
            )
        return ImageUrlsResult(
            urls=[DeliveryUrl.model_validate(delivery_url_json(url)) for url in minted.urls],
            credits_charged=minted.credits_charged,
            credits_remaining=minted.credits_remaining,
        )

    async def search_vehicles(self, search: VehicleSearch) -> dict[str, Any]:
        async with tool_failures(self._services):
            self._principal()
            return vehicles_data(
                self._services.catalog,
                year=search.year,
                make_id=None,
                q=search.query,
                limit=search.limit,
                make=search.make,
                model=search.model,
            )

    async def resolve_vehicle(
        self, query: str, year: int | None, make: str | None, model: str | None
    ) -> dict[str, Any]:
        catalog = self._services.catalog
        async with tool_failures(self._services):
            self._principal(ACCOUNT_READ, IMAGES_READ)
            if not query.strip():
                raise InvalidParameter("query", "'query' is empty.")
            try:
                resolution = await asyncio.to_thread(
                    resolve, catalog, query, year=year, make=make, model=model
                )
            except Unresolved as missing:
                extensions: dict[str, Any] = (
                    {"makes": [make_json(m) for m in missing.makes]} if missing.makes else {}
                )
                raise NotFound(str(missing), **extensions) from None
        return resolution_json(resolution)

    async def list_image_options(self) -> dict[str, Any]:
        self._principal()
        return build_options(self._services.settings, self._services.catalog)

    async def get_account(self) -> dict[str, Any]:
        services = self._services
        async with tool_failures(services):
            principal = self._principal(ACCOUNT_READ)
            has_payment = await services.billing.has_payment_method(principal.account.id)
            data, links = await services.account_view.document(
                principal, has_payment_method=has_payment
            )
        return data | {"links": links}

    async def rate_image(self, feedback: Feedback) -> FeedbackResult:
        async with tool_failures(self._services):
            principal = self._principal(IMAGES_READ, ACCOUNT_READ)
            recorded = await self._services.feedback.record(
                principal, FeedbackReport(**feedback.model_dump())
            )
        return FeedbackResult(asset_id=recorded.asset_id, flagged=recorded.flagged)

    async def describe_api(self, endpoint: str | None) -> str:
        self._principal()
        return describe_endpoint(self._openapi(), endpoint)
