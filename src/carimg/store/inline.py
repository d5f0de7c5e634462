"""The statements every paid request makes, as plain sqlite3 calls on the event loop's thread.

Through SQLAlchemy's async engine each statement costs tens of microseconds of compiling,
pooling, thread hops and result processing; the statements themselves take a few. So the hot
ones (a key by its hash, a delivery URL by its token's hash, the image debit) are written once as
Core statements, compiled once here to SQLite's SQL, and run with the stdlib driver:

- reads never wait for writers: in WAL a reader sees every commit made before its statement
  starts. They wait (up to READ_WAIT_SECONDS) only through the moments another process holds
  the whole database: WAL recovery when it opens, the last connection's checkpoint as it closes;
- writes are grouped: the writes of one event-loop turn share one transaction, each in a
  savepoint of its own, so a burst of paid requests pays for one commit;
- a write never waits inside SQLite (busy timeout 0), which would stall the event loop: while
  another connection holds the write lock, the batch retries from the loop;
- WAL checkpoints (copying the log into the database file) run in a worker thread: a first
  pass copies the log while writes go on; when there were any, a second pass, while this
  connection's writes wait, copies the little they added meanwhile, so each checkpoint
  finishes and the log starts over: under a steady stream of writes the log stays a few
  megabytes instead of growing without end, and writes wait only for that second pass (or
  for a first pass that falls far behind them);
- `ReadCache` keeps the rows every request reads while no connection has committed anything
  that could change them (another process's commit is seen within 5 ms, or at once by a
  `fresh` cache).

No statement yields to the event loop halfway, so one connection serves every request of a
process (a write waits only for its batch's commit).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import ClauseElement, Executable
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.sql.expression import ColumnElement

from carimg.store.tables import UtcDateTime

logger = logging.getLogger("carimg.store")
# A checkpoint runs after this many commits or writes, whichever comes first: about the 1,000
# pages (4 MB) of log at which SQLite's own would run (a commit writes a few pages, and each
# paid request in it about three more), so the log stays bounded without slowing the writes.
CHECKPOINT_COMMITS = 200
CHECKPOINT_WRITES = 300
READ_WAIT_SECONDS = 5.0  # SQLite's busy timeout for everything but taking the write lock
# How long another process's commit may go unseen by `ReadCache`: `PRAGMA data_version` costs
# file-lock system calls (as much as the rest of a cached delivery load, and under granian more:
# the call lets go of the GIL, and granian's threads take it), so it is read at most this often,
# not per request. This process's own connections are seen at once.
OTHER_PROCESSES_SECONDS = 0.005
_READ_WAIT = f"PRAGMA busy_timeout={int(READ_WAIT_SECONDS * 1000)}"
_CLOSED = "the database was closed"
T = TypeVar("T")
V = TypeVar("V")
_DIALECT = sqlite.dialect(paramstyle="named")


class WriteLockBusy(Exception):
    """Another connection holds SQLite's write lock; nothing was written."""


def sql_datetime(value: datetime) -> str:
    """A datetime as SQLAlchemy stores it on SQLite (naive UTC, always with microseconds)."""
    if value.tzinfo is UTC:  # the clock's: its ISO form less "+00:00" (a paid request makes two)
        return value.isoformat(" ", "microseconds")[:-6]
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value.isoformat(" ", "microseconds")


def _utc(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value).replace(tzinfo=UTC)


class Statement:
    """A Core statement compiled once for SQLite, with named parameters (an INSERT's are its
    `columns`); rows come back as dicts keyed by column name, UtcDateTime columns as aware
    datetimes, and datetime parameters go in as SQLAlchemy would store them.

    `writes` is what a `ReadCache` sees the statement change: its table, unless it names a
    part of one that no cache holds (such a statement must change nothing else)."""

    def __init__(
        self,
        statement: ClauseElement,
        columns: Sequence[str] | None = None,
        *,
        writes: str | None = None,
    ) -> None:
        self.core = cast(Executable, statement)
        compiled = statement.compile(dialect=_DIALECT, column_keys=columns)
        self.sql = str(compiled)
        self.literals = {name: v for name, v in compiled.params.items() if v is not None}
        selected: list[ColumnElement[Any]] = list(getattr(statement, "exported_columns", ()))
        self.names = tuple(str(column.key) for column in selected)
        self._times = tuple(
            str(column.key) for column in selected if isinstance(column.type, UtcDateTime)
        )
        written = getattr(statement, "table", None)  # INSERT, UPDATE, DELETE
        self.writes: str | None = None if written is None else writes or str(written.name)

    def row(self, values: tuple[Any, ...]) -> dict[str, Any]:
        row = dict(zip(self.names, values, strict=True))
        for name in self._times:
            row[name] = _utc(row[name])
        return row


