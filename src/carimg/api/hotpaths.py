"""The two routes every page view and paid call hits, served in front of the framework.

`GET /api/v1/images/car` and `GET`/`HEAD /api/v1/delivery/{token}` are most of a deployment's
traffic. Through FastAPI each request pays for routing over every route, dependency solving,
parameter validation and four middlewares before the endpoint starts, more than the endpoint
itself costs. Here they are matched first and run the same endpoint functions
(`serve_delivery`, `image_response`), the same authentication and the same problem documents,
with the request id and metrics the middlewares would add.

An image request takes this path only when its query is plain: known names, each once, whole
numbers within bounds, no `response` and no JSON `Accept`. Anything else — an unknown or
tracking parameter, a bad number, a URL response — goes to the framework untouched, before
anything was counted or charged, so every error keeps its one implementation.
"""

from __future__ import annotations

import time
from collections.abc import Coroutine
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI
from fastapi.routing import APIRoute
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from carimg.api.auth import principal_for
from carimg.api.delivery import delivery_body, serve_delivery
from carimg.api.headers import REQUEST_ID_HEADER, accepted_request_id, new_request_id
from carimg.api.images import INTEGER_BOUNDS, ImageBody, image_response, wants_json
from carimg.api.images import router as image_router
from carimg.api.metrics import observer
from carimg.api.problems import problem_for
from carimg.api.query import allowed_parameters
from carimg.domain.accounts import require_scope
from carimg.domain.deliveryurls import DELIVERY_PATH, Loaded
from carimg.domain.keys import IMAGES_READ
from carimg.domain.ready import ReadyAnswers, share_of_cache
from carimg.services import Services

IMAGE_PATH = "/api/v1/images/car"
_REQUEST_ID = REQUEST_ID_HEADER.lower().encode("latin-1")
DELIVERY_ROUTE = DELIVERY_PATH + "{token}"


def _image_route_parameters() -> frozenset[str]:
    """The query names the framework's image route declares."""
    for route in image_router.routes:
        if isinstance(route, APIRoute) and route.path == IMAGE_PATH:
            return frozenset(allowed_parameters(route))
    raise LookupError(f"no {IMAGE_PATH} route")


_MAX_DIGITS = 19  # JSON_INT_MAX has 19


def plain_image_query(query_string: bytes, allowed: frozenset[str]) -> dict[str, Any] | None:
    """The image query when this path may serve it (see the module's docstring), else None."""
    query: dict[str, Any] = {}
    for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if name not in allowed or name in query or name == "response" or not value:
            return None
        bounds = INTEGER_BOUNDS.get(name)
        if bounds is None:
            query[name] = value
            continue
        # past 19 digits no bound holds (and past 4,300 int() refuses): the framework's 400
        if not (value.isascii() and value.isdigit()) or len(value) > _MAX_DIGITS:
            return None
        number = int(value)
        if not bounds[0] <= number <= bounds[1]:
            return None
        query[name] = number
    return query


class _PlainQueries:
    """`plain_image_query`, remembered per query string: an integration sends the same few
    queries over and over, and `parse_qsl` was one of the larger steps of a paid image's Python.
    Callers get the same dict each time, so they must not change it."""

    def __init__(self, allowed: frozenset[str], limit: int = 4_096) -> None:
        self._allowed = allowed
        self._limit = limit
        self._parsed: dict[bytes, dict[str, Any] | None] = {}

    def __call__(self, query_string: bytes) -> dict[str, Any] | None:
        try:
            return self._parsed[query_string]
        except KeyError:
            pass
        query = plain_image_query(query_string, self._allowed)
        if len(self._parsed) >= self._limit:  # bounded: clients choose the strings
            self._parsed.clear()
        self._parsed[query_string] = query
        return query


class _IndexedHeaders(Headers):
    """Headers looked up in a dict: each hot request asks for several headers it usually lacks,
    and Starlette's list scan answers each of those with a raised KeyError. The dict holds the
    raw bytes (built in C, the first of repeated headers winning); a lookup decodes one value."""

    def __init__(self, scope: Scope) -> None:
        super().__init__(scope=scope)
        self._first: dict[bytes, bytes] = dict(reversed(scope["headers"]))

    def __getitem__(self, key: str) -> str:
        return self._first[key.lower().encode("latin-1")].decode("latin-1")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower().encode("latin-1") in self._first

    def get(self, key: str, default: Any = None) -> Any:
        value = self._first.get(key.lower().encode("latin-1"))
        return default if value is None else value.decode("latin-1")


class _HotRequest(Request):
    def __init__(self, scope: Scope, receive: Receive) -> None:
        super().__init__(scope, receive)
        self._indexed = _IndexedHeaders(scope)

    @property
    def headers(self) -> Headers:
        return self._indexed


Answer = Coroutine[Any, Any, Response]


def _set_state(scope: Scope, request_id: str, route: str) -> None:
    """What the endpoints may read from the request's state, set before they ask (a missing
    attribute is a raised AttributeError each time); the route and id for `observe`."""
    scope.setdefault("state", {}).update(
        request_id=request_id, rate_headers={}, ignored_parameters=(), hot_route=route
    )


