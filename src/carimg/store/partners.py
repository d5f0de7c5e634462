"""Partners and their embed-signing secrets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select

from carimg.store.db import Database
from carimg.store.tables import partners


@dataclass(frozen=True, slots=True)
class Partner:
    id: str
    name: str
    secret: str


class PartnerStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, partner: Partner, now: datetime) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(partners).values(
                    id=partner.id, name=partner.name, secret=partner.secret, created_at=now
                )
            )

    async def active(self) -> list[Partner]:
        query = select(partners).where(partners.c.revoked_at.is_(None)).order_by(partners.c.id)
        async with self._db.read.connect() as conn:
            rows = await conn.execute(query)
            return [Partner(row.id, row.name, row.secret) for row in rows]
