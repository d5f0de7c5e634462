"""The composition root: `create_app(settings)` builds the whole service."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from carimg import __version__, web
from carimg.api import (
    account,
    billing,
    delivery,
    device,
    embed,
    events,
    feedback,
    health,
    image_urls,
    images,
    metrics,
    oauth,
    options,
    resolve,
    vehicles,
)
from carimg.api.formlimit import FormBodyLimit
from carimg.api.headers import RequestIdMiddleware
from carimg.api.headlimits import HeadLimits
from carimg.api.hotpaths import HotPaths
from carimg.api.metrics import ObserveRequests
from carimg.api.problems import Problem, install_problem_handlers, problem_response
from carimg.catalog import Catalog, load_catalog
from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.pricing import pricing_for
from carimg.mcp.endpoint import MCP_PATH, McpEndpoint
from carimg.mcp.openapi import mcp_path_item
from carimg.render import RenderPool
from carimg.services import build_services

API_VERSION = "2.0.0"
DESCRIPTION = """Studio renders of every vehicle in an open catalog, sold per image.

Every failure is an RFC 9457 problem document (`application/problem+json`) with `type`, `title`,
`status`, `detail` and `request_id`. Every response carries `X-Request-Id`."""


def _operation_id(route: APIRoute) -> str:
    return route.name


class CarimgApp(FastAPI):
    """FastAPI, with the hot routes served in front of it (api/hotpaths), and every request's
    head checked against the limits first (api/headlimits)."""

    _hot: HotPaths | None = None
    _head_limits: HeadLimits | None = None

    @property
    def hot_paths(self) -> HotPaths:
        if self._hot is None:
            self._hot = HotPaths(self, super().__call__)
        return self._hot

    @property
    def head_limits(self) -> HeadLimits:
        if self._head_limits is None:
            self._head_limits = HeadLimits.of(self.state.settings)
        return self._head_limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            raw_path, query = scope.get("raw_path"), scope["query_string"]
            target = len(scope["path"] if raw_path is None else raw_path)
            target += len(query) + 1 if query else 0  # as the request line has it: path?query
            refusal = self.head_limits.refusal(scope["headers"], target)
            if refusal is not None:
                await _refuse_head(self, scope, receive, send, *refusal)
                return
        await self.hot_paths(scope, receive, send)


async def _refuse_head(
    app: FastAPI, scope: Scope, receive: Receive, send: Send, status: int, detail: str
) -> None:
    """A head over a limit: its problem document, and the connection closed after it."""
    scope["app"] = app
    response = problem_response(Request(scope), status, detail, headers={"Connection": "close"})
    await response(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    *,
    catalog: Catalog | None = None,
    clock: Clock | None = None,
    render_pool: RenderPool | None = None,
) -> FastAPI:
    """Build the ASGI app for one deployment; tests pass their own settings, clock and pool.

    The services (database, counters, render pool) open in the app's lifespan and close with it.
    """
    settings = settings or Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    catalog = catalog or load_catalog()

    mcp_endpoint = McpEndpoint()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = await build_services(settings, catalog, clock=clock, render_pool=render_pool)
        app.state.services = services
        hot_paths = app.hot_paths if isinstance(app, CarimgApp) else None
        if hot_paths is not None:
            hot_paths.use(services)
        # The catalog and its indexes are hundreds of thousands of objects that live as long as
        # the process: out of the collector's sight, a full collection no longer walks them
        # (tens of milliseconds that every request in flight would wait for).
        gc.collect()
        gc.freeze()
        try:
            async with mcp_endpoint.running(services, app.openapi):
                yield
        finally:
            if hot_paths is not None:
                hot_paths.use(None)
            await services.close()

    app = CarimgApp(
        lifespan=lifespan,
        title="carimg",
        version=API_VERSION,
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
        generate_unique_id_function=_operation_id,
    )
    app.state.settings = settings
    app.state.catalog = catalog
    app.state.service_version = __version__
    install_problem_handlers(app)
    app.add_middleware(FormBodyLimit)  # forms are parsed by Starlette, which bounds no body
    app.add_middleware(RequestIdMiddleware)
    app.add_middleware(ObserveRequests)  # outermost: times and logs everything inside
    for module in (
        health, options, vehicles, images, image_urls, delivery, embed, account, billing,
        feedback, events, resolve, device, oauth,
        web,
        metrics,
    ):  # fmt: skip
        app.include_router(module.router)
    web.install(app)
    # Exactly /api/mcp (no redirect to a trailing slash): the SDK's transport as an ASGI app.
    app.router.routes.append(
        Route(MCP_PATH, mcp_endpoint, methods=["GET", "POST", "DELETE", "OPTIONS"])
    )
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """OpenAPI 3.1 with the Problem schema every error response refers to."""
    if app.openapi_schema is None:
        schema = get_openapi(
            title=app.title,
            version=app.version,
            openapi_version="3.1.0",
            description=app.description,
            routes=app.routes,
            servers=[{"url": app.state.settings.base_url}],
        )
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = (
            Problem.model_json_schema()
        )
        schema.setdefault("paths", {})[MCP_PATH] = mcp_path_item()  # an ASGI app, not a route
        pricing = pricing_for(app.state.settings.pricing_variant)  # what this deployment sells
        checkout = schema["paths"][billing.CHECKOUT_PATH]["post"]
        checkout["requestBody"] = billing.checkout_body(pricing)
        for path_item in schema.get("paths", {}).values():
            for operation in path_item.values():
                operation.get("responses", {}).pop("422", None)
        app.openapi_schema = schema
    return app.openapi_schema


def create_app_from_env() -> FastAPI:
    """Factory for the server (`carimg serve`): settings from `CARIMG_*` environment variables."""
    return create_app(Settings())
