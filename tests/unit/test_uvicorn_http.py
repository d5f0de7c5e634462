"""`carimg serve` under uvicorn: each response leaves in one write (carimg.cli._uvicorn_http)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from carimg.cli._uvicorn_http import CoalescingHttpToolsProtocol, CoalescingTransport

Scope = dict[str, Any]
Receive = Callable[[], Any]
Send = Callable[[dict[str, Any]], Any]
BODY = b"x" * 7_000


class RecordingTransport:
    """The connection's real transport, with each write it is given recorded."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.transport, name)


class Served:
    def __init__(self) -> None:
        self.transports: list[RecordingTransport] = []
        self.port = 0


@pytest.fixture
def app_box() -> dict[str, Any]:
    """The ASGI app the test server runs (each test puts its own in)."""
    return {}


@pytest.fixture
async def served(app_box: dict[str, Any]) -> AsyncIterator[Served]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await app_box["app"](scope, receive, send)

    config = uvicorn.Config(app, http=CoalescingHttpToolsProtocol, ws="none", lifespan="off")
    config.load()
    state = ServerState()
    result = Served()

    class Recorded(CoalescingHttpToolsProtocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            recording = RecordingTransport(transport)
            result.transports.append(recording)
            super().connection_made(recording)  # type: ignore[arg-type]

    server = await asyncio.get_running_loop().create_server(
        lambda: Recorded(config, state, {}), "127.0.0.1", 0
    )
    result.port = server.sockets[0].getsockname()[1]
    yield result
    server.close()
    await server.wait_closed()


async def _exchange(port: int, request: bytes, until: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    received = b""
    while not received.endswith(until):
        chunk = await asyncio.wait_for(reader.read(65536), timeout=5)
        if not chunk:
            break
        received += chunk
    writer.close()
    return received


async def test_a_response_leaves_in_one_write(served: Served, app_box: dict[str, Any]) -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"image/webp"), (b"content-length", b"7000")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": BODY})

    app_box["app"] = app
    response = await _exchange(served.port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", BODY)
    assert response.startswith(b"HTTP/1.1 200 OK\r\n") and response.endswith(BODY)
    assert served.transports[0].writes == [response]


async def test_a_streamed_response_leaves_as_it_is_produced(
    served: Served, app_box: dict[str, Any]
) -> None:
    produced = asyncio.Event()

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"first", "more_body": True})
        await produced.wait()  # the client has the first part before the rest exists
        await send({"type": "http.response.body", "body": b"second"})

    app_box["app"] = app
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    received = b""
    while not received.endswith(b"first\r\n"):
        received += await asyncio.wait_for(reader.read(65536), timeout=5)
    produced.set()
    while not received.endswith(b"0\r\n\r\n"):
        received += await asyncio.wait_for(reader.read(65536), timeout=5)
    writer.close()
    assert b"transfer-encoding: chunked" in received
    assert len(served.transports[0].writes) == 2


async def test_a_bad_request_is_answered_before_the_connection_closes(served: Served) -> None:
    response = await _exchange(served.port, b"NOT HTTP\r\n\r\n", b"Invalid HTTP request received.")
    assert response.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert len(served.transports[0].writes) == 1


class ClosingTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True


@pytest.fixture
def transport() -> ClosingTransport:
    return ClosingTransport()


@pytest.fixture
async def coalescing(transport: ClosingTransport) -> CoalescingTransport:
    """`transport`, wrapped as the protocol wraps a connection's."""
    return CoalescingTransport(transport, asyncio.get_running_loop())  # type: ignore[arg-type]


async def test_writes_of_one_loop_turn_are_joined_at_its_end(
    transport: ClosingTransport, coalescing: CoalescingTransport
) -> None:
    coalescing.write(b"head ")
    coalescing.write(b"body")
    assert transport.writes == []
    await asyncio.sleep(0)
    assert transport.writes == [b"head body"]


async def test_close_sends_what_is_held_first(
    transport: ClosingTransport, coalescing: CoalescingTransport
) -> None:
    coalescing.write(b"goodbye")
    coalescing.close()
    assert transport.writes == [b"goodbye"] and transport.closing
    await asyncio.sleep(0)
    assert transport.writes == [b"goodbye"]


async def test_nothing_is_written_once_the_client_has_gone(
    transport: ClosingTransport, coalescing: CoalescingTransport
) -> None:
    coalescing.write(b"late")
    transport.closing = True  # the connection was lost before the turn ended
    await asyncio.sleep(0)
    assert transport.writes == []


async def test_writelines_keeps_the_order_of_what_is_held(
    transport: ClosingTransport, coalescing: CoalescingTransport
) -> None:
    coalescing.write(b"1 ")
    coalescing.writelines([b"2 ", b"3"])
    await asyncio.sleep(0)
    assert transport.writes == [b"1 2 3"]
