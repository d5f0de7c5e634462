"""`carimg mcp`: the agent tools of `/api/mcp` as a local stdio MCP server.

The tools are the remote endpoint's own definitions (`carimg.mcp.tools.build_server`); this
module only implements their `ToolBackend` over the HTTP API with the SDK, so a local agent gets
the same names, arguments, billing and error texts with the key of this machine.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import typer

from carimg.cli._output import ApiKeyOption, ApiUrlOption

if TYPE_CHECKING:
    from carimg.client import AsyncClient
    from carimg.mcp.tools import (
        Feedback,
        FeedbackResult,
        ImageRequest,
        ImageResult,
        ImageUrlsResult,
        VehicleSearch,
    )


@asynccontextmanager
async def _tool_failures() -> AsyncIterator[None]:
    """SDK errors become tool errors whose text tells the agent what to do."""
    from carimg.client import APIError, CarimgError
    from carimg.mcp.tools import ToolFailure, problem_text

    try:
        yield
    except APIError as error:
        retry = int(error.retry_after) if error.retry_after is not None else None
        problem = {"status": error.status, **error.problem}
        raise ToolFailure(problem_text(problem, retry)) from error
    except CarimgError as error:
        raise ToolFailure(f"{error} Check CAR_IMAGE_API_URL and retry.") from error


class HttpBackend:
    """`ToolBackend` over a deployment's HTTP API."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._openapi: dict[str, Any] | None = None

    async def get_car_image(self, request: ImageRequest) -> ImageResult:
        from carimg.mcp.tools import ImageResult

        # As the remote endpoint does: one credit buys a URL, and its first (free) load brings
        # the bytes, so the agent gets both.
        async with _tool_failures():
            minted = await self._client.image_urls([request.query()])
            record = minted.data[0]
            image = await self._client.delivery(record.url)
        return ImageResult(
            data=image.data,
            media_type=image.content_type,
            url=record.url,
            expires_at=record.expires_at,
            width=image.width or 0,
            height=image.height or 0,
            vehicle=record.vehicle.model_dump(exclude_none=True),
            credits_charged=minted.billing.credits_charged,
            credits_remaining=minted.billing.credits_remaining,
        )

    async def create_car_image_urls(
        self, images: list[ImageRequest], ttl_seconds: int | None, max_uses: int
    ) -> ImageUrlsResult:
        from carimg.mcp.tools import DeliveryUrl, ImageUrlsResult

        async with _tool_failures():
            minted = await self._client.image_urls(
                [image.query() for image in images], ttl_seconds=ttl_seconds, max_uses=max_uses
            )
        urls = [
            DeliveryUrl.model_validate(record.model_dump(exclude_none=True))
            for record in minted.data
        ]
        return ImageUrlsResult(
            urls=urls,
            credits_charged=minted.billing.credits_charged,
            credits_remaining=minted.billing.credits_remaining,
        )

    async def search_vehicles(self, search: VehicleSearch) -> dict[str, Any]:
        async with _tool_failures():
            answer = await self._client.vehicles(
                q=search.query,
                year=search.year,
                make=search.make,
                model=search.model,
                limit=search.limit if search.query is not None else None,
            )
        return answer.data

    async def resolve_vehicle(
        self, query: str, year: int | None, make: str | None, model: str | None
    ) -> dict[str, Any]:
        async with _tool_failures():
            answer = await self._client.resolve(query, year=year, make=make, model=model)
        # As the REST answer: params without the members that are absent; extracted keeps nulls.
        return answer.data.model_dump() | {
            "params": answer.data.params.model_dump(exclude_none=True)
        }

    async def list_image_options(self) -> dict[str, Any]:
        async with _tool_failures():
            return (await self._client.options()).data

    async def get_account(self) -> dict[str, Any]:
        async with _tool_failures():
            answer = await self._client.account()
        return answer.data.model_dump() | {"links": answer.links}

    async def rate_image(self, feedback: Feedback) -> FeedbackResult:
        from carimg.mcp.tools import FeedbackResult

        async with _tool_failures():
            answer = await self._client.feedback(**feedback.model_dump())
        return FeedbackResult(asset_id=answer.data.asset_id, flagged=bool(answer.data.flagged))

    async def describe_api(self, endpoint: str | None) -> str:
        from carimg.mcp.describe import describe_endpoint

        if self._openapi is None:
            async with _tool_failures():
                self._openapi = await self._client.openapi()
        return describe_endpoint(self._openapi, endpoint)


def mcp(api_key: ApiKeyOption = None, api_url: ApiUrlOption = None) -> None:
    """Serve the agent tools over stdio (for Claude Desktop, Cursor, …) with this machine's key."""
    import anyio

    import carimg
    from carimg.client import AsyncClient
    from carimg.mcp.tools import build_server

    async def serve() -> None:
        async with AsyncClient(api_key, base_url=api_url) as client:
            server = build_server(HttpBackend(client), version=carimg.__version__)
            await server.run_stdio_async()

    anyio.run(serve)


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)
