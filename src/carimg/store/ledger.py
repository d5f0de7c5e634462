"""The credit ledger in SQL: append-only entries, the balance changed in the same transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg import metrics
from carimg.store.db import Database
from carimg.store.inline import InlineSqlite, Statement, WriteLockBusy
from carimg.store.records import LedgerEntry, LedgerKind
from carimg.store.tables import accounts, ledger


class InsufficientBalance(Exception):
    """Applying the entry would take the balance below zero."""

    def __init__(self, balance: int) -> None:
        super().__init__(balance)
        self.balance = balance


def _entry(row: Mapping[Any, Any]) -> LedgerEntry:
    return LedgerEntry(
        id=int(row["id"]),
        account_id=row["account_id"],
        kind=cast(LedgerKind, row["kind"]),
        amount=int(row["amount"]),
        balance_after=int(row["balance_after"]),
        reference=row["reference"],
        note=row["note"],
        created_at=row["created_at"],
    )


async def insert_entry(
    conn: AsyncConnection,
    account_id: str,
    kind: LedgerKind,
    amount: int,
    balance_after: int,
    reference: str,
    note: str,
    now: datetime,
) -> None:
    await conn.execute(
        insert(ledger).values(
            account_id=account_id,
            kind=kind,
            amount=amount,
            balance_after=balance_after,
            reference=reference,
            note=note,
            created_at=now,
        )
    )


# What a balance change writes, as read caches see it: account rows are cached without their
# balance (`Account` has none), so a debit leaves them cached.
BALANCE_ONLY = "accounts.credits"

# The statements of an entry, compiled once for the inline path (see carimg.store.inline).
_CHANGE_BALANCE = Statement(
    update(accounts)
    .where(accounts.c.id == bindparam("account_id"), accounts.c.credits + bindparam("amount") >= 0)
    .values(credits=accounts.c.credits + bindparam("amount"))
    .returning(accounts.c.credits),
    writes=BALANCE_ONLY,
)
_BALANCE = Statement(select(accounts.c.credits).where(accounts.c.id == bindparam("account_id")))
_INSERT_ENTRY = Statement(
    insert(ledger),
    ["account_id", "kind", "amount", "balance_after", "reference", "note", "created_at"],
)

PooledWrite = Callable[[AsyncConnection, int], Awaitable[None]]
InlineWrite = Callable[[InlineSqlite, int], None]


@dataclass(frozen=True, slots=True)
class PaidFor:
    """What a ledger entry pays for, written in the entry's own transaction (all or nothing).

    `pooled(conn, balance)` writes it on a pooled connection; `inline(inline, balance)`, when the
    same rows can be written so, on SQLite's inline connection. `LedgerStore.apply` chooses the
    one that runs: the caller never picks a connection.
    """

    pooled: PooledWrite
    inline: InlineWrite | None = None

    def after(self, first: PooledWrite) -> PaidFor:
        """`first`, then this, on a pooled connection (`first` has no inline twin)."""
        then = self.pooled

        async def both(conn: AsyncConnection, balance: int) -> None:
            await first(conn, balance)
            await then(conn, balance)

        return PaidFor(both)


class LedgerStore:
    """Applies ledger entries atomically; a reference can be applied once only."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def apply(
        self,
        account_id: str,
        kind: LedgerKind,
        amount: int,
        reference: str,
        *,
        note: str = "",
        now: datetime,
        also: PaidFor | None = None,
    ) -> tuple[bool, int]:
        """Add `amount` (negative for a debit) to the balance and record the entry.

        Returns (applied, balance). A reference that was already applied changes nothing and
        returns (False, current balance). Raises InsufficientBalance when the balance would go
        below zero. The conditional UPDATE takes the row lock, so concurrent debits serialise.
        `also` writes what the entry pays for in the same transaction (all or nothing).

        On SQLite, when `also` can be written inline (or there is none), the whole transaction
        runs inline (no thread, no yield) as soon as the write lock is free; otherwise it
        queues for the pooled write connection.
        """
        inline = self._db.inline
        also_inline = None if also is None else also.inline
        if inline is not None and (also is None or also_inline is not None):
            try:
                balance = await inline.write(
                    lambda: self._apply_inline(
                        inline, account_id, kind, amount, reference, note, now, also_inline
                    )
                )
            except sqlite3.IntegrityError:  # the reference exists: nothing was written
                return False, self._balance_inline(inline, account_id)
            except WriteLockBusy:
                pass  # held for long (another process?): queue on the regular path
            else:
                metrics.count_ledger_entry(kind, amount)  # after the commit
                return True, balance
        try:
            async with self._db.write.begin() as conn:
                balance = await conn.scalar(
                    update(accounts)
                    .where(accounts.c.id == account_id, accounts.c.credits + amount >= 0)
                    .values(credits=accounts.c.credits + amount)
                    .returning(accounts.c.credits)
                )
                if balance is None:
                    raise InsufficientBalance(await self.balance(account_id, conn))
                await insert_entry(
                    conn, account_id, kind, amount, int(balance), reference, note, now
                )
                if also is not None:
                    await also.pooled(conn, int(balance))
        except IntegrityError:
            # The reference exists: the whole transaction, balance change included, rolled back.
            return False, await self.balance(account_id)
        metrics.count_ledger_entry(kind, amount)  # after the commit: only what really moved
        return True, int(balance)

    def _apply_inline(
        self,
        inline: InlineSqlite,
        account_id: str,
        kind: LedgerKind,
        amount: int,
        reference: str,
        note: str,
        now: datetime,
        also_inline: InlineWrite | None,
    ) -> int:
        """The entry's statements (in `InlineSqlite.write`'s savepoint); the new balance."""
        changed = inline.first(_CHANGE_BALANCE, account_id=account_id, amount=amount)
        if changed is None:
            raise InsufficientBalance(self._balance_inline(inline, account_id))
        balance = int(changed["credits"])
        inline.execute(
            _INSERT_ENTRY,
            account_id=account_id,
            kind=kind,
            amount=amount,
            balance_after=balance,
            reference=reference,
            note=note,
            created_at=now,
        )
        if also_inline is not None:
            also_inline(inline, balance)
        return balance

    @staticmethod
    def _balance_inline(inline: InlineSqlite, account_id: str) -> int:
        row = inline.first(_BALANCE, account_id=account_id)
        return 0 if row is None else int(row["credits"])

    async def balance(self, account_id: str, conn: AsyncConnection | None = None) -> int:
        query = select(accounts.c.credits).where(accounts.c.id == account_id)
        if conn is not None:
            return int(await conn.scalar(query) or 0)
        async with self._db.read.connect() as own:
            return int(await own.scalar(query) or 0)

    async def entry(self, reference: str) -> LedgerEntry | None:
        async with self._db.read.connect() as conn:
            row = (
                await conn.execute(select(ledger).where(ledger.c.reference == reference))
            ).first()
        return _entry(row._mapping) if row else None

    async def entries(self, account_id: str) -> list[LedgerEntry]:
        query = select(ledger).where(ledger.c.account_id == account_id).order_by(ledger.c.id)
        async with self._db.read.connect() as conn:
            return [_entry(row._mapping) for row in await conn.execute(query)]

    async def entries_since(self, account_id: str, since: datetime) -> list[LedgerEntry]:
        query = (
            select(ledger)
            .where(ledger.c.account_id == account_id, ledger.c.created_at >= since)
            .order_by(ledger.c.id)
        )
        async with self._db.read.connect() as conn:
            return [_entry(row._mapping) for row in await conn.execute(query)]
