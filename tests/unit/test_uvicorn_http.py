"""`carimg serve` under uvicorn (carimg.cli._uvicorn_http): each response leaves in one write,
and the hot routes are answered by the protocol itself as uvicorn would answer them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
from starlette.responses import Response
from uvicorn.server import ServerState

from carimg.api.headlimits import HeadLimits
from carimg.api.images import ImageBody
from carimg.cli._uvicorn_http import (
    CarimgHttpProtocol,
    CoalescingHttpToolsProtocol,
    CoalescingTransport,
    _default_lines,
)

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
        self.protocols: list[CoalescingHttpToolsProtocol] = []
        self.port = 0


@pytest.fixture
def app_box() -> dict[str, Any]:
    """The ASGI app the test server runs (each test puts its own in)."""
    return {}


@asynccontextmanager
async def serving(
    app: Any, protocol: type[CoalescingHttpToolsProtocol], keep_alive: float = 5, **state: Any
) -> AsyncIterator[Served]:
    """`app` behind `protocol` on a free port, each connection's writes recorded; `state`
    sets the server state's attributes (its default headers)."""
    config = uvicorn.Config(
        app,
        http=protocol,
        ws="none",
        lifespan="off",
        proxy_headers=False,
        timeout_keep_alive=keep_alive,  # type: ignore[arg-type]
    )
    config.load()
    server_state = ServerState()
    for name, value in state.items():
        setattr(server_state, name, value)
    result = Served()

    class Recorded(protocol):  # type: ignore[valid-type, misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            recording = RecordingTransport(transport)
            result.transports.append(recording)
            result.protocols.append(self)
            super().connection_made(recording)

    server = await asyncio.get_running_loop().create_server(
        lambda: Recorded(config, server_state, {}), "127.0.0.1", 0
    )
    result.port = server.sockets[0].getsockname()[1]
    yield result
    server.close()
    await server.wait_closed()


@pytest.fixture
async def served(app_box: dict[str, Any]) -> AsyncIterator[Served]:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await app_box["app"](scope, receive, send)

    async with serving(app, CoalescingHttpToolsProtocol) as result:
        yield result


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


def test_default_header_lines_follow_uvicorn_s_list_each_time_it_is_replaced() -> None:
    """uvicorn replaces its default headers each second (a new `date`): lines made for an
    earlier list must not be written again."""
    first = [(b"date", b"Mon, 23 Nov 2026 23:59:59 GMT"), (b"server", b"uvicorn")]
    second = [(b"date", b"Tue, 24 Nov 2026 00:00:00 GMT"), (b"server", b"uvicorn")]
    assert _default_lines(first) == b"date: Mon, 23 Nov 2026 23:59:59 GMT\r\nserver: uvicorn\r\n"
    assert _default_lines(second) == b"date: Tue, 24 Nov 2026 00:00:00 GMT\r\nserver: uvicorn\r\n"


# -- the hot routes, answered by the protocol itself (CarimgHttpProtocol) -----------------------


class FakeHotPaths:
    """What the protocol asks of `HotPaths`: a GET of `/hot` is answered at once, as a kept
    delivery load is; other `/hot…` paths get a coroutine (for `/hot-wait`, done once `release`
    is set); `/fail…` raises; anything else is the framework's."""

    def __init__(self) -> None:
        self.release: asyncio.Event | None = None
        self.observed: list[tuple[str, int]] = []
        self.framework: list[str] = []

    def delivered_now(self, scope: Scope) -> tuple[ImageBody, str] | None:
        if scope["method"] != "GET" or scope["path"] != "/hot":
            return None
        return ImageBody(b"GET /hot", "text/plain", {"x-hot": "1"}), "req-1"

    def answer(self, scope: Scope, receive: Receive) -> Any:
        path = scope["path"]
        if path == "/fail":
            return self._fail()
        if path == "/fail-at-once":
            raise RuntimeError("broken")
        if scope["method"] not in ("GET", "HEAD") or not path.startswith("/hot"):
            return None
        response = Response(f"{scope['method']} {path}".encode(), headers={"x-hot": "1"})
        return self._later(response, self.release if path == "/hot-wait" else None)

    async def _later(self, response: Response, release: asyncio.Event | None) -> Response:
        if release is not None:
            await release.wait()
        return response

    async def _fail(self) -> Response:
        raise RuntimeError("broken")

    def observe(self, scope: Scope, status: int, started: float) -> None:
        self.observed.append((scope["path"], status))

    def observe_delivered(self, scope: Scope, request_id: str, started: float) -> None:
        self.observed.append((scope["path"], 200))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """As ASGI (as `HotPaths.__call__`): the answer if there is one, else the framework."""
        delivered = self.delivered_now(scope)
        if delivered is not None:
            image, request_id = delivered
            headers = [*image.raw_headers, (b"x-request-id", request_id.encode())]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": image.body})
            return
        answer = self.answer(scope, receive)
        if answer is not None:
            response = await answer
            await response(scope, receive, send)
            return
        self.framework.append(scope["path"])
        headers = [(b"content-length", b"9")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"framework"})


