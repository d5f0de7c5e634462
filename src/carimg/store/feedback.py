"""Feedback rows and render variations (the seed a flagged render moves to)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

from sqlalchemy import func, insert, select, true, update
from sqlalchemy.exc import IntegrityError

from carimg.store.db import Database
from carimg.store.tables import deliveries, feedback, render_variations


class FeedbackStore:
    def __init__(self, db: Database, *, refresh_seconds: float = 5.0) -> None:
        self._db = db
        self._variations: dict[str, int] = {}
        self._loaded_at = 0.0
        self._refresh = refresh_seconds
        self._lock = asyncio.Lock()

    async def add(
        self, *, feedback_id: str, account_id: str, asset_key: str, variation: int,
        rating: int | None, verdict: str | None, reason: str, request_id: str | None,
        now: datetime,
    ) -> None:  # fmt: skip
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(feedback).values(
                    id=feedback_id,
                    account_id=account_id,
                    asset_key=asset_key,
                    variation=variation,
                    rating=rating,
                    verdict=verdict,
                    reason=reason,
                    request_id=request_id,
                    created_at=now,
                )
            )

    async def negative_count(self, asset_key: str, variation: int) -> int:
        """Accounts (not reports) that judged the asset's variation badly, each by the request
        id that delivered that variation to it (a delivery since the variation began): one
        customer repeating a report cannot regenerate a render for everyone, nor can accounts
        that never received it."""
        negative = (feedback.c.verdict == "bad") | (feedback.c.rating <= 2)
        since = (
            select(render_variations.c.flagged_at)
            .where(
                render_variations.c.asset_key == asset_key,
                render_variations.c.variation == variation,
            )
            .scalar_subquery()
        )
        received = deliveries.c.created_at >= since if variation else true()
        query = (
            select(func.count(func.distinct(feedback.c.account_id)))
            .select_from(feedback)
            .join(  # by the deliveries' key: one lookup per report of this variation
                deliveries,
                (deliveries.c.request_id == feedback.c.request_id)
                & (deliveries.c.account_id == feedback.c.account_id),
            )
            .where(
                feedback.c.asset_key == asset_key,
                feedback.c.variation == variation,
                negative,
                received,
            )
        )
        async with self._db.read.connect() as conn:
            return int(await conn.scalar(query) or 0)

    async def advance_variation(self, asset_key: str, current: int, now: datetime) -> bool:
        """Move the asset from `current` to the next variation; False if someone already did."""
        async with self._db.write.begin() as conn:
            if current == 0:
                try:
                    await conn.execute(
                        insert(render_variations).values(
                            asset_key=asset_key, variation=1, flagged_at=now
                        )
                    )
                except IntegrityError:
                    return False
                moved = True
            else:
                result = await conn.execute(
                    update(render_variations)
                    .where(
                        render_variations.c.asset_key == asset_key,
                        render_variations.c.variation == current,
                    )
                    .values(variation=current + 1, flagged_at=now)
                )
                moved = bool(result.rowcount)
        if moved:
            self._variations[asset_key] = current + 1
        return moved

    def variation_now(self, asset_key: str) -> int | None:
        """`variation` when this process's copy is fresh; None when it is due for a refresh."""
        if time.monotonic() - self._loaded_at > self._refresh:
            return None
        return self._variations.get(asset_key, 0)

    async def variation(self, asset_key: str) -> int:
        """The asset's current variation (a per-process copy, refreshed every few seconds)."""
        if time.monotonic() - self._loaded_at > self._refresh:
            async with self._lock:
                if time.monotonic() - self._loaded_at > self._refresh:
                    async with self._db.read.connect() as conn:
                        rows = await conn.execute(select(render_variations))
                        self._variations = {row.asset_key: row.variation for row in rows}
                    self._loaded_at = time.monotonic()
        return self._variations.get(asset_key, 0)