class HotPaths:
    """Outermost ASGI app: the hot routes here, everything else to `app` (the framework).

    `delivered_now` and `answer` are the hot routes' whole work: a delivery load answered from
    memory at once (most of a deployment's requests, sent from the kept response with no copy),
    else a coroutine giving the response (None: the framework's request). `observe_delivered`
    or `observe` ends the request."""

    def __init__(self, fastapi: FastAPI, app: ASGIApp) -> None:
        self.fastapi = fastapi
        self.app = app
        self._image_parameters = _image_route_parameters()
        self._plain_query = _PlainQueries(self._image_parameters)
        self._unset = dict.fromkeys(self._image_parameters - {"response"})
        self._services: Services | None = None  # see `use`
        # token -> the answer load_now gave and the response made of it (sent as kept)
        self._delivered: ReadyAnswers[tuple[Loaded, ImageBody]] = ReadyAnswers(
            share_of_cache(fastapi.state.settings)
        )

    def use(self, services: Services | None) -> None:
        """The services the app's lifespan opened (None: closed again)."""
        self._services = services

    @property
    def services(self) -> Services:
        """The app's services, held here: Starlette's `State` lookup tries a failed attribute
        lookup first, on every kept delivery answer."""
        services = self._services
        return self.fastapi.state.services if services is None else services

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        delivered = self.delivered_now(scope)
        if delivered is not None:  # most of a deployment's requests: sent as kept, no copy
            image, request_id = delivered
            headers = [*image.raw_headers, (_REQUEST_ID, request_id.encode("latin-1"))]
            try:
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": image.body})
            finally:
                self.observe_delivered(scope, request_id, started)
            return
        answer = self.answer(scope, receive)
        if answer is None:
            await self.app(scope, receive, send)
            return
        response = await answer
        try:
            await response(scope, receive, send)
        finally:
            self.observe(scope, response.status_code, started)

    def delivered_now(self, scope: Scope) -> tuple[ImageBody, str] | None:
        """A GET of a delivery URL answered from memory (`DeliveryUrls.load_now`): the kept
        response, to be sent with one more header, `x-request-id`, and that id; None otherwise.
        The kept response is shared: it must not be changed."""
        path: str = scope["path"]
        if scope["method"] != "GET" or not path.startswith(DELIVERY_PATH):
            return None
        token = path[len(DELIVERY_PATH) :]
        sent = dict(reversed(scope["headers"]))  # the first of repeated headers, as elsewhere
        services = self._services or self.services
        etag = sent.get(b"if-none-match")
        if_none_match = None if etag is None else etag.decode("latin-1")
        loaded = services.delivery_urls.load_now(token, if_none_match=if_none_match)
        if loaded is None:
            return None
        data = loaded.data
        if data is None:  # never: load_now's answers carry the image
            return None
        made = self._delivered.get(token)  # load_now keeps its answer while it holds: so here
        if made is None or made[0] is not loaded:
            made = (loaded, delivery_body(loaded, data, services.settings.pricing_variant))
            self._delivered.put(token, made, len(data))
        sent_id = sent.get(_REQUEST_ID)
        if sent_id is None:
            return made[1], new_request_id()
        return made[1], accepted_request_id(sent_id.decode("latin-1"))

    def answer(self, scope: Scope, receive: Receive) -> Answer | None:
        """The response of a hot route that `delivered_now` did not answer: a coroutine not yet
        started giving it; None when this request is the framework's. Nothing has been read,
        counted or charged when it returns None."""
        path: str = scope["path"]
        method: str = scope["method"]
        if method in ("GET", "HEAD") and path.startswith(DELIVERY_PATH):
            token = path[len(DELIVERY_PATH) :]
            if token and "/" not in token:
                return self._respond(_HotRequest(scope, receive), DELIVERY_ROUTE, token)
        elif method == "GET" and path == IMAGE_PATH:
            query = self._plain_query(scope["query_string"])
            if query is not None:
                request = _HotRequest(scope, receive)
                if not wants_json(request, None):  # a URL response mints: the framework's
                    return self._respond(request, IMAGE_PATH, query)
        return None

    async def _respond(self, request: Request, route: str, what: str | dict[str, Any]) -> Response:
        """Serve a delivery token or an image query, with the middlewares' request id and the
        exception handlers' problem documents."""
        scope = request.scope
        scope["app"] = self.fastapi
        request_id = accepted_request_id(request.headers.get(REQUEST_ID_HEADER))
        _set_state(scope, request_id, route)
        services = self.services
        try:
            if isinstance(what, str):
                head = scope["method"] == "HEAD"
                response = await serve_delivery(request, services, what, head=head)
            else:
                principal = await principal_for(services, request)
                require_scope(principal, IMAGES_READ)
                query = self._unset | what
                response = await image_response(request, services, principal, query, None)
            response.raw_headers.append((_REQUEST_ID, request_id.encode("latin-1")))
        except Exception as error:
            response = await problem_for(request, error)  # carries the request id
        return response

    @staticmethod
    def observe(scope: Scope, status: int, started: float) -> None:
        """The metrics and access log of an answered request (what the middlewares would do),
        once its response is sent; `started` is `time.perf_counter()` when it came."""
        state = scope["state"]
        seconds = time.perf_counter() - started
        observer.observe(scope, state["request_id"], state["hot_route"], status, seconds)

    @staticmethod
    def observe_delivered(scope: Scope, request_id: str, started: float) -> None:
        """`observe` for an answer of `delivered_now` (which sets no request state)."""
        seconds = time.perf_counter() - started
        observer.observe(scope, request_id, DELIVERY_ROUTE, 200, seconds)
