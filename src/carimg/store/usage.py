"""Usage records: distinct vehicles per account and month (plan caps) and delivered images."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, select, text
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.store.db import Database
from carimg.store.inline import InlineSqlite, Statement
from carimg.store.ledger import PaidFor
from carimg.store.tables import deliveries, monthly_vehicles


class VehicleCapReached(Exception):
    """A new vehicle would pass the month's cap; `counted` vehicles were counted before it."""

    def __init__(self, counted: int) -> None:
        super().__init__(counted)
        self.counted = counted


_RECORD_DELIVERY = Statement(
    sqlite_insert(deliveries).on_conflict_do_nothing(),
    ["request_id", "account_id", "vehicle_id", "view", "paint", "created_at"],
)


class UsageStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    @staticmethod
    async def admit_in(
        conn: AsyncConnection, account_id: str, month: str, vehicle_ids: list[str], cap: int
    ) -> list[str]:
        """Count vehicles for the month on the caller's transaction (the debit that pays).

        Vehicles already counted this month are always admitted. Raises VehicleCapReached when
        a new one would pass `cap`; the caller's transaction then rolls back, counting nothing.
        Returns the vehicles this call counted (new this month).
        """
        if conn.dialect.name == "postgresql":  # serialise counting per account and month
            await conn.execute(
                text("SELECT pg_advisory_xact_lock(hashtext(:key))"),
                {"key": f"vehicles:{account_id}:{month}"},
            )
        condition = (monthly_vehicles.c.account_id == account_id) & (
            monthly_vehicles.c.month == month
        )
        count_query = select(func.count()).select_from(monthly_vehicles).where(condition)
        before = int(await conn.scalar(count_query) or 0)
        dialect_insert = postgresql_insert if conn.dialect.name == "postgresql" else sqlite_insert
        added: list[str] = []
        for vehicle_id in dict.fromkeys(vehicle_ids):
            result = await conn.execute(
                dialect_insert(monthly_vehicles)
                .values(account_id=account_id, month=month, vehicle_id=vehicle_id)
                .on_conflict_do_nothing()
            )
            if result.rowcount:
                added.append(vehicle_id)
        if before + len(added) > cap and added:
            raise VehicleCapReached(before)
        return added

    async def forget_vehicles(self, account_id: str, month: str, vehicle_ids: list[str]) -> None:
        """Un-count vehicles a refunded request counted (it delivered nothing)."""
        if not vehicle_ids:
            return
        async with self._db.write.begin() as conn:
            await conn.execute(
                delete(monthly_vehicles).where(
                    monthly_vehicles.c.account_id == account_id,
                    monthly_vehicles.c.month == month,
                    monthly_vehicles.c.vehicle_id.in_(vehicle_ids),
                )
            )

    async def admit_vehicle(
        self, account_id: str, month: str, vehicle_id: str, cap: int
    ) -> tuple[bool, int]:
        """Count one vehicle in a transaction of its own; returns (admitted, count)."""
        try:
            async with self._db.write.begin() as conn:
                await self.admit_in(conn, account_id, month, [vehicle_id], cap)
        except VehicleCapReached as reached:
            return False, reached.counted
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
    def delivery_record(
        request_id: str, account_id: str, vehicle_id: str, view: str, paint: str, now: datetime
    ) -> PaidFor:
        """Which image a request delivered, to record with the debit paying for it.

        Request ids come from clients and may repeat: the first delivery of an id wins.
        """
        values = {
            "request_id": request_id, "account_id": account_id, "vehicle_id": vehicle_id,
            "view": view, "paint": paint, "created_at": now,
        }  # fmt: skip

        async def pooled(conn: AsyncConnection, _balance: int) -> None:
            postgresql = conn.dialect.name == "postgresql"
            dialect_insert = postgresql_insert if postgresql else sqlite_insert
            await conn.execute(dialect_insert(deliveries).values(**values).on_conflict_do_nothing())

        def inline(connection: InlineSqlite, _balance: int) -> None:
            connection.execute(_RECORD_DELIVERY, **values)

        return PaidFor(pooled, inline)

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