def _bound(statement: Statement, params: dict[str, Any]) -> dict[str, Any]:
    bound = statement.literals | params
    for name, value in params.items():
        if isinstance(value, datetime):
            bound[name] = sql_datetime(value)
    return bound


class InlineSqlite:
    """One stdlib connection to the SQLite database, used only from the event loop's thread."""

    def __init__(self, path: str) -> None:
        self._conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=READ_WAIT_SECONDS
        )
        # wal_autocheckpoint=0: this connection's commits never copy the log into the database
        # file on the event loop (a checkpoint writes and syncs megabytes); `_checkpoint` does
        # it in a worker thread instead.
        for pragma in (
            "journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL", "wal_autocheckpoint=0"
        ):  # fmt: skip
            self._conn.execute(f"PRAGMA {pragma}")
        self._path = path
        self._commits_unchecked = 0  # commits since the last checkpoint began
        self._writes_unchecked = 0  # and the writes in them
        self._checkpointing = False  # a checkpoint pass is running
        self._writes_held = False  # its second pass: this connection's writes wait for it
        self._commits_in_pass = 0  # this connection's commits since the pass began
        self._writes_in_pass = 0  # and the writes in them
        self._closed = False
        self._pending: list[tuple[Callable[[], Any], asyncio.Future[Any]]] = []
        self._written: set[str] = set()  # tables written in the open transaction
        self._commits: Counter[str] = Counter()  # commits that wrote each table
        self._data_version = 0  # `PRAGMA data_version`, as last read
        self._data_version_read = -OTHER_PROCESSES_SECONDS  # when (time.monotonic())
        self._pool_writes = 0  # see `pool_wrote`
        self._versions: dict[tuple[str, ...], tuple[int, ...]] = {}  # `version`'s, made once
        self._waiting_since = 0.0
        self._patience = 0.0

    @classmethod
    def for_url(cls, url: str) -> InlineSqlite | None:
        """For a SQLite file URL; None for in-memory databases (nothing to share)."""
        database = make_url(url).database
        if not database or database == ":memory:":
            return None
        return cls(database)

    def first(self, statement: Statement, **params: Any) -> dict[str, Any] | None:
        if statement.writes is not None:  # UPDATE … RETURNING
            self._written.add(statement.writes)
        values = self._conn.execute(statement.sql, _bound(statement, params)).fetchone()
        return None if values is None else statement.row(values)

    def execute(self, statement: Statement, **params: Any) -> int:
        """Run a write statement; returns the number of rows it changed."""
        if statement.writes is not None:
            self._written.add(statement.writes)
        return self._conn.execute(statement.sql, _bound(statement, params)).rowcount

    def version(self, tables: tuple[str, ...], *, fresh: bool = False) -> tuple[int, ...]:
        """Numbers that move whenever `tables` may have changed: another process's commit
        (`PRAGMA data_version`, read at most every OTHER_PROCESSES_SECONDS, or now when
        `fresh`), a commit of this process's pooled connections (`pool_wrote`) or of this one
        that wrote them. Made once per change: each cached request asks for it."""
        now = time.monotonic()
        if fresh or now - self._data_version_read >= OTHER_PROCESSES_SECONDS:
            data_version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            self._data_version_read = now  # only once read: a failed read is tried again
            if data_version != self._data_version:
                self._data_version = data_version
                self._versions.clear()
        known = self._versions.get(tables)
        if known is None:
            known = self._versions[tables] = (
                self._data_version,
                self._pool_writes,
                *map(self._commits.__getitem__, tables),
            )
        return known

    def pool_wrote(self) -> None:
        """A pooled connection of this process has ended a transaction (perhaps a commit):
        rows read before may have changed (called by `Database`, see store/db). Its commit
        also moves `PRAGMA data_version`, read again at the next `version` so that rows cached
        after it are not evicted a second time for the same commit once the bound has passed."""
        self._pool_writes += 1
        self._data_version_read = -OTHER_PROCESSES_SECONDS
        self._versions.clear()

    async def write(self, work: Callable[[], T], patience: float = 5.0) -> T:
        """Run `work()` (its statements, no transaction of its own) in a savepoint of the one
        transaction that the writes of this event-loop turn share (group commit: one commit
        for many requests). Returns its result once that transaction is committed, or raises
        its exception with its own statements undone.

        While another connection holds the write lock (a transaction spanning loop turns, or
        another process) the batch waits from the loop, never in SQLite's busy handler; after
        `patience` seconds it gives up with WriteLockBusy, nothing written."""
        if self._closed:  # nothing would ever run it
            raise RuntimeError(_CLOSED)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        if not self._pending:
            self._waiting_since = loop.time()
            self._patience = patience
            loop.call_soon(self._flush, 0.0001)
        self._pending.append((work, future))
        return await future

    def _flush(self, pause: float) -> None:
        if not self._pending or self._writes_wait():
            return  # nothing to write, or `_checkpoint_done` flushes
        loop = asyncio.get_running_loop()
        try:
            self._begin_immediate()
        except sqlite3.Error as error:  # busy, or anything else (a closed connection)
            busy = isinstance(error, sqlite3.OperationalError) and (
                "locked" in str(error) or "busy" in str(error)
            )
            if not busy:
                self._fail_pending(error)
            elif loop.time() - self._waiting_since > self._patience:
                self._fail_pending(WriteLockBusy(str(error)))
            else:
                loop.call_later(pause, self._flush, min(pause * 2, 0.002))
            return
        batch, self._pending = self._pending, []
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        try:
            for work, future in batch:
                if future.cancelled():  # its request is gone: write nothing for it
                    continue
                self._conn.execute("SAVEPOINT work")
                try:
                    outcomes.append((future, work(), None))
                except Exception as error:
                    self._conn.execute("ROLLBACK TO work")
                    outcomes.append((future, None, error))
                self._conn.execute("RELEASE work")
            self._conn.execute("COMMIT")
            self._commits.update(self._written)
            self._versions.clear()
            self._written.clear()
        except BaseException as failure:  # the commit failed: nothing of the batch was written
            self._conn.execute("ROLLBACK")
            self._written.clear()
            outcomes = [(future, None, failure) for _, future in batch]
        else:
            self._after_commit(loop, len(batch))
        for future, result, raised in outcomes:
            if future.done():
                continue
            if raised is None:
                future.set_result(result)
            else:
                future.set_exception(raised)

    def _writes_wait(self) -> bool:
        """While a checkpoint's second pass runs, and while its first pass has fallen as far
        behind as the commits or writes that start a checkpoint (a slow disk, a starved
        thread): the checkpoint must not fall behind new commits for long, or the log grows.
        So the log holds at most about twice what starts a checkpoint."""
        return self._writes_held or (
            self._checkpointing
            and (
                self._commits_in_pass >= CHECKPOINT_COMMITS
                or self._writes_in_pass >= CHECKPOINT_WRITES
            )
        )

    def _begin_immediate(self) -> None:
        """Take the write lock now or fail: waiting for it in SQLite's busy handler would stall
        the event loop (`_flush` retries from the loop instead)."""
        self._conn.execute("PRAGMA busy_timeout=0")
        try:
            self._conn.execute("BEGIN IMMEDIATE")
        finally:
            self._conn.execute(_READ_WAIT)

    def _after_commit(self, loop: asyncio.AbstractEventLoop, writes: int) -> None:
        """Now and then copy the write-ahead log into the database file, from a worker thread
        (what SQLite's automatic checkpoint would do on this thread, stalling the loop)."""
        self._commits_unchecked += 1
        self._writes_unchecked += writes
        self._commits_in_pass += 1
        self._writes_in_pass += writes
        if self._checkpointing or (
            self._commits_unchecked < CHECKPOINT_COMMITS
            and self._writes_unchecked < CHECKPOINT_WRITES
        ):
            return
        self._commits_unchecked = self._writes_unchecked = 0
        self._start_checkpoint(loop, hold_writes=False)

    def _start_checkpoint(self, loop: asyncio.AbstractEventLoop, *, hold_writes: bool) -> None:
        """A checkpoint pass in a worker thread; with `hold_writes`, this connection's batches
        wait for it (see `_flush`)."""
        try:
            running = loop.run_in_executor(None, self._checkpoint)
        except RuntimeError as error:  # the executor is shut down: the process is stopping
            logger.warning("WAL checkpoint not started: %s", error)
            self._checkpoint_done()
            return
        self._checkpointing, self._writes_held = True, hold_writes
        self._commits_in_pass = self._writes_in_pass = 0
        if hold_writes:  # the commits of the first pass are copied by this one
            self._commits_unchecked = self._writes_unchecked = 0
        running.add_done_callback(lambda done: self._checkpointed(done, second=hold_writes))

    def _checkpoint(self) -> None:
        """PASSIVE: copy the frames no reader still needs, waiting for nobody. The first pass
        copies while this connection's commits go on and add frames; when there were any, a
        second copies those with the commits held back, usually every frame left, and this
        connection's next commit then writes the log from its start (in place: the file is
        neither cut nor grown again). A checkpoint that new commits always overtake never
        catches up, and the log would grow by every commit while writes keep coming. A reader
        that keeps an old snapshot open (a backup, a long query) holds the log back until it
        ends, as it would SQLite's own checkpoint; it never holds back the writes."""
        with closing(sqlite3.connect(self._path, timeout=READ_WAIT_SECONDS)) as conn:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _checkpointed(self, done: asyncio.Future[None], *, second: bool) -> None:
        if done.cancelled() or self._closed:
            pass
        elif done.exception() is not None:
            logger.warning("WAL checkpoint failed: %s", done.exception())
        elif not second and self._commits_in_pass:  # commits came meanwhile: copy those too
            self._start_checkpoint(asyncio.get_running_loop(), hold_writes=True)
            return
        self._checkpoint_done()

    def _checkpoint_done(self) -> None:
        self._checkpointing = self._writes_held = False
        if self._pending:  # a batch that waited for it, its patience counted from now
            self._waiting_since = asyncio.get_running_loop().time()
            self._flush(0.0001)

    def _fail_pending(self, error: BaseException) -> None:
        batch, self._pending = self._pending, []
        for _, future in batch:
            if not future.done():
                future.set_exception(error)

    def close(self) -> None:
        self._closed = True  # a checkpoint pass still running starts no other
        self._fail_pending(RuntimeError(_CLOSED))
        self._conn.close()


