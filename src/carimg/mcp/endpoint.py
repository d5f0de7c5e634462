"""`/api/mcp`: the tools over the SDK's Streamable HTTP transport, stateless, JSON responses.

Each HTTP request is authenticated (an API key or an OAuth access token) and counted against the
rate windows before the SDK sees it; failures are problem documents like everywhere else, and a
401 names the protected-resource metadata so agent hosts can start the OAuth flow.

JSON-RPC batches: the SDK's transport takes one message per POST (batches were removed from the
protocol in 2025-06-18). Protocol 2025-03-26, the one that defines batches and the default when a
request names no `MCP-Protocol-Version`, gets them here: each member goes through the transport
in order and the answers come back as one JSON array (202 when all were notifications). Under
later versions a batch is passed through, and the transport rejects it as it defines.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecuritySettings,
)
from mcp.types import DEFAULT_NEGOTIATED_VERSION
from starlette.requests import Request
from starlette.types import Message, Receive, Scope, Send

from carimg import __version__
from carimg.api.auth import principal_for
from carimg.api.bodies import read_body
from carimg.api.cors import CORS, cors_on_errors, preflight
from carimg.domain.errors import InvalidRequest, Unauthenticated
from carimg.mcp.domain_backend import DomainBackend, current_principal
from carimg.mcp.tools import build_server
from carimg.services import Services

MCP_PATH = "/api/mcp"
PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"
_BATCH_VERSIONS = (DEFAULT_NEGOTIATED_VERSION,)  # 2025-03-26: the only revision with batches


def resource_metadata_url(base_url: str) -> str:
    return base_url + PROTECTED_RESOURCE_PATH


def _for_agent_hosts(error: Unauthenticated, base_url: str) -> Unauthenticated:
    """The 401 an agent host shows its user, with the RFC 9728 pointer to start OAuth."""
    pointer = f'resource_metadata="{resource_metadata_url(base_url)}"'
    challenge = f'Bearer error="invalid_token", {pointer}' if error.invalid else f"Bearer {pointer}"
    detail = (
        f"{error.detail} To connect carimg to this agent, sign in when the app asks (OAuth; "
        f"discovery starts at {resource_metadata_url(base_url)}), or configure the server with "
        f"the header 'Authorization: Bearer cimg_…' using an API key from {base_url}/dashboard."
    )
    answer = Unauthenticated(detail, invalid=error.invalid)
    answer.headers = {"WWW-Authenticate": challenge}
    return answer


class McpEndpoint:
    """The ASGI app routed at exactly `/api/mcp`; `running()` in the app's lifespan starts it."""

    def __init__(self) -> None:
        self._server: Server[Any] | None = None
        self._services: Services | None = None

    @asynccontextmanager
    async def running(
        self, services: Services, openapi: Callable[[], dict[str, Any]]
    ) -> AsyncIterator[None]:
        server = build_server(DomainBackend(services, openapi), version=__version__)
        server.streamable_http_app(stateless_http=True, json_response=True)
        self._server, self._services = server.session_manager.app, services
        try:
            yield
        finally:
            self._server = self._services = None

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[StreamableHTTPSessionManager]:
        """A stateless session manager for one request. Its task group lives and dies inside
        the request, never across the app's lifespan (which may start and end in different
        tasks)."""
        assert self._server is not None, "the endpoint is not running"
        manager = StreamableHTTPSessionManager(
            app=self._server,
            json_response=True,
            stateless=True,
            # Bearer credentials (never cookies) are required, so DNS rebinding gains an
            # attacker nothing; the Host is whatever the deployment is behind.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        async with manager.run():
            yield manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] == "OPTIONS":  # browser-based agent hosts' CORS preflight
            await preflight()(scope, receive, send)
            return
        with cors_on_errors():
            await self._answer(scope, receive, send)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self._services is not None, "the endpoint is not running"
        services = self._services
        request = Request(scope, receive)
        try:
            principal = await principal_for(services, request)
        except Unauthenticated as error:
            raise _for_agent_hosts(error, services.settings.base_url) from None
        # read_body stops at the limit (413) instead of buffering whatever a client sends
        body = (
            await read_body(request, DEFAULT_MAX_REQUEST_BODY_SIZE)
            if request.method == "POST"
            else b""
        )
        batch = _batch_of(body, request.headers.get("mcp-protocol-version"))
        for _ in range(len(batch) - 1):  # every member of a batch counts, as separate POSTs do
            await services.rate.hit(principal)
        send = _with_headers(send, getattr(request.state, "rate_headers", {}) | CORS)
        token = current_principal.set(principal)
        try:
            async with self._transport() as manager:
                if batch:
                    await _answer_batch(manager, scope, batch, send)
                else:
                    await manager.handle_request(scope, _replay(body), send)
        finally:
            current_principal.reset(token)


def _batch_of(body: bytes, protocol_version: str | None) -> list[Any]:
    """The members of a JSON-RPC batch this endpoint answers itself; [] for anything else."""
    if not body.lstrip().startswith(b"["):
        return []
    if (protocol_version or DEFAULT_NEGOTIATED_VERSION) not in _BATCH_VERSIONS:
        return []
    try:
        members = json.loads(body)
    except ValueError:
        return []
    except RecursionError:  # arrays nested about a thousand deep: not a JSON-RPC batch
        raise InvalidRequest("The JSON body is nested too deeply to be a request.") from None
    if not isinstance(members, list):
        return []
    if not members:
        raise InvalidRequest("An empty JSON-RPC batch is not a request.")
    return members


def _replay(body: bytes) -> Receive:
    """A `receive` that hands over an already read body once."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


def _with_headers(send: Send, headers: dict[str, str]) -> Send:
    extra = [(name.lower().encode(), value.encode()) for name, value in headers.items()]

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message.get("headers", []), *extra]
        await send(message)

    return send_with_headers


async def _answer_batch(
    manager: StreamableHTTPSessionManager, scope: Scope, members: list[Any], send: Send
) -> None:
    """Each member through the transport in order; the answers as one array."""
    answers: list[Any] = []
    for member in members:
        body = json.dumps(member).encode()
        headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
        member_scope = {
            **scope,
            "headers": [*headers, (b"content-length", str(len(body)).encode())],
        }
        status, payload = await _collect(manager, member_scope, body)
        if status != 202 and payload.strip():
            answers.append(json.loads(payload))
    if not answers:
        await send({"type": "http.response.start", "status": 202, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    payload = json.dumps(answers).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


async def _collect(
    manager: StreamableHTTPSessionManager, scope: Scope, body: bytes
) -> tuple[int, bytes]:
    status = 500
    chunks: list[bytes] = []

    async def collect(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await manager.handle_request(scope, _replay(body), collect)
    return status, b"".join(chunks)
