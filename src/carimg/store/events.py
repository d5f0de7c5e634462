"""Funnel events, written in one multi-row insert per batch."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, insert, select

from carimg.store.db import Database
from carimg.store.tables import events


class EventStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add_all(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            async with self._db.write.begin() as conn:
                await conn.execute(insert(events), rows)

    async def count(self) -> int:
        async with self._db.read.connect() as conn:
            return int(await conn.scalar(select(func.count()).select_from(events)) or 0)