class HotApp:
    """An ASGI app with hot paths, as `CarimgApp` is."""

    def __init__(self, hot: FakeHotPaths) -> None:
        self.hot_paths = hot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.hot_paths(scope, receive, send)


@pytest.fixture
def hot() -> FakeHotPaths:
    return FakeHotPaths()


@pytest.fixture
async def hot_served(hot: FakeHotPaths) -> AsyncIterator[Served]:
    async with serving(
        HotApp(hot), CarimgHttpProtocol, default_headers=[(b"server", b"test")]
    ) as result:
        yield result


async def test_a_hot_answer_known_at_once_is_written_in_one_write_as_uvicorn_would(
    hot_served: Served, hot: FakeHotPaths
) -> None:
    response = await _exchange(hot_served.port, b"GET /hot HTTP/1.1\r\nHost: t\r\n\r\n", b"/hot")
    assert response == (
        b"HTTP/1.1 200 OK\r\nserver: test\r\nx-hot: 1\r\ncontent-length: 8\r\n"
        b"content-type: text/plain\r\nx-request-id: req-1\r\n\r\nGET /hot"
    )
    assert hot_served.transports[0].writes == [response]
    assert hot.observed == [("/hot", 200)] and hot.framework == []


async def test_a_head_answer_has_no_body(hot_served: Served) -> None:
    response = await _exchange(
        hot_served.port, b"HEAD /hot HTTP/1.1\r\nHost: t\r\n\r\n", b"\r\n\r\n"
    )
    assert response.endswith(b"content-length: 9\r\n\r\n")


async def test_other_requests_go_to_the_app(hot_served: Served, hot: FakeHotPaths) -> None:
    get = b"GET /other HTTP/1.1\r\nHost: t\r\n\r\n"
    assert (await _exchange(hot_served.port, get, b"framework")).endswith(b"framework")
    escaped = b"GET /hot%20x HTTP/1.1\r\nHost: t\r\n\r\n"  # uvicorn decodes it: as ASGI
    assert (await _exchange(hot_served.port, escaped, b"/hot x")).endswith(b"GET /hot x")
    post = b"POST /hot HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
    assert (await _exchange(hot_served.port, post, b"framework")).endswith(b"framework")
    assert hot.framework == ["/other", "/hot"]
    assert hot.observed == []  # the protocol answered none of them itself


@pytest.mark.parametrize("second", [b"/hot", b"/other"])
async def test_pipelined_requests_are_answered_in_order_when_an_answer_waits(
    hot_served: Served, hot: FakeHotPaths, second: bytes
) -> None:
    hot.release = asyncio.Event()
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    writer.write(
        b"GET /hot-wait HTTP/1.1\r\nHost: t\r\n\r\nGET " + second + b" HTTP/1.1\r\nHost: t\r\n\r\n"
    )
    await asyncio.sleep(0.05)
    assert hot.observed == [] and hot.framework == []  # the second waits for the first
    hot.release.set()
    received = b""
    last = b"framework" if second == b"/other" else b"GET /hot"
    while not received.endswith(last):
        received += await asyncio.wait_for(reader.read(65536), timeout=5)
    writer.close()
    assert received.index(b"GET /hot-wait") < received.rindex(last)


