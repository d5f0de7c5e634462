"""Funnel events, written in one multi-row insert per batch, kept `retention_days` days: each
process deletes older ones at most once an hour, after a batch it wrote."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any, Final

from sqlalchemy import delete, func, insert, select

from carimg.domain.clock import Clock
from carimg.store.db import Database
from carimg.store.tables import events

PRUNE_EVERY_SECONDS: Final = 3600.0


class EventStore:
    def __init__(self, db: Database, clock: Clock, retention_days: int) -> None:
        self._db = db
        self._clock = clock
        self._retention = timedelta(days=retention_days)
        self._pruned_at: float | None = None  # monotonic time of this process's last prune

    async def add_all(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            async with self._db.write.begin() as conn:
                await conn.execute(insert(events), rows)
        now = time.monotonic()
        if self._pruned_at is None or now - self._pruned_at >= PRUNE_EVERY_SECONDS:
            self._pruned_at = now
            await self.prune()

    async def prune(self) -> int:
        """Delete the events received before the retention period; returns how many."""
        cutoff = self._clock.now() - self._retention
        async with self._db.write.begin() as conn:
            result = await conn.execute(delete(events).where(events.c.received_at < cutoff))
        return int(result.rowcount or 0)

    async def count(self) -> int:
        async with self._db.read.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(events)) or 0)
