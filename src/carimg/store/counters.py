"""Shared counters for fixed windows: in process by default, Redis when configured.

One contract, two backends; both pass the same contract tests.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from carimg.store.outage import DependencyUnavailable


class CountersUnavailable(DependencyUnavailable):
    """The shared counters (Redis) do not answer: nothing can be counted, so nothing is served."""


class Counters(Protocol):
    """Atomic counters that expire on their own."""

    async def incr(self, key: str, amount: int, ttl_seconds: int) -> int:
        """Add `amount` and return the new value; the key expires `ttl_seconds` after creation."""
        ...

    async def get(self, key: str) -> int: ...

    async def close(self) -> None: ...


class MemoryCounters:
    """Counters in this process (the embedded default: one server process)."""

    def __init__(self) -> None:
        # key -> (value, expiry on the event loop's monotonic clock)
        self._values: dict[str, tuple[int, float]] = {}

    async def incr(self, key: str, amount: int, ttl_seconds: int) -> int:
        now = asyncio.get_running_loop().time()
        value, expires = self._values.get(key, (0, now + ttl_seconds))
        if expires <= now:
            value, expires = 0, now + ttl_seconds
        value += amount
        self._values[key] = (value, expires)
        if len(self._values) > 100_000:
            self._values = {k: v for k, v in self._values.items() if v[1] > now}
        return value

    async def get(self, key: str) -> int:
        now = asyncio.get_running_loop().time()
        value, expires = self._values.get(key, (0, now))
        return value if expires > now else 0

    async def close(self) -> None:
        self._values.clear()


class RedisCounters:
    """Counters in Redis, shared by every server process of a deployment."""

    def __init__(self, url: str, prefix: str = "carimg:") -> None:
        # A blocking pool: a burst of more concurrent requests than connections waits for one
        # instead of failing with "Too many connections".
        pool = BlockingConnectionPool.from_url(url, max_connections=100, timeout=20)
        self._redis: Redis = Redis.from_pool(pool)
        self._prefix = prefix

    async def incr(self, key: str, amount: int, ttl_seconds: int) -> int:
        name = self._prefix + key
        try:
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.incrby(name, amount)
                pipe.expire(name, ttl_seconds, nx=True)
                value, _ = await pipe.execute()
        except (RedisError, OSError) as error:
            raise CountersUnavailable(f"Redis: {error}") from error
        return int(value)

    async def get(self, key: str) -> int:
        try:
            value = await self._redis.get(self._prefix + key)
        except (RedisError, OSError) as error:
            raise CountersUnavailable(f"Redis: {error}") from error
        return int(value or 0)

    async def close(self) -> None:
        await self._redis.aclose()
