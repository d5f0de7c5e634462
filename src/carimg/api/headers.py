"""Request ids: echo a valid client `X-Request-Id`, else make one; set it on every response."""

from __future__ import annotations

import os
import re
import secrets

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER = "X-Request-Id"
_VALID_REQUEST_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


class _RandomIds:
    """96-bit ids cut from a pool of `secrets` bytes: one system call per 256 ids, not per id.
    A forked child starts a pool of its own (no id is ever issued by two processes)."""

    _SIZE = 12

    def __init__(self) -> None:
        self._pool = b""
        self._at = 0
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._pool, self._at = b"", 0

    def __call__(self) -> str:
        if self._at + self._SIZE > len(self._pool):
            self._pool, self._at = secrets.token_bytes(self._SIZE * 256), 0
        start, self._at = self._at, self._at + self._SIZE
        return "req_" + self._pool[start : self._at].hex()


new_request_id = _RandomIds()


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