async def test_while_the_client_reads_slowly_answers_wait_for_it(
    hot_served: Served, hot: FakeHotPaths
) -> None:
    """No answer piles up in memory behind a client that does not read (pipelined requests
    would otherwise be answered as fast as they arrive)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    writer.write(b"GET /hot1 HTTP/1.1\r\nHost: t\r\n\r\n")
    received = await asyncio.wait_for(reader.read(65536), timeout=5)
    assert received.endswith(b"GET /hot1")
    protocol = hot_served.protocols[0]
    protocol.pause_writing()  # as the transport does once its buffer passes the high-water mark
    writer.write(b"GET /hot2 HTTP/1.1\r\nHost: t\r\n\r\n")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(reader.read(65536), timeout=0.1)
    protocol.resume_writing()
    received = await asyncio.wait_for(reader.read(65536), timeout=5)
    writer.close()
    assert received.endswith(b"GET /hot2")
    assert hot.observed == [("/hot1", 200)]  # the second went through uvicorn's cycle


async def test_a_kept_answer_is_written_as_uvicorn_s_cycle_writes_it(
    hot_served: Served, hot: FakeHotPaths
) -> None:
    """The protocol's own write of a kept delivery answer, byte for byte what uvicorn's cycle
    sends for the same ASGI messages (taken while the client reads slowly)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    writer.write(b"GET /hot HTTP/1.1\r\nHost: t\r\n\r\n")
    by_protocol = await asyncio.wait_for(reader.read(65536), timeout=5)
    protocol = hot_served.protocols[0]
    protocol.pause_writing()
    writer.write(b"GET /hot HTTP/1.1\r\nHost: t\r\n\r\n")
    await asyncio.sleep(0.05)
    protocol.resume_writing()
    by_cycle = b""
    while not by_cycle.endswith(b"GET /hot"):
        by_cycle += await asyncio.wait_for(reader.read(65536), timeout=5)
    writer.close()
    assert by_protocol.endswith(b"x-request-id: req-1\r\n\r\nGET /hot")
    assert by_cycle == by_protocol
    assert hot.observed == [("/hot", 200)]  # the second went through uvicorn's cycle


async def test_the_keep_alive_timeout_never_closes_a_connection_under_a_request(
    hot: FakeHotPaths,
) -> None:
    """An answer written at once, with the next request in the same read still to come: the
    idle timeout it arms must not close the connection while that request runs."""
    hot.release = asyncio.Event()
    async with serving(HotApp(hot), CarimgHttpProtocol, keep_alive=0.2) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(
            b"GET /hot HTTP/1.1\r\nHost: t\r\n\r\nGET /hot-wait HTTP/1.1\r\nHost: t\r\n\r\n"
        )
        await asyncio.sleep(0.4)  # past the idle timeout, the second still waiting
        hot.release.set()
        received = b""
        while not received.endswith(b"GET /hot-wait"):
            chunk = await asyncio.wait_for(reader.read(65536), timeout=5)
            assert chunk, "the connection was closed under the second request"
            received += chunk
        writer.close()


