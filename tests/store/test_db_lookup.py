"""The lookup engine: the point reads every request makes (a key, a delivery token)."""

from __future__ import annotations

import asyncio
import threading

from sqlalchemy import event, select, text, update

from carimg.store.db import Database
from carimg.store.tables import accounts
from tests.store.conftest import NewAccount


async def test_lookup_sees_a_commit_from_another_connection_at_once(
    db: Database, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    query = select(accounts.c.status).where(accounts.c.id == account_id)
    assert (await db.lookup_first(query)) == ("active",)
    async with db.write.begin() as conn:
        await conn.execute(
            update(accounts).where(accounts.c.id == account_id).values(status="suspended")
        )
    assert (await db.lookup_first(query)) == ("suspended",)


async def test_sqlite_lookups_share_one_connection_and_start_no_thread(
    db: Database, database_url: str
) -> None:
    if not database_url.startswith("sqlite"):
        assert db.lookup is db.read  # PostgreSQL: the pooled read engine
        return
    connects: list[object] = []
    event.listen(db.lookup.sync_engine, "connect", lambda *_: connects.append(1))
    await db.lookup_first(text("SELECT 1"))
    threads = threading.active_count()
    rows = await asyncio.gather(*(db.lookup_first(text("SELECT 1")) for _ in range(50)))
    assert rows == [(1,)] * 50
    assert len(connects) == 1
    assert threading.active_count() == threads
