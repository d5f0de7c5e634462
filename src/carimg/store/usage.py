"""Usage records: distinct vehicles per account and month (plan caps) and delivered images."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.store.db import Database
from carimg.store.tables import deliveries, monthly_vehicles


class UsageStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def admit_vehicle(
        self, account_id: str, month: str, vehicle_id: str, cap: int
    ) -> tuple[bool, int]:
        """Count `vehicle_id` for the month unless `cap` distinct vehicles are already counted.

        A vehicle already counted this month is always admitted. Returns (admitted, count).
        """
        condition = (monthly_vehicles.c.account_id == account_id) & (
            monthly_vehicles.c.month == month
        )
        try:
            async with self._db.write.begin() as conn:
                await conn.execute(
                    insert(monthly_vehicles).values(
                        account_id=account_id, month=month, vehicle_id=vehicle_id
                    )
                )
                count = int(
                    await conn.scalar(
                        select(func.count()).select_from(monthly_vehicles).where(condition)
                    )
                    or 0
                )
                if count > cap:
                    await conn.execute(
                        delete(monthly_vehicles).where(
                            condition & (monthly_vehicles.c.vehicle_id == vehicle_id)
                        )
                    )
                    return False, count - 1
                return True, count
        except IntegrityError:
            return True, await self.vehicles_in_month(account_id, month)

    async def vehicles_in_month(self, account_id: str, month: str) -> int:
        query = (
            select(func.count())
            .select_from(monthly_vehicles)
            .where(
                (monthly_vehicles.c.account_id == account_id) & (monthly_vehicles.c.month == month)
            )
        )
        async with self._db.read.connect() as conn:
            return int(await conn.scalar(query) or 0)

    @staticmethod
    async def record_delivery(
        conn: AsyncConnection, request_id: str, account_id: str, vehicle_id: str, view: str,
        paint: str, now: datetime,
    ) -> None:  # fmt: skip
        """Remember which image a request delivered, on the connection of the debit paying for it.

        Request ids come from clients and may repeat: the first delivery of an id wins.
        """
        values = {
            "request_id": request_id, "account_id": account_id, "vehicle_id": vehicle_id,
            "view": view, "paint": paint, "created_at": now,
        }  # fmt: skip
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        await conn.execute(dialect_insert(deliveries).values(**values).on_conflict_do_nothing())

    async def forget_delivery(self, request_id: str, account_id: str) -> None:
        """A refunded request delivered nothing: drop its record."""
        async with self._db.write.begin() as conn:
            await conn.execute(
                delete(deliveries).where(
                    deliveries.c.request_id == request_id, deliveries.c.account_id == account_id
                )
            )

    async def delivery(self, request_id: str, account_id: str) -> tuple[str, str, str] | None:
        """(vehicle id, view, paint) of the image a request delivered to this account."""
        query = select(deliveries.c.vehicle_id, deliveries.c.view, deliveries.c.paint).where(
            deliveries.c.request_id == request_id, deliveries.c.account_id == account_id
        )
        async with self._db.read.connect() as conn:
            row = (await conn.execute(query)).first()
        return (row.vehicle_id, row.view, row.paint) if row else None