async def _get_hot(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
    writer.write(b"GET /hot HTTP/1.1\r\nHost: t\r\n\r\n")
    received = b""
    while not received.endswith(b"GET /hot"):
        chunk = await asyncio.wait_for(reader.read(65536), timeout=5)
        assert chunk, "the connection was closed"
        received += chunk
    return received


async def test_an_idle_connection_is_closed_once_the_keep_alive_timeout_passes(
    hot: FakeHotPaths,
) -> None:
    async with serving(HotApp(hot), CarimgHttpProtocol, keep_alive=0.2) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        await _get_hot(reader, writer)
        assert await asyncio.wait_for(reader.read(65536), timeout=2) == b""  # closed
        writer.close()


async def test_a_connection_used_again_within_the_timeout_stays_open_past_it(
    hot: FakeHotPaths,
) -> None:
    """The first response's timer fires while the connection has been idle for less than the
    timeout: it waits for the rest instead of closing the connection."""
    async with serving(HotApp(hot), CarimgHttpProtocol, keep_alive=0.3) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        await _get_hot(reader, writer)
        await asyncio.sleep(0.2)
        await _get_hot(reader, writer)
        await asyncio.sleep(0.2)  # 0.4 s after the first response, 0.2 s idle
        await _get_hot(reader, writer)
        assert await asyncio.wait_for(reader.read(65536), timeout=2) == b""  # then idle: closed
        writer.close()


async def test_a_closed_connection_leaves_no_timer_behind(
    hot_served: Served,
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    await _get_hot(reader, writer)
    protocol = hot_served.protocols[0]
    assert protocol.timeout_keep_alive_task is not None
    writer.close()
    await writer.wait_closed()
    for _ in range(100):
        if protocol.timeout_keep_alive_task is None:
            break
        await asyncio.sleep(0.01)
    assert protocol.timeout_keep_alive_task is None


async def test_a_stop_lets_a_waiting_answer_finish_then_closes_the_connection(
    hot_served: Served, hot: FakeHotPaths
) -> None:
    hot.release = asyncio.Event()
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    writer.write(b"GET /hot-wait HTTP/1.1\r\nHost: t\r\n\r\n")
    await asyncio.sleep(0.05)
    hot_served.protocols[0].shutdown()  # what uvicorn's server does to each connection
    hot.release.set()
    received = await asyncio.wait_for(reader.read(65536), timeout=5)
    assert b"connection: close\r\n" in received and received.endswith(b"GET /hot-wait")
    assert await asyncio.wait_for(reader.read(65536), timeout=5) == b""  # closed
    writer.close()


async def test_an_answer_whose_client_went_away_is_counted_not_written(
    hot_served: Served, hot: FakeHotPaths
) -> None:
    hot.release = asyncio.Event()
    _reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    writer.write(b"GET /hot-wait HTTP/1.1\r\nHost: t\r\n\r\n")
    await asyncio.sleep(0.05)
    writer.close()
    await asyncio.sleep(0.05)  # the server sees the connection lost
    hot.release.set()
    await asyncio.sleep(0.05)
    assert hot.observed == [("/hot-wait", 200)]
    assert hot_served.transports[0].writes == []


async def test_a_keep_alive_connection_serves_one_answer_after_another(hot_served: Served) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", hot_served.port)
    for path in (b"/hot1", b"/hot2"):
        writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n")
        received = b""
        while not received.endswith(path):
            received += await asyncio.wait_for(reader.read(65536), timeout=5)
    writer.close()


async def test_an_http_1_0_answer_closes_the_connection(hot_served: Served) -> None:
    response = await _exchange(hot_served.port, b"GET /hot HTTP/1.0\r\n\r\n", b"/never")
    assert b"connection: close\r\n" in response and response.endswith(b"GET /hot")


@pytest.mark.parametrize("path", [b"/fail", b"/fail-at-once"])
async def test_an_answer_that_raises_is_a_500_and_the_connection_closes(
    hot_served: Served, caplog: pytest.LogCaptureFixture, path: bytes
) -> None:
    request = b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n"
    response = await _exchange(hot_served.port, request, b"/never")
    assert response.startswith(b"HTTP/1.1 500 Internal Server Error\r\n")
    assert response.endswith(b"connection: close\r\n\r\nInternal Server Error")
    assert "Exception in ASGI application" in caplog.text


# -- request heads, bounded as they arrive (CarimgHttpProtocol) --------------------------------

SMALL_HEADS = HeadLimits(header_bytes=2048, field_bytes=1024, target_bytes=512, headers=20)


class LimitedHotApp(HotApp):
    """`HotApp` with the head limits and base URL the protocol reads, as `CarimgApp` has."""

    base_url = "http://test"

    def __init__(self, hot: FakeHotPaths, limits: HeadLimits = SMALL_HEADS) -> None:
        super().__init__(hot)
        self.head_limits = limits


async def _until_closed(reader: asyncio.StreamReader, timeout: float = 5) -> bytes:
    received = b""
    while chunk := await asyncio.wait_for(reader.read(65536), timeout=timeout):
        received += chunk
    return received


async def test_a_head_longer_than_every_limit_allows_is_431_before_it_ends(
    hot: FakeHotPaths,
) -> None:
    async with serving(LimitedHotApp(hot), CarimgHttpProtocol) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(b"GET /hot HTTP/1.1\r\nHost: t\r\nX-Big: ")
        for _ in range(64):  # 1 MiB of one header that never ends
            writer.write(b"x" * 16384)
            await writer.drain()
        received = await _until_closed(reader)
        writer.close()
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    assert b"content-type: application/problem+json" in head
    assert json.loads(body)["status"] == 431


async def test_a_hot_route_refuses_a_header_over_its_limit(hot: FakeHotPaths) -> None:
    async with serving(LimitedHotApp(hot), CarimgHttpProtocol) as served:
        request = b"GET /hot HTTP/1.1\r\nHost: t\r\nX-Big: " + b"x" * 1100 + b"\r\n\r\n"
        received = await _exchange(served.port, request, b"}")
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ")
    problem = json.loads(body)
    assert problem["type"] == "http://test/docs/errors#431" and "x-big" in problem["detail"]
    assert hot.observed == []  # the hot route never ran


async def test_a_request_target_over_its_limit_is_414(hot: FakeHotPaths) -> None:
    async with serving(LimitedHotApp(hot), CarimgHttpProtocol) as served:
        request = b"GET /hot?q=" + b"x" * 600 + b" HTTP/1.1\r\nHost: t\r\n\r\n"
        received = await _exchange(served.port, request, b"}")
    assert received.startswith(b"HTTP/1.1 414 ")


async def test_more_headers_than_the_limit_is_431(hot: FakeHotPaths) -> None:
    async with serving(LimitedHotApp(hot), CarimgHttpProtocol) as served:
        headers = b"".join(b"X-%d: 1\r\n" % number for number in range(21))
        received = await _exchange(served.port, b"GET /hot HTTP/1.1\r\n" + headers + b"\r\n", b"}")
    assert received.startswith(b"HTTP/1.1 431 ")


async def test_a_head_slower_than_the_header_timeout_is_408_and_closed(
    hot: FakeHotPaths,
) -> None:
    limits = HeadLimits(timeout=0.3)
    async with serving(LimitedHotApp(hot, limits), CarimgHttpProtocol) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(b"GET /hot HTTP/1.1\r\nHost: t\r\n")  # and then nothing
        received = await _until_closed(reader, timeout=3)
        writer.close()
    assert received.startswith(b"HTTP/1.1 408 ")


async def test_a_connection_that_sends_nothing_is_closed_after_the_header_timeout(
    hot: FakeHotPaths,
) -> None:
    limits = HeadLimits(timeout=0.3)
    async with serving(LimitedHotApp(hot, limits), CarimgHttpProtocol) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        assert await _until_closed(reader, timeout=3) == b""
        writer.close()


async def test_a_head_after_an_idle_while_is_timed_from_its_own_first_byte(
    hot: FakeHotPaths,
) -> None:
    """The connection's timer, armed at its start, fires while it is idle between requests:
    the next request's head gets its own whole timeout."""
    limits = HeadLimits(timeout=0.3)
    async with serving(LimitedHotApp(hot, limits), CarimgHttpProtocol, keep_alive=5) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        await _get_hot(reader, writer)
        await asyncio.sleep(0.5)
        writer.write(b"GET /hot HTTP/1.1\r\n")
        await asyncio.sleep(0.2)  # 0.7 s after the connection began, 0.2 s into this head
        writer.write(b"Host: t\r\n\r\n")
        received = b""
        while not received.endswith(b"GET /hot"):
            chunk = await asyncio.wait_for(reader.read(65536), timeout=5)
            assert chunk, "the connection was closed"
            received += chunk
        writer.close()
    assert received.startswith(b"HTTP/1.1 200 ")


async def test_a_refused_head_is_its_connection_s_only_answer(hot: FakeHotPaths) -> None:
    """What follows a refused head in the same read (a body, a pipelined request) is dropped:
    no 400 for it, no answer to it."""
    async with serving(LimitedHotApp(hot), CarimgHttpProtocol) as served:
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(
            b"POST /hot HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nX-Big: "
            + b"x" * 1100
            + b"\r\n\r\nhelloGET /hot HTTP/1.1\r\nHost: t\r\n\r\n"
        )
        received = await _until_closed(reader)
        writer.close()
    assert received.startswith(b"HTTP/1.1 431 ")
    assert received.count(b"HTTP/1.1 ") == 1
    assert hot.observed == [] and hot.framework == []
