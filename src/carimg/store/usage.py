"""Usage records: distinct vehicles per account and month (plan caps) and delivered images."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from carimg.store.tables import deliveries, monthly_vehicles


class UsageStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

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
            async with self._engine.begin() as conn:
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
        async with self._engine.connect() as conn:
            return int(await conn.scalar(query) or 0)

    async def record_delivery(
        self,
        request_id: str,
        account_id: str,
        vehicle_id: str,
        view: str,
        paint: str,
        now: datetime,
    ) -> None:
        """Remember which image a request delivered (the first delivery of an id wins)."""
        try:
            async with self._engine.begin() as conn:
                await conn.execute(
                    insert(deliveries).values(
                        request_id=request_id,
                        account_id=account_id,
                        vehicle_id=vehicle_id,
                        view=view,
                        paint=paint,
                        created_at=now,
                    )
                )
        except IntegrityError:
            pass
