"""Plan caps (pricing variant B): each plan serves a number of distinct vehicles per calendar
month (UTC). A vehicle already served this month is always allowed; a refused request is not
charged and counts nothing, because the vehicles are counted in the debit's own transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.domain.clock import Clock
from carimg.domain.errors import PlanLimitReached
from carimg.domain.pricing import Plan, Pricing
from carimg.domain.usage_text import month_key
from carimg.store.records import Account
from carimg.store.usage import UsageStore, VehicleCapReached


class PlanCaps:
    def __init__(self, pricing: Pricing, clock: Clock) -> None:
        self._pricing = pricing
        self._clock = clock

    def plan_of(self, account: Account) -> Plan | None:
        """The account's plan when it caps distinct vehicles, else None."""
        plan = next((p for p in self._pricing.plans if p.id == account.plan), None)
        return plan if plan is not None and plan.distinct_vehicles_per_month > 0 else None

    async def admit(
        self, conn: AsyncConnection, account: Account, vehicle_ids: Sequence[str]
    ) -> list[str]:
        """Count the vehicles on the paying transaction; 402 plan_vehicle_limit past the cap.

        Returns the vehicles newly counted (to un-count if the request is refunded).
        """
        plan = self.plan_of(account)
        if plan is None:
            return []
        cap = plan.distinct_vehicles_per_month
        try:
            return await UsageStore.admit_in(conn, account.id, self.month(), list(vehicle_ids), cap)
        except VehicleCapReached as reached:
            raise self._limit(plan, reached.counted, vehicle_ids) from reached

    def month(self) -> str:
        return month_key(self._clock.now())

    def _limit(self, plan: Plan, counted: int, vehicle_ids: Sequence[str]) -> PlanLimitReached:
        cap = plan.distinct_vehicles_per_month
        upgrade = next(
            (p for p in self._pricing.plans if p.distinct_vehicles_per_month > cap), None
        )
        return PlanLimitReached(
            f"The {plan.name} plan serves {cap} distinct vehicles a month and this month's are "
            "used; vehicles already served this month keep working. Nothing was charged.",
            code="plan_vehicle_limit",
            scope="month",
            plan=plan.id,
            vehicles_this_month=counted,
            vehicles_per_month=cap,
            requested=vehicle_ids[0] if len(vehicle_ids) == 1 else list(vehicle_ids),
            next_plan=(
                {
                    "id": upgrade.id,
                    "name": upgrade.name,
                    "price": {
                        "monthly": upgrade.price_monthly,
                        "yearly": upgrade.price_monthly * 10,
                    },
                    "adds": upgrade.distinct_vehicles_per_month - cap,
                }
                if upgrade
                else None
            ),
        )
