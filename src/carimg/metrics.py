"""Prometheus metrics of one process; several processes of one host add up through
`PROMETHEUS_MULTIPROC_DIR` (set by `carimg serve --workers N`, read when this module is imported).

Every layer may count here (like logging): the objects are module-level and cheap to update.
`exposition()` renders what `/metrics` serves.
"""

from __future__ import annotations

import os

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

_LEDGER_KINDS = {"debit": "charged", "refund": "refunded", "grant": "granted"}


def count_ledger_entry(kind: str, amount: int) -> None:
    """Count a committed ledger entry's credits (debits are negative amounts)."""
    label = _LEDGER_KINDS.get(kind, kind)
    CREDITS.labels(label).inc(abs(amount))


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
