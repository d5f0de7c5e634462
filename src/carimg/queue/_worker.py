"""The worker side of the render queue: `carimg worker` takes render jobs and fills the cache."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from arq import Worker
from arq.connections import ArqRedis
from arq.worker import func
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import RedisError

from carimg.queue._wire import JOB_FUNCTION, dumps, loads
from carimg.render import Appearance
from carimg.render._pool import _warm_up as warm_up
from carimg.render._pool import render_png
from carimg.store.render_cache import RenderCache

logger = logging.getLogger("carimg.worker")

_LEASE_MARGIN_S = 2  # a dead worker's job goes to another this long after its time limit
_KEEP_OUTCOME_S = 5  # waiters poll every few ms; a failure is not remembered for long


@dataclass(frozen=True, slots=True)
class Faults:
    """Faults a load test injects into a worker (never set by a deployment's settings)."""

    fail_fraction: float = 0.0
    delay_seconds: float = 0.0

    def before_render(self) -> None:
        if self.delay_seconds:
            time.sleep(self.delay_seconds)
        if self.fail_fraction and random.random() < self.fail_fraction:
            raise RuntimeError("injected render failure")


@dataclass(slots=True)
class _State:
    cache: RenderCache
    executor: ThreadPoolExecutor
    faults: Faults
    redis: ArqRedis
    rendered: int = 0


def _render(faults: Faults, appearance: Appearance, view: str, paint: str) -> bytes:
    faults.before_render()
    return render_png(appearance, view, paint)


async def render_source(
    ctx: dict[str, Any], key: str, appearance: list[Any], view: str, paint: str
) -> dict[str, Any]:
    """Render one source into the shared cache (unless another worker already did)."""
    state: _State = ctx["carimg"]
    if await state.cache.has_source(key):
        return {"ok": True, "rendered": False}
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    try:
        png = await loop.run_in_executor(
            state.executor, _render, state.faults, Appearance(*appearance), view, paint
        )
        await state.cache.put_source(key, png)
    except Exception as error:  # the waiters refund; the job is not retried (renders repeat)
        logger.warning("render failed: %s %s", key, error, extra={"job": ctx.get("job_id")})
        return {"ok": False, "error": f"{type(error).__name__}: {error}"}
    state.rendered += 1
    logger.info(
        "rendered source %s in %.0f ms (try %s)",
        key,
        (time.perf_counter() - started) * 1000,
        ctx.get("job_try"),
        extra={"job": ctx.get("job_id")},
    )
    return {"ok": True, "rendered": True}


async def _warm_up(ctx: dict[str, Any]) -> None:
    """Load the compiled kernels before the first job (a cold worker's first render is slow)."""
    state: _State = ctx["carimg"]
    await asyncio.get_running_loop().run_in_executor(state.executor, warm_up)


def build_worker(
    redis_url: str,
    queue_name: str,
    cache: RenderCache,
    *,
    concurrency: int,
    job_timeout: float,
    faults: Faults = Faults(),  # frozen: safe to share
    poll_seconds: float = 0.02,
    handle_signals: bool = True,
) -> Worker:
    """An arq worker for render jobs; `concurrency` renders at once, each in its own thread."""
    pool = BlockingConnectionPool.from_url(redis_url, max_connections=concurrency + 4, timeout=20)
    redis = ArqRedis(
        pool, job_serializer=dumps, job_deserializer=loads, default_queue_name=queue_name
    )
    executor = ThreadPoolExecutor(concurrency, thread_name_prefix="carimg-render")
    state = _State(cache, executor, faults, redis)
    worker = Worker(
        functions=[
            func(
                render_source,
                name=JOB_FUNCTION,
                timeout=job_timeout,
                keep_result=_KEEP_OUTCOME_S,
                max_tries=3,
            )
        ],
        redis_pool=redis,
        queue_name=queue_name,
        max_jobs=concurrency,
        keep_result=_KEEP_OUTCOME_S,  # also for jobs arq fails itself (time limit, retries)
        poll_delay=poll_seconds,
        job_serializer=dumps,
        job_deserializer=loads,
        ctx={"carimg": state},
        on_startup=_warm_up,
        handle_signals=handle_signals,
        job_completion_wait=int(job_timeout) + 1,  # SIGTERM lets renders in flight finish
        health_check_interval=10,
    )
    # arq holds a job for its time limit + 10 s; a worker killed mid-render should cost less.
    worker.in_progress_timeout_s = job_timeout + _LEASE_MARGIN_S
    return worker


async def run_worker(
    redis_url: str,
    queue_name: str,
    cache: RenderCache,
    *,
    concurrency: int,
    job_timeout: float,
    faults: Faults,
) -> None:
    """Run until SIGINT/SIGTERM; when Redis goes away, wait for it and start again."""
    while True:
        worker = build_worker(
            redis_url,
            queue_name,
            cache,
            concurrency=concurrency,
            job_timeout=job_timeout,
            faults=faults,
        )
        try:
            await worker.async_run()
            return
        except (RedisError, OSError) as error:
            logger.warning("lost Redis (%s); reconnecting in 1 s", error)
            await asyncio.sleep(1)
        finally:
            await close_worker(worker)


async def close_worker(worker: Worker) -> None:
    """Close a worker's Redis connections (arq still calls redis-py's deprecated `close`)."""
    state: _State = worker.ctx["carimg"]
    try:
        with contextlib.suppress(RedisError, OSError), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            await worker.close()
    finally:  # whatever arq got through: no connection or thread outlives the worker
        await state.redis.connection_pool.disconnect()
        state.executor.shutdown(wait=False)
