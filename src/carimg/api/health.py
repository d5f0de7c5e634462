"""GET /api/health: the service and each dependency's state."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable
from typing import Any

from fastapi import APIRouter
from sqlalchemy import text
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.api.deps import CatalogDep, SettingsDep
from carimg.api.jsonresponse import JSONBody
from carimg.api.schemas import HealthResponse
from carimg.queue import QueueRenders
from carimg.services import Services
from carimg.store.db import is_sqlite

router = APIRouter(tags=["operations"])

_TIMEOUT = 2.0  # seconds one dependency may take before it counts as down


@router.get(
    "/api/health",
    operation_id="get_health",
    summary="Service health",
    response_model=HealthResponse,
)
async def get_health(settings: SettingsDep, catalog: CatalogDep, services: ServicesDep) -> Response:
    """`ok` when every dependency works, otherwise `degraded` with the failing ones named.

    `checks` maps each dependency to `ok` or what is wrong with it; `dependencies` adds what
    kind each one is and how long its probe took. Redis and the render queue appear only where
    the deployment uses them.
    """
    probes = _probes(services)
    results = await asyncio.gather(*(_timed(probe) for probe in probes.values()))
    dependencies = {
        name: {"state": state, "kind": kind, "latency_ms": latency} | extra
        for (name, kind), (state, latency, extra) in zip(probes, results, strict=True)
    }
    checks = {
        "catalog": "ok" if catalog.stats.makes > 0 else "empty",
        "data_dir": "ok" if os.access(settings.data_dir, os.W_OK) else "not writable",
    } | {name: entry["state"] for name, entry in dependencies.items()}
    status = "ok" if all(state == "ok" for state in checks.values()) else "degraded"
    failing = sorted(name for name, state in checks.items() if state != "ok")
    body = {"status": status, "checks": checks, "dependencies": dependencies} | (
        {"failing": failing} if failing else {}
    )
    return JSONBody(body, headers={"Cache-Control": "no-store"})


Probe = Awaitable[dict[str, Any] | None]


def _probes(services: Services) -> dict[tuple[str, str], Probe]:
    """(name, kind) -> a probe that raises when the dependency does not answer."""
    settings = services.settings
    database = "sqlite" if is_sqlite(settings.resolved_database_url) else "postgresql"
    probes: dict[tuple[str, str], Probe] = {
        ("database", database): _database(services),
        ("render_cache", services.images.renderer.cache.blobs.kind): _render_cache(services),
    }
    if settings.redis_url:
        probes[("redis", "redis")] = _redis(services)
    queue = services.render_queue
    if settings.render_backend == "openai":  # the image model's breaker, never a paid call
        from carimg.backends.generative import GenerativeBackend

        backend = services.images.renderer.backend
        assert isinstance(backend, GenerativeBackend)
        probes[("renderer", backend.kind)] = backend.probe()
    elif queue is not None:
        probes[("renderer", "queue")] = _queue(queue)
    else:
        probes[("renderer", "pool")] = _pool(services)
    return probes


async def _timed(probe: Probe) -> tuple[str, float, dict[str, Any]]:
    started = time.perf_counter()
    try:
        extra = await asyncio.wait_for(probe, _TIMEOUT)
        state = "ok"
    except TimeoutError:
        extra, state = None, "timeout"
    except Exception as error:  # the state names the failure, never its (possibly secret) text
        extra, state = None, f"error: {type(error).__name__}"
    return state, round((time.perf_counter() - started) * 1000, 2), extra or {}


async def _database(services: Services) -> None:
    async with services.db.read.connect() as conn:
        await conn.execute(text("SELECT 1"))


async def _render_cache(services: Services) -> None:
    await services.images.renderer.cache.blobs.check()


async def _redis(services: Services) -> None:
    await services.counters.backend.get("health")


async def _queue(queue: QueueRenders) -> dict[str, Any]:
    return {"depth": int(await queue.depth())}


async def _pool(services: Services) -> dict[str, Any]:
    return {"workers": services.render_pool.workers}
