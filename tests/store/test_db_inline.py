"""The inline SQLite path: the point reads and the debit every paid request makes."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import threading
from collections.abc import Callable
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import bindparam, select, update

from carimg.domain.clock import FixedClock
from carimg.store.db import Database
from carimg.store.inline import (
    OTHER_PROCESSES_SECONDS,
    READ_WAIT_SECONDS,
    InlineSqlite,
    ReadCache,
    Statement,
    WriteLockBusy,
    sql_datetime,
)
from carimg.store.ledger import LedgerStore
from carimg.store.tables import accounts
from tests.store.conftest import NewAccount

STATUS = Statement(select(accounts.c.status).where(accounts.c.id == bindparam("id")))
PLAN = Statement(select(accounts.c.plan).where(accounts.c.id == bindparam("id")))
SET_PLAN = Statement(
    update(accounts).where(accounts.c.id == bindparam("id")).values(plan=bindparam("plan_name"))
)
CREATED = Statement(select(accounts.c.created_at).where(accounts.c.id == bindparam("id")))


# The inline connection is SQLite's (PostgreSQL reads and writes through its pool).
sqlite_only = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
def inline(db: Database, database_url: str) -> InlineSqlite:
    """The database's inline connection (tests using it are `sqlite_only`)."""
    assert db.inline is not None
    return db.inline


