"""The database: one async engine for SQLite (default) or PostgreSQL, migrated by Alembic."""

from __future__ import annotations

import sqlite3
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiosqlite
from alembic import command
from alembic.config import Config
from sqlalchemy import Executable, Row, event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


class _InlineSqlite(aiosqlite.Connection):
    """aiosqlite's interface with each call run at once on the event loop's thread.

    aiosqlite hands every call (cursor, execute, fetch, close, rollback) to a thread of its own
    and back, and under load those hops cost far more than the statements. A WAL reader never
    waits for the writer, so a point lookup by a unique index finishes in microseconds: cheaper
    to run where it is asked for."""

    def __await__(self) -> Generator[Any, None, aiosqlite.Connection]:
        return self._connect().__await__()  # no worker thread

    async def _connect(self) -> aiosqlite.Connection:
        if self._connection is None:
            self._connection = self._connector()
        return self

    async def _execute(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def stop(self) -> None:
        self._running = False
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def _inline_sqlite(database: str, **kwargs: Any) -> aiosqlite.Connection:
    return _InlineSqlite(lambda: sqlite3.connect(database, **kwargs), 64)


def create_engine(
    url: str,
    *,
    pool_size: int = 8,
    max_overflow: int = 8,
    inline: bool = False,
    **connect_args: Any,
) -> AsyncEngine:
    """An async engine. SQLite gets WAL (readers never wait for the writer) and a busy timeout
    (writers queue instead of failing); write transactions start with their write statement, so
    they take the write lock first and never need to upgrade a read snapshot.

    `inline` (SQLite, reads only): statements run on the event loop's thread (see
    `_InlineSqlite`); its busy timeout is short, since waiting there would stall every request."""
    if is_sqlite(url):
        busy_ms = 1000 if inline else 30000
        if inline:
            connect_args = {"async_creator_fn": _inline_sqlite, **connect_args}
        engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=max_overflow,
            pool_timeout=60,
            connect_args={"timeout": busy_ms / 1000, **connect_args},
        )

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_async_engine(
        url, pool_size=10, max_overflow=20, pool_pre_ping=True, connect_args=connect_args
    )


@dataclass
class Database:
    """Where reads and writes go. On SQLite, writes share one connection so a process's writers
    queue in the pool instead of sleeping in SQLite's busy handler; reads use a pool (WAL lets
    them run beside the writer). On PostgreSQL all are one pooled engine.

    `lookup` serves the point reads every request makes (a key by its hash, a delivery URL by
    its token's): on SQLite they run inline on the event loop (see `_InlineSqlite`)."""

    read: AsyncEngine
    write: AsyncEngine
    lookup: AsyncEngine = field(default=None)  # type: ignore[assignment]  # set in __post_init__

    def __post_init__(self) -> None:
        if self.lookup is None:
            self.lookup = self.read

    @classmethod
    def open(cls, url: str) -> Database:
        if is_sqlite(url):
            return cls(
                read=create_engine(url),
                write=create_engine(url, pool_size=1, max_overflow=0),
                lookup=create_engine(url, pool_size=2, max_overflow=8, inline=True),
            )
        engine = create_engine(url)
        return cls(read=engine, write=engine)

    async def lookup_first(self, query: Executable) -> Row[Any] | None:
        """The first row of a point read on `lookup`. Closed explicitly rather than by `async
        with`, whose exit yields to the event loop (a shielded task) while still holding the
        connection: on the inline SQLite engine this whole call then never yields, so one
        pooled connection serves any number of concurrent requests."""
        conn = await self.lookup.connect()
        try:
            return (await conn.execute(query)).first()
        finally:
            await conn.close()

    async def dispose(self) -> None:
        for engine in {id(e): e for e in (self.write, self.read, self.lookup)}.values():
            await engine.dispose()


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema to the newest migration (idempotent)."""
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Server processes of a fleet start together: one migrates, the others wait for it
            # (the lock ends with this transaction) and then find nothing left to do.
            await connection.execute(text("SELECT pg_advisory_xact_lock(7242012)"))
        await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), "head"))
