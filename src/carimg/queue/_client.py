"""The server side of the render queue: enqueue (or join) one job per source and wait for it."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import astuple
from typing import Any

from arq.connections import ArqRedis
from arq.jobs import Job, ResultNotFound
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import RedisError

from carimg.queue._wire import JOB_FUNCTION, dumps, job_id, loads
from carimg.render import Appearance
from carimg.store.render_cache import RenderCache

logger = logging.getLogger("carimg.queue")


class RenderQueueUnavailable(RuntimeError):
    """No worker finished the render in time, or Redis is unreachable: the caller may retry."""


class RenderJobFailed(RuntimeError):
    """A worker tried the render and it failed."""


class QueueRenders:
    """Cold renders done by `carimg worker` processes, one job per source across the fleet.

    The job id is the source key, so requests for one source on any number of server processes
    join one job; the worker writes the source into the shared render cache and the waiters read
    it from there. A worker killed mid-render leaves its job in the queue: arq gives it to another
    worker once the job's lease runs out, while a waiter whose wait ends first gets
    `RenderQueueUnavailable` (a 503 whose charge the caller refunds).
    """

    def __init__(
        self,
        redis_url: str,
        queue_name: str,
        cache: RenderCache,
        *,
        wait_seconds: float,
        poll_seconds: float = 0.02,
    ) -> None:
        pool = BlockingConnectionPool.from_url(redis_url, max_connections=50, timeout=20)
        self._redis = ArqRedis(
            pool, job_serializer=dumps, job_deserializer=loads, default_queue_name=queue_name
        )
        self._queue_name = queue_name
        self._cache = cache
        self._wait = wait_seconds
        self._poll = poll_seconds

    async def render(self, key: str, appearance: Appearance, view: str, paint: str) -> bytes:
        """The source for `key`, rendered by some worker (or already in the cache)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._wait
        try:
            while (left := deadline - loop.time()) > 0:
                outcome = await self._run(key, list(astuple(appearance)), view, paint, left)
                if outcome is not None and not outcome.get("ok"):
                    raise RenderJobFailed(str(outcome.get("error", "the render failed")))
                # Done (or its result already expired): the source is in the shared cache
                # unless the job vanished unfinished (expired in the queue); then enqueue again.
                source = await self._cache.get_source(key)
                if source is not None:
                    return source
                if outcome is not None:
                    raise RenderJobFailed("the worker reported a render the cache does not hold")
        except RedisError as error:
            raise RenderQueueUnavailable("the render queue is unreachable") from error
        raise RenderQueueUnavailable(f"no render worker finished within {self._wait:g} s")

    async def _run(
        self, key: str, appearance: list[Any], view: str, paint: str, left: float
    ) -> dict[str, Any] | None:
        """Enqueue or join the source's job and wait for its outcome (None: no result kept)."""
        ident = job_id(self._queue_name, key)
        job = await self._redis.enqueue_job(
            JOB_FUNCTION, key, appearance, view, paint, _job_id=ident
        )  # no expiry: a job outlives its waiters (and fills the cache for the next request)
        if job is None:  # already queued, running or just finished: join it
            job = Job(ident, self._redis, _queue_name=self._queue_name, _deserializer=loads)
        try:
            outcome = await job.result(timeout=left, poll_delay=self._poll)
        except ResultNotFound:
            return None
        except TimeoutError:
            raise RenderQueueUnavailable(
                f"no render worker finished within {self._wait:g} s"
            ) from None
        except RedisError:
            raise
        except Exception as error:  # the job itself failed: timed out, retries spent
            raise RenderJobFailed(f"the render job failed: {error}") from error
        if not isinstance(outcome, dict):
            raise RenderJobFailed("the render job returned no outcome")
        return outcome

    async def depth(self) -> int:
        """Jobs waiting or running (for the queue-depth gauge)."""
        return int(await self._redis.zcard(self._queue_name))

    async def close(self) -> None:
        await self._redis.aclose(close_connection_pool=True)