async def test_point_read_sees_a_commit_from_another_connection_at_once(
    db: Database, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    assert await db.first(STATUS, id=account_id) == {"status": "active"}
    async with db.write.begin() as conn:
        await conn.execute(
            update(accounts).where(accounts.c.id == account_id).values(status="suspended")
        )
    assert await db.first(STATUS, id=account_id) == {"status": "suspended"}


async def test_point_read_of_a_missing_row_is_none(db: Database) -> None:
    assert await db.first(STATUS, id="acc_missing") is None


async def test_point_reads_give_aware_utc_datetimes_as_the_engine_does(
    db: Database, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    async with db.read.connect() as conn:
        expected = await conn.scalar(
            select(accounts.c.created_at).where(accounts.c.id == account_id)
        )
    row = await db.first(CREATED, id=account_id)
    assert row == {"created_at": expected}
    assert expected is not None and expected.utcoffset() is not None


async def test_sqlite_point_reads_run_on_the_loop_without_a_thread(
    db: Database, database_url: str, new_account: NewAccount
) -> None:
    if not database_url.startswith("sqlite"):
        assert db.inline is None  # PostgreSQL: the pooled read engine
        return
    account_id = await new_account(1)
    threads = threading.active_count()
    rows = await asyncio.gather(*(db.first(STATUS, id=account_id) for _ in range(50)))
    assert rows == [{"status": "active"}] * 50
    assert threading.active_count() == threads


@sqlite_only
async def test_inline_write_gives_up_unwritten_when_another_connection_keeps_the_lock(
    db: Database, inline: InlineSqlite, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    ran: list[bool] = []
    loop = asyncio.get_running_loop()
    async with db.write.begin() as conn:
        await conn.execute(update(accounts).where(accounts.c.id == account_id).values(credits=7))
        started = loop.time()
        with pytest.raises(WriteLockBusy):
            await inline.write(lambda: ran.append(True), patience=0.05)
    assert ran == []
    # it waited from the loop for its own patience, never in SQLite's busy handler
    assert loop.time() - started < READ_WAIT_SECONDS / 2


def test_the_inline_connection_opens_while_another_process_holds_the_database_a_moment(
    tmp_path: Path,
) -> None:
    """As when the last process using the database closes it (a checkpoint under an exclusive
    lock) just as the next one starts: `carimg admin` commands run side by side."""
    path = str(tmp_path / "held.db")
    with closing(sqlite3.connect(path)) as setup:
        setup.execute("PRAGMA journal_mode=WAL")
        setup.execute("CREATE TABLE t (x)")
    holder = sqlite3.connect(path, check_same_thread=False)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("SELECT * FROM t").fetchall()  # takes the database exclusively
    release = threading.Timer(0.2, holder.close)
    release.start()
    inline = InlineSqlite(path)
    release.join()
    assert inline._conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    inline.close()


@sqlite_only
async def test_writes_of_one_loop_turn_share_one_commit(
    db: Database, inline: InlineSqlite, new_account: NewAccount, clock: FixedClock
) -> None:
    account_id = await new_account(100)
    statements: list[str] = []
    inline._conn.set_trace_callback(statements.append)
    store = LedgerStore(db)
    results = await asyncio.gather(
        *(
            store.apply(account_id, "debit", -1, f"debit:test:{n}", now=clock.now())
            for n in range(20)
        )
    )
    assert sorted(balance for _, balance in results) == list(range(80, 100))
    assert statements.count("COMMIT") == 1
    assert statements.count("SAVEPOINT work") == 20


@sqlite_only
async def test_a_failing_write_is_undone_alone(
    db: Database, inline: InlineSqlite, new_account: NewAccount
) -> None:
    ids = [await new_account(100) for _ in range(3)]

    def set_plan(account_id: str, fail: bool = False) -> int:
        changed = inline.execute(SET_PLAN, id=account_id, plan_name="pro")
        if fail:
            raise LookupError("this request's write fails")
        return changed

    outcomes = await asyncio.gather(
        inline.write(lambda: set_plan(ids[0])),
        inline.write(lambda: set_plan(ids[1], fail=True)),
        inline.write(lambda: set_plan(ids[2])),
        return_exceptions=True,
    )
    assert outcomes[0] == 1 and outcomes[2] == 1
    assert isinstance(outcomes[1], LookupError)
    plans = [await db.first(PLAN, id=account_id) for account_id in ids]
    assert plans == [{"plan": "pro"}, {"plan": "free"}, {"plan": "pro"}]


@sqlite_only
async def test_a_write_whose_request_is_gone_writes_nothing(
    inline: InlineSqlite, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    ran: list[bool] = []
    task = asyncio.create_task(inline.write(lambda: ran.append(True)))
    await asyncio.sleep(0)  # the write is queued for this turn's batch
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    assert ran == []


@sqlite_only
async def test_a_debit_queues_on_the_regular_path_while_another_connection_writes(
    db: Database, database_url: str, new_account: NewAccount, clock: FixedClock
) -> None:
    account_id = await new_account(100)
    holding = asyncio.Event()

    async def hold_the_write_lock() -> None:
        async with db.write.begin() as conn:
            await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(plan="pro")
            )
            holding.set()
            await asyncio.sleep(0.2)

    holder = asyncio.create_task(hold_the_write_lock())
    await holding.wait()
    applied, balance = await LedgerStore(db).apply(
        account_id, "debit", -1, "debit:test:queued", now=clock.now()
    )
    await holder
    assert (applied, balance) == (True, 99)
    assert await db.first(STATUS, id=account_id) == {"status": "active"}


def _plan_cache(
    inline: InlineSqlite, account_id: str, *, fresh: bool = False
) -> tuple[ReadCache[str], Any]:
    cache: ReadCache[str] = ReadCache(inline, ("accounts",), fresh=fresh)

    def plan() -> str | None:
        row = inline.first(PLAN, id=account_id)
        return None if row is None else str(row["plan"])

    return cache, plan


@sqlite_only
async def test_a_cached_row_is_read_again_after_this_connection_writes_its_table(
    inline: InlineSqlite, new_account: NewAccount
) -> None:
    account_id = await new_account(100)
    cache, plan = _plan_cache(inline, account_id)
    assert cache.read(account_id, plan) == "free"
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    assert cache.read(account_id, plan) == "pro"


class _Monotonic:
    """`time` for carimg.store.inline: a monotonic clock that moves only when told."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def inline_clock(monkeypatch: pytest.MonkeyPatch) -> _Monotonic:
    clock = _Monotonic()
    monkeypatch.setattr("carimg.store.inline.time", clock)
    return clock


async def _set_plan_pooled(db: Database, account_id: str, plan: str) -> None:
    """A write on this process's pooled connection (not the inline one)."""
    async with db.write.begin() as conn:
        await conn.execute(update(accounts).where(accounts.c.id == account_id).values(plan=plan))


async def _cached_then_written_pooled(
    db: Database, inline: InlineSqlite, account_id: str
) -> ReadCache[str]:
    """The plan cached, then changed on the pooled connection with no time passing (within
    the bound): the cache reads the change at once, and holds it."""
    cache, plan = _plan_cache(inline, account_id)
    assert cache.read(account_id, plan) == "free"
    await _set_plan_pooled(db, account_id, "pro")
    assert cache.read(account_id, plan) == "pro"
    return cache


@sqlite_only
async def test_a_cached_row_is_read_again_at_once_after_a_pooled_write_of_this_process(
    db: Database, inline: InlineSqlite, new_account: NewAccount, inline_clock: _Monotonic
) -> None:
    await _cached_then_written_pooled(db, inline, await new_account(100))


@sqlite_only
async def test_rows_cached_after_a_pooled_write_stay_cached_once_the_bound_passes(
    db: Database, inline: InlineSqlite, new_account: NewAccount, inline_clock: _Monotonic
) -> None:
    """The pooled write is seen at once; its move of data_version must not evict again."""
    account_id = await new_account(100)
    cache = await _cached_then_written_pooled(db, inline, account_id)
    inline_clock.now += OTHER_PROCESSES_SECONDS * 1.01
    assert cache.read(account_id, lambda: pytest.fail("read again")) == "pro"


def _set_plan_in_another_process(inline: InlineSqlite, account_id: str, plan: str) -> None:
    with closing(sqlite3.connect(inline._path, isolation_level=None)) as other:
        other.execute("UPDATE accounts SET plan = ? WHERE id = ?", (plan, account_id))


@sqlite_only
async def test_another_process_commit_is_seen_once_the_other_processes_bound_has_passed(
    inline: InlineSqlite, new_account: NewAccount, inline_clock: _Monotonic
) -> None:
    account_id = await new_account(100)
    cache, plan = _plan_cache(inline, account_id)
    assert cache.read(account_id, plan) == "free"
    _set_plan_in_another_process(inline, account_id, "pro")
    assert cache.read(account_id, plan) == "free"  # within the bound: may still be the old row
    inline_clock.now += OTHER_PROCESSES_SECONDS * 1.01  # just past it
    assert cache.read(account_id, plan) == "pro"


@sqlite_only
async def test_a_fresh_cache_sees_another_process_commit_at_once(
    inline: InlineSqlite, new_account: NewAccount, inline_clock: _Monotonic
) -> None:
    """No time passes (the clock is frozen), yet the next read has the other process's row:
    as a key revoked by `carimg admin` or another worker is refused on the next request."""
    account_id = await new_account(100)
    cache, plan = _plan_cache(inline, account_id, fresh=True)
    assert cache.read(account_id, plan) == "free"
    _set_plan_in_another_process(inline, account_id, "pro")
    assert cache.read(account_id, plan) == "pro"


@sqlite_only
async def test_the_inline_connection_checkpoints_in_a_worker_thread(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id = await new_account(100)
    assert inline._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    monkeypatch.setattr("carimg.store.inline.CHECKPOINT_COMMITS", 3)
    threads: list[threading.Thread] = []
    checkpoint = InlineSqlite._checkpoint

    def recorded(self: InlineSqlite) -> None:
        threads.append(threading.current_thread())
        checkpoint(self)

    monkeypatch.setattr(InlineSqlite, "_checkpoint", recorded)
    for plan in ("pro", "free", "pro"):  # three commits
        await inline.write(lambda p=plan: inline.execute(SET_PLAN, id=account_id, plan_name=p))
    for _ in range(100):
        if threads:
            break
        await asyncio.sleep(0.01)
    assert threads and threads[0] is not threading.main_thread()


@sqlite_only
async def test_the_log_starts_over_under_a_steady_stream_of_writes(
    inline: InlineSqlite, monkeypatch: pytest.MonkeyPatch, database_url: str
) -> None:
    """Commits keep coming while each checkpoint copies the log (as under load, where it copies
    megabytes); the log still stays the size of the commits between two checkpoints instead
    of growing by every commit."""
    monkeypatch.setattr("carimg.store.inline.CHECKPOINT_COMMITS", 5)
    inline._conn.execute("CREATE TABLE filler (data BLOB)")
    blob = os.urandom(64_000)  # sixteen pages a write

    def fill() -> None:
        inline._conn.execute("INSERT INTO filler VALUES (?)", (blob,))

    log = Path(database_url.split("///", 1)[1] + "-wal")
    sizes = []
    for _ in range(100):
        await asyncio.gather(*(inline.write(fill) for _ in range(3)))
        sizes.append(log.stat().st_size)
    one_commit = sizes[0]
    assert max(sizes) <= 15 * one_commit  # growing, it would reach 100 commits' worth


def _held_checkpoint_passes(
    monkeypatch: pytest.MonkeyPatch, release: list[threading.Event], *, failing: int = -1
) -> list[int]:
    """`_checkpoint` waiting for `release[n]` before its pass n (0: the first; later passes
    run at once), raising in pass `failing`; the list returned gets each pass's number as it
    ends."""
    checkpoint = InlineSqlite._checkpoint
    passes: list[int] = []

    def held(self: InlineSqlite) -> None:
        number = len(passes)
        if number < len(release):
            release[number].wait(5)
        passes.append(number)
        if number == failing:
            raise sqlite3.OperationalError("disk I/O error")
        checkpoint(self)

    monkeypatch.setattr(InlineSqlite, "_checkpoint", held)
    monkeypatch.setattr("carimg.store.inline.CHECKPOINT_COMMITS", 1)
    return passes


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(200):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never held")


async def _second_pass_waiting(
    inline: InlineSqlite, account_id: str, release: list[threading.Event]
) -> None:
    """A commit starts the first pass, another comes while it runs; once the first pass ends,
    the second holds the writes back until `release[1]` is set."""
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="free"))
    release[0].set()
    await _until(lambda: inline._writes_held)


@sqlite_only
async def test_writes_go_on_while_the_first_checkpoint_pass_copies_the_log(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id = await new_account(100)
    release = [threading.Event(), threading.Event()]
    passes = _held_checkpoint_passes(monkeypatch, release)
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    changed = inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="free"))
    assert await asyncio.wait_for(changed, timeout=1) == 1  # while the first pass waits
    assert inline._checkpointing and not inline._writes_held and passes == []
    for event in release:
        event.set()
    await _until(lambda: not inline._checkpointing)
    assert passes[:2] == [0, 1]  # the commit made meanwhile was copied by a second pass


@sqlite_only
async def test_writes_wait_once_the_first_pass_falls_a_whole_checkpoint_behind(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As when the disk is slow or the checkpoint's thread starved: the log would grow by
    every commit made while the first pass runs, so they stop at CHECKPOINT_COMMITS (1 here)."""
    account_id = await new_account(100)
    release = [threading.Event(), threading.Event()]
    passes = _held_checkpoint_passes(monkeypatch, release)
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="free"))
    waiting = asyncio.ensure_future(
        inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    )
    await asyncio.sleep(0.05)
    assert not waiting.done() and passes == []
    for event in release:
        event.set()
    assert await asyncio.wait_for(waiting, timeout=5) == 1
    assert passes[:2] == [0, 1]


@sqlite_only
async def test_writes_wait_for_the_second_checkpoint_pass_then_commit_together(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Commits made during the first pass are copied by a second one, with writes held back,
    so the log can start over; the writes that waited then share one commit."""
    account_id = await new_account(100)
    release = [threading.Event(), threading.Event()]
    passes = _held_checkpoint_passes(monkeypatch, release)
    await _second_pass_waiting(inline, account_id, release)
    assert passes == [0]
    statements: list[str] = []
    inline._conn.set_trace_callback(statements.append)
    waiting = [
        asyncio.ensure_future(
            inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
        )
        for _ in range(3)
    ]
    await asyncio.sleep(0.05)
    assert not any(task.done() for task in waiting) and "COMMIT" not in statements
    release[1].set()
    await asyncio.gather(*waiting)
    assert passes[:2] == [0, 1] and statements.count("COMMIT") == 1


@sqlite_only
async def test_writes_held_for_a_second_pass_that_fails_still_commit(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id = await new_account(100)
    release = [threading.Event(), threading.Event()]
    _held_checkpoint_passes(monkeypatch, release, failing=1)
    await _second_pass_waiting(inline, account_id, release)
    waiting = inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))
    release[1].set()  # the second pass raises: a warning, and the writes go on
    assert await asyncio.wait_for(waiting, timeout=5) == 1
    assert inline.first(PLAN, id=account_id) == {"plan": "pro"}


@sqlite_only
async def test_a_reader_keeping_an_old_snapshot_does_not_hold_back_writes(
    inline: InlineSqlite,
    new_account: NewAccount,
    monkeypatch: pytest.MonkeyPatch,
    database_url: str,
) -> None:
    """A backup or a long query elsewhere keeps the log from starting over until it ends; the
    checkpoint does not wait for it, so neither do this connection's writes."""
    account_id = await new_account(100)
    monkeypatch.setattr("carimg.store.inline.CHECKPOINT_COMMITS", 1)
    with closing(sqlite3.connect(database_url.split("///", 1)[1], timeout=0)) as reader:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM accounts").fetchone()  # an open snapshot
        loop = asyncio.get_running_loop()
        started = loop.time()
        for plan in ("pro", "free", "pro", "free"):  # each commit starts a checkpoint
            await inline.write(lambda p=plan: inline.execute(SET_PLAN, id=account_id, plan_name=p))
        assert loop.time() - started < READ_WAIT_SECONDS / 2
        reader.execute("COMMIT")
    assert await inline.write(lambda: inline.execute(SET_PLAN, id=account_id, plan_name="pro"))


@sqlite_only
async def test_writes_go_on_when_a_checkpoint_cannot_start(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As while the process stops (its executor shut down): the commit stands, and later
    writes are not left waiting for a checkpoint that never ran."""
    account_id = await new_account(100)
    monkeypatch.setattr("carimg.store.inline.CHECKPOINT_COMMITS", 1)
    loop = asyncio.get_running_loop()

    def shut_down(*_: object) -> None:
        raise RuntimeError("cannot schedule new futures after shutdown")

    monkeypatch.setattr(loop, "run_in_executor", shut_down)
    for plan in ("pro", "free"):
        changed = inline.write(lambda p=plan: inline.execute(SET_PLAN, id=account_id, plan_name=p))
        assert await asyncio.wait_for(changed, timeout=5) == 1
    assert inline.first(PLAN, id=account_id) == {"plan": "free"}


@sqlite_only
async def test_a_write_after_the_connection_closed_fails_at_once(inline: InlineSqlite) -> None:
    """As a request still running while the process stops: an error, never a wait forever."""
    closed = InlineSqlite(inline._path)
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        await asyncio.wait_for(closed.write(lambda: None), timeout=1)


@sqlite_only
async def test_a_batch_that_cannot_begin_for_a_reason_other_than_the_lock_fails_its_writes(
    inline: InlineSqlite,
) -> None:
    broken = InlineSqlite(inline._path)
    broken._conn.close()  # BEGIN now fails with ProgrammingError, not a busy lock
    with pytest.raises(sqlite3.ProgrammingError):
        await asyncio.wait_for(broken.write(lambda: None), timeout=1)
    broken.close()


@sqlite_only
async def test_a_checkpoint_pass_ending_after_the_connection_closed_starts_no_other(
    inline: InlineSqlite, new_account: NewAccount, monkeypatch: pytest.MonkeyPatch
) -> None:
    account_id = await new_account(100)
    own = InlineSqlite(inline._path)
    release = [threading.Event()]
    passes = _held_checkpoint_passes(monkeypatch, release)
    await own.write(lambda: own.execute(SET_PLAN, id=account_id, plan_name="pro"))
    await own.write(lambda: own.execute(SET_PLAN, id=account_id, plan_name="free"))
    assert own._checkpointing and own._commits_in_pass == 1  # a second pass would be due
    own.close()
    release[0].set()
    await _until(lambda: not own._checkpointing)
    assert passes == [0]


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        (datetime(2026, 11, 23, 22, 19, 3, 123456, tzinfo=UTC), "2026-11-23 22:19:03.123456"),
        (datetime(2026, 11, 23, 22, 19, 3, tzinfo=UTC), "2026-11-23 22:19:03.000000"),
        (
            datetime(2026, 11, 23, 23, 19, 3, 5, tzinfo=timezone(timedelta(hours=1))),
            "2026-11-23 22:19:03.000005",
        ),
        (datetime(2026, 11, 23, 22, 19, 3, 5), "2026-11-23 22:19:03.000005"),  # naive: UTC
    ],
)
def test_datetimes_are_written_as_naive_utc_with_microseconds(value: datetime, stored: str) -> None:
    assert sql_datetime(value) == stored
