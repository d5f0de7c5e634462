"""Hosted checkouts: created pending, paid once (the purchase is a ledger entry)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update

from carimg.store.db import Database
from carimg.store.ledger import insert_entry
from carimg.store.tables import accounts, checkouts


@dataclass(frozen=True, slots=True)
class Checkout:
    id: str
    account_id: str
    provider: str
    credits: int
    cents: int
    plan: str | None
    state: str  # pending | paid
    provider_ref: str | None
    customer_ref: str | None
    created_at: datetime
    paid_at: datetime | None


def _checkout(row: Mapping[Any, Any]) -> Checkout:
    return Checkout(
        id=row["id"],
        account_id=row["account_id"],
        provider=row["provider"],
        credits=int(row["credits"]),
        cents=int(row["cents"]),
        plan=row["plan"],
        state=row["state"],
        provider_ref=row["provider_ref"],
        customer_ref=row["customer_ref"],
        created_at=row["created_at"],
        paid_at=row["paid_at"],
    )


class CheckoutStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def create(self, checkout: Checkout) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(checkouts).values(
                    id=checkout.id,
                    account_id=checkout.account_id,
                    provider=checkout.provider,
                    credits=checkout.credits,
                    cents=checkout.cents,
                    plan=checkout.plan,
                    state=checkout.state,
                    provider_ref=checkout.provider_ref,
                    customer_ref=checkout.customer_ref,
                    created_at=checkout.created_at,
                    paid_at=None,
                )
            )

    async def set_provider_ref(self, checkout_id: str, provider_ref: str) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(checkouts)
                .where(checkouts.c.id == checkout_id)
                .values(provider_ref=provider_ref)
            )

    async def get(self, checkout_id: str) -> Checkout | None:
        async with self._db.read.connect() as conn:
            row = (
                await conn.execute(select(checkouts).where(checkouts.c.id == checkout_id))
            ).first()
        return _checkout(row._mapping) if row else None

    async def mark_paid(
        self, checkout_id: str, now: datetime, customer_ref: str | None = None
    ) -> tuple[bool, int]:
        """Pay a pending checkout and credit its account in one transaction.

        Returns (paid now, balance); a checkout paid before changes nothing.
        """
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(checkouts)
                .where(checkouts.c.id == checkout_id, checkouts.c.state == "pending")
                .values(state="paid", paid_at=now, customer_ref=customer_ref)
            )
            row = (
                await conn.execute(select(checkouts).where(checkouts.c.id == checkout_id))
            ).first()
            if row is None:
                raise KeyError(checkout_id)
            checkout = _checkout(row._mapping)
            if not result.rowcount:
                balance = await conn.scalar(
                    select(accounts.c.credits).where(accounts.c.id == checkout.account_id)
                )
                return False, int(balance or 0)
            balance = await conn.scalar(
                update(accounts)
                .where(accounts.c.id == checkout.account_id)
                .values(credits=accounts.c.credits + checkout.credits)
                .returning(accounts.c.credits)
            )
            await insert_entry(
                conn,
                checkout.account_id,
                "purchase",
                checkout.credits,
                int(balance or 0),
                f"purchase:{checkout.id}",
                f"{checkout.credits} credits for {checkout.cents} cents via {checkout.provider}",
                now,
            )
            if checkout.plan:
                await conn.execute(
                    update(accounts)
                    .where(accounts.c.id == checkout.account_id)
                    .values(plan=checkout.plan)
                )
            return True, int(balance or 0)

    async def paid_of(self, account_id: str) -> list[Checkout]:
        query = (
            select(checkouts)
            .where(checkouts.c.account_id == account_id, checkouts.c.state == "paid")
            .order_by(checkouts.c.paid_at)
        )
        async with self._db.read.connect() as conn:
            return [_checkout(row._mapping) for row in await conn.execute(query)]

    async def count_paid(self, account_id: str) -> int:
        query = select(func.count()).where(
            checkouts.c.account_id == account_id, checkouts.c.state == "paid"
        )
        async with self._db.read.connect() as conn:
            return int(await conn.scalar(query) or 0)
