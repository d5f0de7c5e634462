"""Daily cold-render budgets, reset at midnight UTC: each plan's share of the deployment ceiling,
and the free grants' share (playground, sessions, examples, partner links: every render nobody
pays for), so that free traffic can never spend the renders paying accounts are entitled to."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from carimg.domain.clock import Clock
from carimg.domain.errors import RateLimited, RenderFailed
from carimg.store.counters import Counters
from carimg.store.records import Account

PLAN_SHARES: Final[dict[str, float]] = {
    "free": 0.02,
    "pro": 0.10,
    "business": 0.25,
    "enterprise": 0.50,
}
_TTL = 2 * 86400


class RenderBudget:
    """Reserves one cold render against the account's share and the deployment's ceiling."""

    def __init__(
        self, counters: Counters, clock: Clock, daily_ceiling: int, free_share: float = 0.10
    ) -> None:
        self._counters = counters
        self._clock = clock
        self._ceiling = daily_ceiling
        self.free_renders = math.floor(daily_ceiling * free_share)

    def share_of(self, plan: str) -> int:
        return max(1, math.floor(self._ceiling * PLAN_SHARES.get(plan, PLAN_SHARES["free"])))

    def _reset(self) -> tuple[str, datetime, int]:
        now = self._clock.now()
        midnight = datetime(now.year, now.month, now.day, tzinfo=UTC) + timedelta(days=1)
        return (
            now.strftime("%Y-%m-%d"),
            midnight,
            max(1, math.ceil((midnight - now).total_seconds())),
        )

    async def reserve_free(self) -> None:
        """Count one cold render of a free grant against the free grants' share of the ceiling,
        and the ceiling itself (502 at either)."""
        day, midnight, seconds = self._reset()
        free_key, total_key = f"rb:free:{day}", f"rb:total:{day}"
        if await self._counters.incr(free_key, 1, _TTL) > self.free_renders:
            await self._counters.incr(free_key, -1, _TTL)
            raise self._at_capacity(midnight, seconds, free_share=self.free_renders)
        if await self._counters.incr(total_key, 1, _TTL) > self._ceiling:
            await self._counters.incr(total_key, -1, _TTL)
            await self._counters.incr(free_key, -1, _TTL)
            raise self._at_capacity(midnight, seconds)

    def _at_capacity(
        self, midnight: datetime, seconds: int, free_share: int | None = None
    ) -> RenderFailed:
        reset_at = midnight.isoformat().replace("+00:00", "Z")
        reached = (
            "The deployment reached its daily ceiling of new renders"
            if free_share is None
            else f"Free images reached their share of today's new renders ({free_share})"
        )
        extensions: dict[str, Any] = {} if free_share is None else {"free_share": free_share}
        return RenderFailed(
            f"{reached}; cached images keep serving. New renders resume at {reset_at}.",
            code="generation_at_capacity",
            retry_after_seconds=seconds,
            reset_at=reset_at,
            **extensions,
        )

    async def reserve(self, account: Account) -> None:
        """Count one cold render; 429 when the account's share is spent, 502 at the ceiling."""
        day, midnight, seconds = self._reset()
        reset_at = midnight.isoformat().replace("+00:00", "Z")
        account_key, total_key = f"rb:account:{account.id}:{day}", f"rb:total:{day}"
        share = self.share_of(account.plan)
        if await self._counters.incr(account_key, 1, _TTL) > share:
            await self._counters.incr(account_key, -1, _TTL)
            raise RateLimited(
                f"This account used its {account.plan} plan's share of today's new renders "
                f"({share}). Cached images keep serving; new renders resume at {reset_at}.",
                retry_after=seconds,
                code="account_generation_cap",
                retry_after_seconds=seconds,
                reset_at=reset_at,
            )
        if await self._counters.incr(total_key, 1, _TTL) > self._ceiling:
            await self._counters.incr(total_key, -1, _TTL)
            await self._counters.incr(account_key, -1, _TTL)
            raise self._at_capacity(midnight, seconds)

    async def release(self, account: Account) -> None:
        """Give back a reservation whose request was refused before anything was rendered."""
        day, _, _ = self._reset()
        await self._counters.incr(f"rb:account:{account.id}:{day}", -1, _TTL)
        await self._counters.incr(f"rb:total:{day}", -1, _TTL)
