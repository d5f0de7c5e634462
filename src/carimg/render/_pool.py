"""Renders off the event loop: a process pool for the service, a thread for tests."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from carimg.render._appearance import Appearance


def render_png(appearance: Appearance, view: str, paint: str) -> bytes:
    """Render and encode one source (runs inside a worker)."""
    from carimg.render._render import encode_source_png, render_source

    return encode_source_png(render_source(appearance, view, paint))


def _warm_up() -> None:
    """Load the compiled kernels (numba cache) once per worker, before the first request."""
    from carimg.render._render import render_source

    render_source(Appearance("carimg", "warmup", 2020, "hatchback"), "side", "white")


class RenderPoolRestarted(RuntimeError):
    """A render worker died; the pool was restarted and the render may be retried."""


class RenderPool:
    """Runs source renders in `workers` processes (spawn context: safe with numba's threads).

    `workers=0` renders in a single thread of this process instead (tests, tiny deployments).
    """

    def __init__(self, workers: int, *, warm_up: bool = True) -> None:
        if workers < 0:
            raise ValueError("workers must be >= 0")
        self.workers = workers
        self._warm_up = warm_up
        self._executor = self._new_executor()

    def _new_executor(self) -> Executor:
        if self.workers == 0:
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="carimg-render")
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_warm_up if self._warm_up else None,
        )

    async def render(self, appearance: Appearance, view: str, paint: str) -> bytes:
        """Source PNG bytes for (appearance, view, paint), computed off the event loop.

        A worker that died (killed, out of memory) breaks a process pool for good; the pool is
        then replaced and `RenderPoolRestarted` raised, so callers can answer "retry" (503).
        """
        loop = asyncio.get_running_loop()
        executor = self._executor
        try:
            return await loop.run_in_executor(executor, render_png, appearance, view, paint)
        except BrokenProcessPool as error:
            if self._executor is executor:
                self._executor = self._new_executor()
                executor.shutdown(wait=False, cancel_futures=True)
            raise RenderPoolRestarted("a render worker died; the pool was restarted") from error

    def close(self) -> None:
        """Stop the workers (waits for renders in flight)."""
        self._executor.shutdown(wait=True)

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
