"""Store fixtures: the migrated database (each of the two), accounts to charge, the local Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
from redis import Redis
from sqlalchemy.ext.asyncio import AsyncEngine

from carimg.domain.clock import FixedClock
from carimg.domain.ledger import Ledger
from carimg.store.accounts import AccountStore
from carimg.store.db import Database, migrate
from carimg.store.ledger import LedgerStore

NewAccount = Callable[..., Awaitable[str]]


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    """The migrated test database (SQLite file or the PostgreSQL test database)."""
    db = Database.open(database_url)
    await migrate(db.write)
    yield db
    await db.dispose()


@pytest.fixture
def engine(db: Database) -> AsyncEngine:
    """An engine for raw SQL in tests (the writing one: it also reads)."""
    return db.write


@pytest.fixture
def ledger_store(db: Database) -> LedgerStore:
    return LedgerStore(db)


@pytest.fixture
def ledger(ledger_store: LedgerStore, clock: FixedClock) -> Ledger:
    return Ledger(ledger_store, clock)


@pytest.fixture
def new_account(db: Database, clock: FixedClock) -> NewAccount:
    """Create an account with an opening balance; returns its id."""

    async def create(credits: int) -> str:
        account_id = f"acc_{uuid.uuid4().hex}"
        await AccountStore(db).create(
            account_id=account_id,
            email=f"{account_id}@example.com",
            plan="free",
            credits=credits,
            now=clock.now(),
        )
        return account_id

    return create


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix of this test's own; its keys are deleted afterwards."""
    prefix = f"carimg-test:{uuid.uuid4().hex}:"
    yield prefix
    client = Redis.from_url(redis_url)
    try:
        names = list(client.scan_iter(match=f"{prefix}*"))
        if names:
            client.delete(*names)
    finally:
        client.close()
