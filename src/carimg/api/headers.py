"""Request ids: echo a valid client `X-Request-Id`, else make one; set it on every response."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from carimg.domain.ids import ordered_hex

REQUEST_ID_HEADER = "X-Request-Id"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


def new_request_id() -> str:
    """`req_`, 48 bits of time and 64 random bits in hex: unique, and stored rows keyed by
    request id are appended in time order (see domain/ids)."""
    return "req_" + ordered_hex(8)


def accepted_request_id(client_value: str | None) -> str:
    """The client's id when it is 1–128 of `A-Z a-z 0-9 . _ : -`, otherwise a new one."""
    if client_value and _VALID_REQUEST_ID.fullmatch(client_value):
        return client_value
    return new_request_id()


def request_id_of(request: Request) -> str:
    request_id = getattr(request.state, "request_id", None)
    if request_id is None:
        request_id = accepted_request_id(request.headers.get(REQUEST_ID_HEADER))
        request.state.request_id = request_id
    return str(request_id)


class RequestIdMiddleware:
    """Pure ASGI middleware: decide the request id first, add it to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(Request(scope))
        header = (b"x-request-id", request_id.encode("ascii"))

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != header[0]]
                message["headers"] = [*headers, header]
            await send(message)

        await self.app(scope, receive, send_with_id)
