"""GET /metrics (Prometheus text format), and the middleware that times, counts and logs every
request by its route template."""

from __future__ import annotations

import asyncio
import hmac
import logging
import time

from fastapi import APIRouter, Request
from prometheus_client import Counter, Histogram
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from carimg import metrics
from carimg.api.auth import ServicesDep
from carimg.api.deps import SettingsDep
from carimg.api.headers import request_id_of
from carimg.domain.errors import Unauthenticated
from carimg.logs import redact

router = APIRouter(tags=["operations"])
access_log = logging.getLogger("carimg.access")

_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_UNMATCHED = "unmatched"  # no route: one label for every unknown path (bounded cardinality)


@router.get("/metrics", include_in_schema=False)
async def get_metrics(request: Request, services: ServicesDep, settings: SettingsDep) -> Response:
    """Every metric of this host's server processes; a bearer token when `metrics_token` is set."""
    if settings.metrics_token is not None and not _bearer_is(request, settings.metrics_token):
        raise Unauthenticated(
            "/metrics needs `Authorization: Bearer <CARIMG_METRICS_TOKEN>`.", invalid=True
        )
    queue = services.render_queue
    if queue is not None:
        try:
            metrics.RENDER_QUEUE_DEPTH.set(await asyncio.wait_for(queue.depth(), 1.0))
        except Exception:  # the scrape still answers; the gauge keeps its last value
            access_log.warning("render queue depth unavailable", exc_info=True)
    metrics.tally.flush()  # the requests still gathered too
    accept = request.headers.get("accept")
    body, content_type = await asyncio.to_thread(metrics.exposition, accept)
    return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})


def _bearer_is(request: Request, token: str) -> bool:
    sent = request.headers.get("authorization", "")
    scheme, _, value = sent.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.encode(), token.encode())


def route_of(scope: Scope) -> str:
    """The matched route's path template (`/api/v1/delivery/{token}`), never the raw path."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else _UNMATCHED


class RequestObserver:
    """Per request: one counter and one histogram update (label children cached, applied at the
    end of the event-loop turn by `metrics.tally`) and one access-log record with the request
    id, route, status and duration."""

    def __init__(self) -> None:
        self._children: dict[tuple[str, str, int], tuple[Counter, Histogram]] = {}

    def observe(
        self, scope: Scope, request_id: str, route: str, status: int, seconds: float
    ) -> None:
        method = scope["method"]
        child = self._children.get((method, route, status))  # an unknown method: "OTHER"'s
        if child is None:
            method = method if method in _METHODS else "OTHER"
            child = self._child(method, route, status)
        metrics.tally.count_and_observe(*child, seconds)
        if access_log.isEnabledFor(logging.INFO):
            _log_access(scope, request_id, method, route, status, seconds)

    def _child(self, method: str, route: str, status: int) -> tuple[Counter, Histogram]:
        key = (method, route, status)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = (
                metrics.HTTP_REQUESTS.labels(method, route, str(status)),
                metrics.HTTP_SECONDS.labels(method, route),
            )
        return child


observer = RequestObserver()


class ObserveRequests:
    """Pure ASGI middleware: times, counts and logs every request (see `RequestObserver`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        request_id = request_id_of(Request(scope))
        status = 500  # unless a response starts: an exception escaped every handler

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            seconds = time.perf_counter() - started
            observer.observe(scope, request_id, route_of(scope), status, seconds)


def _log_access(
    scope: Scope, request_id: str, method: str, route: str, status: int, seconds: float
) -> None:
    query = scope.get("query_string", b"")
    path = redact(scope["path"] + ("?" + query.decode("latin-1") if query else ""))
    duration_ms = round(seconds * 1000, 2)
    client = scope.get("client")
    access_log.info(
        "%s %s %d %.1fms",
        method,
        path,
        status,
        duration_ms,
        extra={
            "request_id": request_id,
            "method": method,
            "path": path,
            "route": route,
            "status": status,
            "duration_ms": duration_ms,
            "client": client[0] if client else None,
        },
    )
