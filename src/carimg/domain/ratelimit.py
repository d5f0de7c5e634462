"""Fixed 60-second rate windows per key and per account, with the spec's per-plan numbers."""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass

from carimg.domain.clock import Clock
from carimg.domain.errors import RateLimited
from carimg.domain.limits import (
    ACCOUNT_REQUESTS_PER_MINUTE,
    KEY_REQUESTS_PER_MINUTE,
    RATE_WINDOW_SECONDS,
)
from carimg.store.counters import Counters
from carimg.store.records import Principal


@dataclass(frozen=True, slots=True)
class RateState:
    """What the RateLimit-* headers say after this request."""

    limit: int
    remaining: int
    reset: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Limit": str(self.limit),
            "RateLimit-Remaining": str(self.remaining),
            "RateLimit-Reset": str(self.reset),
        }


class RateWindows:
    """Counts every authenticated request against its key's and its account's window."""

    def __init__(self, counters: Counters, clock: Clock) -> None:
        self._counters = counters
        self._clock = clock

    async def hit(self, principal: Principal) -> RateState:
        """Count one request; 429 when the key's or the account's window is spent."""
        now = self._clock.time()
        window = int(now // RATE_WINDOW_SECONDS)
        reset = max(1, math.ceil((window + 1) * RATE_WINDOW_SECONDS - now))
        plan = principal.account.plan
        key_limit = KEY_REQUESTS_PER_MINUTE.get(plan, KEY_REQUESTS_PER_MINUTE["free"])
        if plan == "enterprise" and principal.key.rate_limit_per_minute:
            key_limit = principal.key.rate_limit_per_minute
        account_limit = ACCOUNT_REQUESTS_PER_MINUTE.get(plan, ACCOUNT_REQUESTS_PER_MINUTE["free"])
        ttl = 2 * RATE_WINDOW_SECONDS
        key_count = await self._counters.incr(f"rl:key:{principal.key.id}:{window}", 1, ttl)
        account_count = await self._counters.incr(
            f"rl:account:{principal.account.id}:{window}", 1, ttl
        )
        state = RateState(key_limit, max(0, key_limit - key_count), reset)
        if key_count > key_limit:
            error = RateLimited(
                f"This key made more than {key_limit} requests this minute; retry in {reset} s.",
                retry_after=reset,
            )
            error.headers |= state.headers()
            raise error
        if account_count > account_limit:
            error = RateLimited(
                f"This account made more than {account_limit} requests this minute across its "
                f"keys; retry in {reset} s.",
                retry_after=reset,
                code="account_rate_limited",
                plan=plan,
            )
            error.headers |= state.headers()
            raise error
        return state


async def per_address(
    counters: Counters, clock: Clock, kind: str, ip: str, limit: int
) -> int | None:
    """Count one `kind` request from `ip` (public endpoints, no key to count against): None while
    within `limit` this minute, else the seconds until the next window."""
    now = clock.time()
    window = int(now // RATE_WINDOW_SECONDS)
    count = await counters.incr(f"{kind}:{ip}:{window}", 1, 2 * RATE_WINDOW_SECONDS)
    if count <= limit:
        return None
    return max(1, math.ceil((window + 1) * RATE_WINDOW_SECONDS - now))


def address_key(ip: str) -> str:
    """What a per-address bound counts: an IPv4 address, or an IPv6 address's /64 network (one
    subscriber usually holds a whole /64); anything else as it is."""
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return ip
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
