"""The render queue on the local Redis: one job per source across processes, failures reach
every waiter, no worker means "retry" (503), never a hang."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from arq import Worker

from carimg.queue import (
    Faults,
    QueueRenders,
    RenderJobFailed,
    RenderQueueUnavailable,
    build_worker,
    close_worker,
)
from carimg.render import Appearance
from carimg.store.blobs import LocalBlobStore
from carimg.store.render_cache import RenderCache
from tests.conftest import REDIS_URL

APPEARANCE = Appearance("toyota", "camry", 2020, "sedan")

StartWorker = Callable[..., Awaitable[dict[str, int]]]


@pytest.fixture
def queue_name(redis_url: str) -> str:
    return f"carimg-test:{uuid.uuid4().hex[:12]}"  # jobs and ids of this test only


@pytest.fixture
def cache(tmp_path: Path) -> RenderCache:
    return RenderCache(LocalBlobStore(tmp_path / "renders"), 0)


@pytest.fixture
async def start_worker(queue_name: str, cache: RenderCache) -> AsyncIterator[StartWorker]:
    """Start an in-process worker; returns its context (`ctx["carimg"].rendered` counts)."""
    running: list[tuple[Worker, asyncio.Task[None]]] = []

    async def start(faults: Faults = Faults()) -> dict[str, int]:
        worker = build_worker(
            REDIS_URL, queue_name, cache, concurrency=2, job_timeout=10, faults=faults,
            handle_signals=False,
        )  # fmt: skip
        running.append((worker, asyncio.create_task(worker.async_run())))
        return worker.ctx  # type: ignore[no-any-return]

    yield start
    for worker, task in running:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await close_worker(worker)


def renders(queue_name: str, cache: RenderCache, wait: float = 20) -> QueueRenders:
    """One server process's side of the queue."""
    return QueueRenders(REDIS_URL, queue_name, cache, wait_seconds=wait)


async def test_requests_from_two_processes_share_one_render(
    queue_name: str, cache: RenderCache, tmp_path: Path, start_worker: StartWorker
) -> None:
    ctx = await start_worker()
    key = f"src-{uuid.uuid4().hex}"
    first, second = renders(queue_name, cache), renders(queue_name, cache)
    results = await asyncio.gather(
        first.render(key, APPEARANCE, "side", "red"),
        second.render(key, APPEARANCE, "side", "red"),
        first.render(key, APPEARANCE, "side", "red"),
    )
    assert results[0][:8] == b"\x89PNG\r\n\x1a\n"
    assert results[0] == results[1] == results[2]
    assert ctx["carimg"].rendered == 1  # type: ignore[attr-defined]
    await first.close()
    await second.close()


async def test_a_source_already_in_the_cache_is_not_rendered_again(
    queue_name: str, cache: RenderCache, start_worker: StartWorker
) -> None:
    ctx = await start_worker()
    key = f"src-{uuid.uuid4().hex}"
    await cache.put_source(key, b"cached bytes")
    queue = renders(queue_name, cache)
    assert await queue.render(key, APPEARANCE, "side", "red") == b"cached bytes"
    assert ctx["carimg"].rendered == 0  # type: ignore[attr-defined]
    await queue.close()


async def test_a_failed_render_fails_every_waiter(
    queue_name: str, cache: RenderCache, start_worker: StartWorker
) -> None:
    await start_worker(Faults(fail_fraction=1.0))
    key = f"src-{uuid.uuid4().hex}"
    first, second = renders(queue_name, cache), renders(queue_name, cache)
    outcomes = await asyncio.gather(
        first.render(key, APPEARANCE, "side", "red"),
        second.render(key, APPEARANCE, "side", "red"),
        return_exceptions=True,
    )
    assert all(isinstance(outcome, RenderJobFailed) for outcome in outcomes), outcomes
    assert "injected render failure" in str(outcomes[0])
    assert await cache.get_source(key) is None
    await first.close()
    await second.close()


async def test_without_a_worker_the_wait_ends_in_a_retryable_error(
    queue_name: str, cache: RenderCache
) -> None:
    queue = renders(queue_name, cache, wait=0.3)
    with pytest.raises(RenderQueueUnavailable, match=r"within 0\.3 s"):
        await queue.render(f"src-{uuid.uuid4().hex}", APPEARANCE, "side", "red")
    assert await queue.depth() == 1  # a worker that starts later still fills the cache
    await queue.close()


async def test_an_unreachable_redis_is_a_retryable_error(cache: RenderCache) -> None:
    queue = QueueRenders("redis://127.0.0.1:1/0", "carimg-test:none", cache, wait_seconds=2)
    with pytest.raises(RenderQueueUnavailable, match="unreachable"):
        await queue.render(f"src-{uuid.uuid4().hex}", APPEARANCE, "side", "red")
    await queue.close()
