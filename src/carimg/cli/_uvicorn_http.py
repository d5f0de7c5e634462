"""uvicorn's HTTP protocol (httptools): the hot routes answered without an ASGI cycle, and
each response sent in one write.

The hot routes (api/hotpaths: paid images, delivery loads) are most of a deployment's requests,
and for a cached image uvicorn's ASGI cycle costs several times what carimg's own work does: a
task, the `receive`/`send` coroutines, two messages and a regex check of every header. Here the
protocol runs the hot paths itself (a cached delivery load, `HotPaths.delivered_now`, is
answered at once, with no task, its kept headers written from lines made once; `answer`, which
may wait, runs in a task, as under uvicorn, since code may need a current task) and writes the
response as uvicorn would have: its status line, its default headers (date, server),
`connection: close` where the connection ends, no body for HEAD.
Everything else, and every request while tracing logs messages, goes through uvicorn.

uvicorn writes a response's status line and headers as soon as the app starts it, then the
body: two `send()` system calls and, with Nagle off, two TCP segments for every response, the
client woken for each. Here the writes of one event-loop turn are held and leave together when
the response completes (or at the turn's end, for a response still streaming). Measured with
`bench/serve.py`'s delivery load: one write per response instead of two (strace), ~5 % more
requests per second on 2 cores. And a connection keeps one keep-alive timer, where uvicorn makes
and drops one per request (`OneTimerHttpToolsProtocol`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

import httptools
from starlette.responses import Response
from uvicorn.protocols.http.httptools_impl import (
    STATUS_LINE,
    HttpToolsProtocol,
    RequestResponseCycle,
)

from carimg.api.headers import REQUEST_ID_HEADER, accepted_request_id, header_lines
from carimg.api.headlimits import HeadLimits, problem_bytes

if TYPE_CHECKING:
    from starlette.types import Scope

    from carimg.api.hotpaths import Answer, HotPaths
    from carimg.api.images import ImageBody

_log = logging.getLogger("uvicorn.error")
_HOT_METHODS = (b"GET", b"HEAD")
_REQUEST_ID_NAME = REQUEST_ID_HEADER.lower().encode("latin-1")
_REQUEST_ID_LINE = _REQUEST_ID_NAME + b": "
_SERVER_ERROR = (
    STATUS_LINE[500] + b"content-type: text/plain; charset=utf-8\r\ncontent-length: 21\r\n"
    b"connection: close\r\n\r\nInternal Server Error"
)


class CoalescingTransport:
    """Forwards to a transport, holding writes until `flush` (scheduled for the end of the
    event-loop turn of the first write held, run earlier by whoever knows a response is done)."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(data)

    def writelines(self, chunks: Iterable[bytes]) -> None:
        for data in chunks:
            self.write(data)

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def write_now(self, data: bytes) -> None:
        """`data` after what is held, all in one write now."""
        if self._held:
            self._held.append(data)
            self.flush()
        elif not self._transport.is_closing():
            self._transport.write(data)

    def flush(self) -> None:
        held = self._held
        if not held:
            return
        self._held = []
        if not self._transport.is_closing():  # the client went away: nobody to write to
            self._transport.write(held[0] if len(held) == 1 else b"".join(held))

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's
        return getattr(self._transport, name)


class OneTimerHttpToolsProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` with one keep-alive timer per connection instead of one per request.

    uvicorn arms its keep-alive timer when a response completes and cancels it when the next
    request's data comes: a timer made and dropped for every request (about 2 µs under uvloop,
    a twentieth of a cached delivery load). Here a response notes when the connection went idle
    and arms the timer only when none is pending; data marks the connection busy. When the timer
    fires it closes the connection only if it has been idle for the whole timeout; idle for
    less, it waits for the rest; busy, it ends (the next response arms it again)."""

    _idle_since: float | None = None  # loop time the last response completed; None: busy

    def _unset_keepalive_if_required(self) -> None:
        self._idle_since = None

    def on_response_complete(self) -> None:
        """uvicorn's (0.30–0.54): a pipelined request goes on, else the connection is idle."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self._keep_alive_due
            )

    def _keep_alive_due(self) -> None:
        self.timeout_keep_alive_task = None
        if self._idle_since is None:
            return
        left = self._idle_since + self.timeout_keep_alive - self.loop.time()
        if left > 0:
            self.timeout_keep_alive_task = self.loop.call_later(left, self._keep_alive_due)
        else:
            self.timeout_keep_alive_handler()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.timeout_keep_alive_task is not None:  # nothing left to time out
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None


class CoalescingHttpToolsProtocol(OneTimerHttpToolsProtocol):
    """`OneTimerHttpToolsProtocol` on a `CoalescingTransport`, flushed as each response
    completes."""

    _coalescing: CoalescingTransport

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._coalescing = CoalescingTransport(transport, self.loop)
        super().connection_made(cast(asyncio.Transport, self._coalescing))

    def on_response_complete(self) -> None:
        self._coalescing.flush()
        super().on_response_complete()


class _NoEvent:
    def set(self) -> None:
        pass


_NO_EVENT = _NoEvent()


class _DoneCycle:
    """What uvicorn's callbacks find in `cycle` after a refused head: an answered request."""

    response_complete = True
    disconnected = False
    keep_alive = False
    message_event = _NO_EVENT


class _HotCycle:
    """What uvicorn's protocol keeps of a request a hot route answers (in `cycle`, where its
    callbacks and `shutdown` look): whether the response is done, the connection's fate."""

    body = b""  # a GET's body, should one come, is ignored as the hot routes ignore it
    more_body = True
    message_event = _NO_EVENT

    def __init__(self, scope: Scope, keep_alive: bool) -> None:
        self.scope = scope
        self.keep_alive = keep_alive
        self.response_complete = False
        self.disconnected = False


class HotRoutesHttpProtocol(CoalescingHttpToolsProtocol):
    """`CoalescingHttpToolsProtocol` that answers the hot routes itself (see the module)."""

    _hot: HotPaths | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # only the app itself: a wrapper (tracing's message logger) must see every message
        self._hot = getattr(self.app, "hot_paths", None)

    def on_headers_complete(self) -> None:
        """A hot route's request is answered here; any other goes on as uvicorn's."""
        # A request has begun: no keep-alive timeout may close the connection under it. (An
        # answer written at once marks the connection idle inside this same read, where
        # `data_received` no longer marks it busy for the pipelined requests that follow.)
        self._unset_keepalive_if_required()
        hot, cycle, parser = self._hot, self.cycle, self.parser
        if (
            hot is None
            or (cycle is not None and not cycle.response_complete)  # in turn, after that one
            or self.flow.write_paused  # the client reads slowly: uvicorn's cycle waits for it
            or self.limit_concurrency is not None
            or parser.get_method() not in _HOT_METHODS
            or parser.should_upgrade()
        ):
            super().on_headers_complete()
            return
        url = httptools.parse_url(self.url)
        path = url.path.decode("ascii")
        if "%" in path:  # escaped: uvicorn's decoding
            super().on_headers_complete()
            return
        scope = self.scope
        scope["method"] = parser.get_method().decode("ascii")
        http_version = parser.get_http_version()
        if http_version != "1.1":
            scope["http_version"] = http_version
        scope["path"] = self.root_path + path
        scope["raw_path"] = self.root_path.encode("ascii") + url.path
        scope["query_string"] = url.query or b""
        started = time.perf_counter()
        delivered: tuple[ImageBody, str] | None = None
        answer: Answer | Exception | None = None
        try:
            delivered = hot.delivered_now(cast("Scope", scope))
            if delivered is None:
                answer = hot.answer(cast("Scope", scope), _no_body)
        except Exception as error:  # answered as uvicorn answers an app that raises
            answer = error
        if delivered is None and answer is None:
            super().on_headers_complete()
            return
        keep_alive = http_version != "1.0" and parser.should_keep_alive()
        hot_cycle = _HotCycle(cast("Scope", scope), keep_alive)
        self.cycle = cast(RequestResponseCycle, hot_cycle)
        if delivered is not None:
            self._send_delivered(hot_cycle, *delivered, started)
        elif isinstance(answer, Exception):
            self._fail(hot_cycle, answer)
        elif answer is not None:
            self._run(hot_cycle, answer, started)

    def _send_delivered(
        self, cycle: _HotCycle, image: ImageBody, request_id: str, started: float
    ) -> None:
        """Write a kept delivery answer (`HotPaths.delivered_now`) with its request id."""
        id_line = _REQUEST_ID_LINE + request_id.encode("latin-1") + b"\r\n"
        self._end(cycle, self._message(cycle, 200, image.header_lines + id_line, bytes(image.body)))
        try:
            cast("HotPaths", self._hot).observe_delivered(cycle.scope, request_id, started)
        except Exception:  # the answer is out: a metrics failure must not touch it
            _log.exception("Could not record a request's metrics")

    def _run(self, cycle: _HotCycle, answer: Answer, started: float) -> None:
        task = self.loop.create_task(answer)
        task.add_done_callback(lambda task: self._finished(cycle, task, started))
        self.tasks.add(cast("asyncio.Task[None]", task))  # the server waits for it to stop
        task.add_done_callback(self.tasks.discard)

    def _finished(self, cycle: _HotCycle, task: asyncio.Task[Response], started: float) -> None:
        if task.cancelled():  # the stop ran out of time while it waited: a 500, as uvicorn does
            self._fail(cycle, asyncio.CancelledError())
        elif (error := task.exception()) is not None:
            self._fail(cycle, error)
        else:
            self._send(cycle, task.result(), started)

    def _send(self, cycle: _HotCycle, response: Response, started: float) -> None:
        """Write `response` as uvicorn's `send` would, then end the request as it does."""
        try:
            lines = header_lines(response.raw_headers)
            data = self._message(cycle, response.status_code, lines, bytes(response.body))
        except Exception as error:  # a response uvicorn could not have sent either
            self._fail(cycle, error)
            return
        if not cycle.disconnected:
            self._end(cycle, data)
        try:
            cast("HotPaths", self._hot).observe(cycle.scope, response.status_code, started)
        except Exception:  # the answer is out: a metrics failure must not touch it
            _log.exception("Could not record a request's metrics")

    def _message(self, cycle: _HotCycle, status: int, header_lines: bytes, body: bytes) -> bytes:
        """The whole HTTP/1.1 response: status line, uvicorn's default headers (date, server),
        `header_lines`, `connection: close` where the connection ends, and the body (none for
        HEAD)."""
        content = [STATUS_LINE[status], _default_lines(self.server_state.default_headers)]
        content.append(header_lines)
        if not cycle.keep_alive:
            content.append(b"connection: close\r\n")
        content.append(b"\r\n")
        if cycle.scope["method"] != "HEAD":
            content.append(body)
        return b"".join(content)

    def _fail(self, cycle: _HotCycle, error: BaseException) -> None:
        """What uvicorn does when an app raises: log it, answer 500 (the connection closes)."""
        _log.error("Exception in ASGI application\n", exc_info=error)
        if not cycle.disconnected:
            cycle.keep_alive = False
            self._end(cycle, _SERVER_ERROR)

    def _end(self, cycle: _HotCycle, data: bytes) -> None:
        self._coalescing.write_now(data)
        cycle.response_complete = True
        if not cycle.keep_alive:
            self.transport.close()
        self.on_response_complete()


_defaults: tuple[object, bytes] = (None, b"")  # uvicorn's default headers, and their lines


class CarimgHttpProtocol(HotRoutesHttpProtocol):
    """`HotRoutesHttpProtocol` with every request head bounded as it arrives (api/headlimits):
    httptools holds a head of any length, so more than `HeadLimits.head_bytes` of one is a 431
    at once; a head over a limit once parsed is refused here as the app refuses it (the hot
    routes never reach the app); and a head, timed from its first byte or the connection's
    start, that takes longer than `HeadLimits.timeout` closes the connection (a 408 when some
    of it came). One timer per connection, as for keep-alive: a head notes when it began, and
    the timer is armed only when none is pending."""

    _limits = HeadLimits()
    _base_url = ""
    _head_since: float | None = None  # loop time the head under way began; None: none is
    _head_bytes = 0  # bytes of the head under way received in earlier reads
    _head_seen = False  # the head under way has a first byte
    _head_ended = False  # a head ended within the read being parsed
    _head_timer: asyncio.TimerHandle | None = None  # after a refusal: the close, see `_refuse`
    _refused = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        app = _carimg_app(self.app)
        if app is not None:
            self._limits, self._base_url = app.head_limits, app.base_url
        self._head_begins()

    def _head_begins(self) -> None:
        self._head_since = self.loop.time()
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self._limits.timeout, self._head_due)

    def _head_due(self) -> None:
        self._head_timer = None
        since = self._head_since
        if since is None:  # no head under way: the next one arms the timer again
            return
        left = since + self._limits.timeout - self.loop.time()
        if left > 0:
            self._head_timer = self.loop.call_later(left, self._head_due)
        elif self._head_seen:
            seconds = f"{self._limits.timeout:g}"
            self._refuse(408, f"The request's head did not arrive within {seconds} seconds.")
        else:  # a connection that never sent a byte: nobody to answer
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # dropped until the connection closes
        under_way = self._head_since is not None and self._head_seen
        self._head_ended = False
        super().data_received(data)
        if self._head_since is None or self._refused or self.transport.is_closing():
            return
        if under_way and not self._head_ended:
            self._head_bytes += len(data)  # the whole read was head
        else:  # the head began within this read: counted from the next one (a read is bounded)
            self._head_bytes = 0
        if self._head_bytes > self._limits.head_bytes:
            self._refuse(431, f"The request's head is over {self._limits.head_bytes} bytes.")

    def on_message_begin(self) -> None:
        if self._refused:  # what follows a refused head in the same read
            return
        super().on_message_begin()
        self._head_seen = True
        if self._head_since is None:  # pipelined, or after an idle while
            self._head_begins()

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        self._head_since, self._head_bytes = None, 0
        self._head_seen, self._head_ended = False, True
        refusal = self._limits.refusal(self.headers, len(self.url))
        if refusal is None:
            super().on_headers_complete()
        else:
            self._refuse(*refusal)

    def _refuse(self, status: int, detail: str) -> None:
        """Answer a refused head with its problem document, then end the connection: its
        sending side at once, and the rest once the client closes or `LINGER_SECONDS` pass,
        reading and dropping what it still sends meanwhile (closed with unread data, the
        connection would be reset, and a reset client may lose the answer). Closed without an
        answer while an earlier pipelined response is still being written."""
        self._head_since, self._refused = None, True
        if self._head_timer is not None:
            self._head_timer.cancel()
        transport = self.transport
        if self.cycle is not None and not self.cycle.response_complete:
            transport.close()
            return
        # uvicorn's body and message-end callbacks, for what follows in the same read, find a
        # request already answered
        self.cycle = cast(RequestResponseCycle, _DoneCycle())
        sent = dict(self.headers or ()).get(b"x-request-id")
        request_id = accepted_request_id(None if sent is None else sent.decode("latin-1"))
        body = problem_bytes(self._base_url, status, detail, request_id)
        lines = [
            (b"content-type", b"application/problem+json"),
            (b"content-length", str(len(body)).encode("ascii")),
            (_REQUEST_ID_NAME, request_id.encode("latin-1")),
            (b"connection", b"close"),
        ]
        defaults = _default_lines(self.server_state.default_headers)
        transport.write(STATUS_LINE[status] + defaults + header_lines(lines) + b"\r\n" + body)
        if not transport.can_write_eof():
            transport.close()
            return
        transport.write_eof()
        self._head_timer = self.loop.call_later(LINGER_SECONDS, transport.close)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._head_since = None
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


LINGER_SECONDS = 2.0


def _carimg_app(app: object) -> Any:
    """The carimg app under `app` (uvicorn's tracing wrapper, say), or None for another app."""
    for _ in range(4):
        if hasattr(app, "head_limits"):
            return app
        app = getattr(app, "app", None)
    return None


def _default_lines(headers: list[tuple[bytes, bytes]]) -> bytes:
    """uvicorn's default headers as lines, made again only when uvicorn replaces the list (its
    `date` each second)."""
    global _defaults
    known = _defaults  # read once: another thread's server may replace it meanwhile
    if known[0] is not headers:
        known = _defaults = (headers, header_lines(headers))
    return known[1]


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}
