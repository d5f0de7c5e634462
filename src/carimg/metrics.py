"""Prometheus metrics of one process; several processes of one host add up through
`PROMETHEUS_MULTIPROC_DIR` (set by `carimg serve --workers N`, read when this module is imported).

Every layer may count here (like logging): the objects are module-level and cheap to update.
`exposition()` renders what `/metrics` serves.
"""

from __future__ import annotations

import asyncio
import os
import time

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.multiprocess import MultiProcessCollector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# Latency buckets from a cached image (a few ms) to a cold render (seconds).
_SECONDS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "carimg_http_requests",
    "HTTP requests answered, by method, route template and status.",
    ["method", "route", "status"],
)
HTTP_SECONDS = Histogram(
    "carimg_http_request_duration_seconds",
    "Time from request to the end of the response body, by method and route template.",
    ["method", "route"],
    buckets=_SECONDS,
)
RENDERS = Counter(
    "carimg_renders",
    "New source renders this process waited for (render pool or queue), by outcome.",
    ["outcome"],
)
RENDER_SECONDS = Histogram(
    "carimg_render_duration_seconds",
    "Time a new source render took until it was stored (render pool or queue).",
    buckets=_SECONDS,
)
RENDER_CACHE = Counter(
    "carimg_render_cache_lookups",
    "Images served, by where they came from: `hit` the image itself was cached (memory, disk or "
    "bucket), `derived` made from a cached source render, `miss` rendered anew.",
    ["result"],
)
CREDITS = Counter(
    "carimg_credits",
    "Credits moved by committed ledger entries: charged, refunded, granted.",
    ["kind"],
)
RENDER_QUEUE_DEPTH = Gauge(
    "carimg_render_queue_depth",
    "Render jobs waiting in the queue (sampled when /metrics is scraped, or by the worker).",
    multiprocess_mode="mostrecent",
)

# Children bound once: the image path updates them without a label lookup.
RENDER_CACHE_HIT = RENDER_CACHE.labels("hit")
RENDER_CACHE_DERIVED = RENDER_CACHE.labels("derived")
RENDER_CACHE_MISS = RENDER_CACHE.labels("miss")
RENDERS_OK = RENDERS.labels("ok")
RENDERS_FAILED = RENDERS.labels("failed")


# A flush at most this often (seconds): see TurnTally.
FLUSH_INTERVAL = 0.001


class TurnTally:
    """Updates kept in plain Python during one event-loop turn and handed to their Prometheus
    children when the turn ends, or, when the last flush was under FLUSH_INTERVAL ago, once
    that interval has passed.

    Under load one turn serves dozens of requests, and every prometheus_client update takes a
    lock (in multiprocess mode it also writes a shared file), a large part of a cached image's
    own work. Under granian each request is an event-loop turn of its own, so ending each turn
    with a flush would be a flush per request; the interval gathers the requests of a
    millisecond instead. An idle process still flushes when the turn ends. So nothing waits
    longer than a millisecond: a scrape (which flushes first) and the other processes see every
    request already answered, or answered within it. Outside an event loop an update is
    applied at once.
    """

    def __init__(self) -> None:
        self._counts: dict[Counter, float] = {}
        self._observed: dict[Histogram, list[float]] = {}
        self._scheduled = False
        self._flushed_at = -FLUSH_INTERVAL  # time.monotonic() of the last flush

    def inc(self, counter: Counter, amount: float = 1) -> None:
        """`counter.inc(amount)` by the next flush (`counter`: a labelled child)."""
        self._counts[counter] = self._counts.get(counter, 0) + amount
        if not self._scheduled:  # a call fewer: every request and cached image counts
            self._schedule()

    def observe(self, histogram: Histogram, value: float) -> None:
        """`histogram.observe(value)` by the next flush (`histogram`: a labelled child)."""
        observed = self._observed.get(histogram)
        if observed is None:
            self._observed[histogram] = [value]
        else:
            observed.append(value)
        if not self._scheduled:
            self._schedule()

    def count_and_observe(self, counter: Counter, histogram: Histogram, value: float) -> None:
        """`inc(counter)` and `observe(histogram, value)` in one call (what every request does)."""
        self._counts[counter] = self._counts.get(counter, 0) + 1
        self.observe(histogram, value)

    def _schedule(self) -> None:
        if self._scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop: nothing would flush later
            self.flush()
            return
        wait = self._flushed_at + FLUSH_INTERVAL - time.monotonic()
        if wait > 0:
            loop.call_later(wait, self.flush)
        else:
            loop.call_soon(self.flush)
        self._scheduled = True

    def flush(self) -> None:
        """Apply everything pending now."""
        self._scheduled = False
        self._flushed_at = time.monotonic()
        counts, self._counts = self._counts, {}
        observed, self._observed = self._observed, {}
        for counter, amount in counts.items():
            counter.inc(amount)
        for histogram, values in observed.items():
            # one by one: prometheus_client has no public way to add several observations
            for value in values:
                histogram.observe(value)


tally = TurnTally()

_LEDGER_KINDS = {"debit": "charged", "refund": "refunded", "grant": "granted"}
_CREDITS_BY_KIND: dict[str, Counter] = {}  # ledger kind -> its labelled child


def count_ledger_entry(kind: str, amount: int) -> None:
    """Count a committed ledger entry's credits (debits are negative amounts)."""
    child = _CREDITS_BY_KIND.get(kind)
    if child is None:
        child = _CREDITS_BY_KIND[kind] = CREDITS.labels(_LEDGER_KINDS.get(kind, kind))
    tally.inc(child, abs(amount))


def multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def exposition(accept: str | None = None) -> tuple[bytes, str]:
    """Every metric (of all processes in multiprocess mode) in the format the scraper accepts:
    Prometheus text, or OpenMetrics when asked for."""
    encoder, content_type = choose_encoder(accept or "")
    directory = multiprocess_dir()
    if directory is None:
        return encoder(REGISTRY), content_type
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    return encoder(registry), content_type