class ReadCache(Generic[V]):
    """Rows read on the inline connection, kept while no connection has committed anything
    that could change them (see `InlineSqlite.version`): an exact cache, bounded in size."""

    def __init__(
        self,
        inline: InlineSqlite,
        tables: Sequence[str],
        limit: int = 20_000,
        *,
        fresh: bool = False,
    ) -> None:
        self.inline = inline
        self._tables = tuple(tables)
        self._fresh = fresh  # see another process's commits at once, not within 5 ms
        self._limit = limit
        self._rows: dict[str, V] = {}
        self._version: tuple[int, ...] = ()

    def snapshot(self) -> tuple[int, ...]:
        """A value that stays equal while no row this cache could hold has changed."""
        return self.inline.version(self._tables, fresh=self._fresh)

    def peek(self, key: str) -> V | None:
        """The row cached under `key` while it is unchanged; None when it is not cached."""
        version = self.inline.version(self._tables, fresh=self._fresh)
        if version != self._version:
            self._rows.clear()
            self._version = version
        return self._rows.get(key)

    def read(self, key: str, load: Callable[[], V | None]) -> V | None:
        """The row cached under `key`, or `load()` (an inline read: nothing runs in between)."""
        row = self.peek(key)
        if row is None:
            row = load()
            if row is not None:
                if len(self._rows) >= self._limit:
                    self._rows.clear()
                self._rows[key] = row
        return row
