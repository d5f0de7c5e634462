"""The key-and-account read every authenticated request makes, and what keeps it true."""

from __future__ import annotations

import pytest
from sqlalchemy import bindparam, update

from carimg.domain.clock import FixedClock
from carimg.domain.keys import key_hash, new_key
from carimg.store.accounts import AccountStore
from carimg.store.db import Database
from carimg.store.inline import Statement
from carimg.store.ledger import BALANCE_ONLY, LedgerStore
from carimg.store.records import ApiKey
from carimg.store.tables import accounts
from tests.store.conftest import NewAccount

sqlite_only = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
SET_PLAN = Statement(
    update(accounts).where(accounts.c.id == bindparam("id")).values(plan=bindparam("plan_name"))
)


async def _keyed_account(db: Database, new_account: NewAccount, clock: FixedClock) -> str:
    """A new account with 100 credits and one key; returns the key's hash."""
    account_id = await new_account(100)
    plaintext = new_key()
    key = ApiKey(
        id=f"key_{account_id[4:24]}",
        account_id=account_id,
        name="test",
        prefix=plaintext[:12],
        scopes=("images:read",),
        origins=(),
        created_at=clock.now(),
        revoked_at=None,
    )
    await AccountStore(db).add_key(key, key_hash(plaintext), max_active=10)
    return key_hash(plaintext)


@pytest.mark.parametrize(
    ("field", "before", "after"), [("status", "active", "suspended"), ("plan", "free", "pro")]
)
async def test_an_account_change_is_seen_by_the_next_read(
    db: Database,
    new_account: NewAccount,
    clock: FixedClock,
    field: str,
    before: str,
    after: str,
) -> None:
    """A suspension or a plan change holds from the very next request."""
    digest = await _keyed_account(db, new_account, clock)
    store = AccountStore(db)
    found = await store.key_with_account(digest)
    assert found is not None and getattr(found[1], field) == before
    change = {"status": store.set_status, "plan": store.set_plan}[field]
    await change(found[1].id, after)
    again = await store.key_with_account(digest)
    assert again is not None and getattr(again[1], field) == after


@sqlite_only
async def test_a_debit_leaves_the_account_read_cached(
    db: Database, new_account: NewAccount, clock: FixedClock
) -> None:
    digest = await _keyed_account(db, new_account, clock)
    store = AccountStore(db)
    found = await store.key_with_account(digest)
    assert found is not None and db.inline is not None
    statements: list[str] = []
    db.inline._conn.set_trace_callback(statements.append)
    applied, balance = await LedgerStore(db).apply(
        found[1].id, "debit", -1, "debit:test:cached", now=clock.now()
    )
    assert (applied, balance) == (True, 99)
    statements.clear()
    assert await store.key_with_account(digest) == found
    assert not [sql for sql in statements if sql.startswith("SELECT")]


@sqlite_only
async def test_another_write_to_accounts_on_the_inline_connection_is_read_again(
    db: Database, new_account: NewAccount, clock: FixedClock
) -> None:
    digest = await _keyed_account(db, new_account, clock)
    store = AccountStore(db)
    found = await store.key_with_account(digest)
    inline = db.inline
    assert found is not None and inline is not None
    account_id = found[1].id
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="business"))
    again = await store.key_with_account(digest)
    assert again is not None and again[1].plan == "business"


def test_a_statement_writes_its_table_unless_it_names_the_part_it_changes() -> None:
    balance = update(accounts).values(credits=accounts.c.credits + bindparam("amount"))
    assert Statement(balance).writes == "accounts"
    assert Statement(balance, writes=BALANCE_ONLY).writes == BALANCE_ONLY
