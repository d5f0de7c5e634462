"""What keeps a generative backend within the provider's limits: a circuit breaker per process,
and, with Redis, a fleet-wide cap on generations in flight and one generation per key."""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final

from redis.asyncio import Redis
from redis.exceptions import RedisError

_POLL_SECONDS: Final = 0.25

# Take a lease in the sorted set of leases (score: its expiry) when fewer than the cap are live.
_TAKE_SLOT: Final = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0
"""
_RELEASE_LOCK: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class FleetBusy(RuntimeError):
    """No fleet-wide generation slot came free in time."""


class Breaker:
    """Opens after `threshold` failures in a row (timeouts, 5xx, connection errors) for
    `cooldown` seconds, and for as long as the provider's 429 asks; closed again after that (one
    more failure opens it again)."""

    def __init__(
        self,
        threshold: int,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threshold = threshold
        self._cooldown = cooldown
        self._clock = clock
        self._failures = 0
        self._open_until = 0.0
        self._reason = "open"

    def retry_after(self) -> int | None:
        """Whole seconds until it closes, or None when closed."""
        left = self._open_until - self._clock()
        return max(1, math.ceil(left)) if left > 0 else None

    @property
    def state(self) -> str:
        """`ok`, `open` (failures) or `rate_limited` (the provider's 429)."""
        return "ok" if self.retry_after() is None else self._reason

    def failure(self) -> None:
        self._failures += 1
        if self._failures >= self._threshold:
            self._open(self._cooldown, "open")
            self._failures = self._threshold - 1  # after the cooldown one failure reopens it

    def rate_limited(self, seconds: float) -> None:
        self._open(seconds, "rate_limited")

    def success(self) -> None:
        self._failures = 0

    def _open(self, seconds: float, reason: str) -> None:
        until = self._clock() + seconds
        if until > self._open_until:
            self._open_until, self._reason = until, reason


class FleetLimits:
    """Generations in flight across every process (leases in a Redis sorted set that expire, so
    a process that dies gives its slots back), and one generation per key across the fleet."""

    def __init__(self, redis_url: str, prefix: str, cap: int, lease_seconds: float) -> None:
        self._redis: Redis = Redis.from_url(redis_url)
        self._slots = f"{prefix}slots"
        self._locks = f"{prefix}lock:"
        self._cap = cap
        self._lease_ms = int(lease_seconds * 1000)
        self._take = self._redis.register_script(_TAKE_SLOT)
        self._release = self._redis.register_script(_RELEASE_LOCK)

    @asynccontextmanager
    async def slot(self, deadline: float) -> AsyncIterator[None]:
        """Hold one of the fleet's slots (FleetBusy when none comes free before `deadline`)."""
        loop = asyncio.get_running_loop()
        lease = secrets.token_hex(8)
        while True:
            now_ms = int(time.time() * 1000)
            args = [now_ms, now_ms + self._lease_ms, self._cap, lease, self._lease_ms]
            if await self._take(keys=[self._slots], args=args):
                break
            if loop.time() + _POLL_SECONDS > deadline:
                raise FleetBusy(f"all {self._cap} fleet-wide generation slots are busy")
            await asyncio.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            await asyncio.shield(self._redis.zrem(self._slots, lease))

    async def lock(self, key: str) -> str | None:
        """A token when this process now makes `key` (release it with `unlock`), else None."""
        token = secrets.token_hex(8)
        taken = await self._redis.set(self._locks + key, token, nx=True, px=self._lease_ms)
        return token if taken else None

    async def unlock(self, key: str, token: str) -> None:
        await self._release(keys=[self._locks + key], args=[token])

    async def ping(self) -> None:
        await self._redis.ping()

    async def close(self) -> None:
        await self._redis.aclose()


__all__ = ["Breaker", "FleetBusy", "FleetLimits", "RedisError"]
