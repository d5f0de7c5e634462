"""The database: one async engine for SQLite (default) or PostgreSQL, migrated by Alembic."""

from __future__ import annotations

import asyncio
import fcntl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import event, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from carimg.store.inline import InlineSqlite, Statement, WriteLockBusy

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def create_engine(
    url: str, *, pool_size: int = 8, max_overflow: int = 8, **connect_args: Any
) -> AsyncEngine:
    """An async engine. SQLite gets WAL (readers never wait for the writer) and a busy timeout
    (writers queue instead of failing); write transactions start with their write statement, so
    they take the write lock first and never need to upgrade a read snapshot."""
    if is_sqlite(url):
        busy_ms = 30000
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

    `inline` (SQLite files only) runs the statements every paid request makes on the event
    loop's thread with the stdlib driver (see `carimg.store.inline`)."""

    read: AsyncEngine
    write: AsyncEngine
    inline: InlineSqlite | None = None

    @classmethod
    def open(cls, url: str) -> Database:
        if is_sqlite(url):
            write = create_engine(url, pool_size=1, max_overflow=0)
            inline = InlineSqlite.for_url(url)
            if inline is not None:
                # a write transaction ends by returning its connection: the inline connection's
                # cached rows must see it at once (other processes' commits within a moment)
                event.listen(write.sync_engine.pool, "checkin", lambda *_: inline.pool_wrote())
            return cls(read=create_engine(url), write=write, inline=inline)
        engine = create_engine(url)
        return cls(read=engine, write=engine)

    async def first(self, statement: Statement, **params: Any) -> dict[str, Any] | None:
        """The first row of a point read: inline on SQLite, pooled elsewhere."""
        if self.inline is not None:
            return self.inline.first(statement, **params)
        async with self.read.connect() as conn:
            row = (await conn.execute(statement.core, statement.literals | params)).first()
        return None if row is None else dict(row._mapping)

    async def change(self, statement: Statement, **params: Any) -> int:
        """One write statement in a transaction of its own; the number of rows it changed."""
        inline = self.inline
        if inline is not None:
            try:
                return await inline.write(lambda: inline.execute(statement, **params))
            except WriteLockBusy:
                pass  # held for long (another process?): queue on the pooled connection
        async with self.write.begin() as conn:
            result = await conn.execute(statement.core, statement.literals | params)
        return int(result.rowcount)

    async def dispose(self) -> None:
        if self.inline is not None:
            self.inline.close()
        for engine in {id(e): e for e in (self.write, self.read)}.values():
            await engine.dispose()


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def migrate(engine: AsyncEngine) -> None:
    """Bring the schema to the newest migration (idempotent). Server processes started
    together (`serve --workers N`) migrate one at a time; the others then find nothing to do."""
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if database and database != ":memory:":
        # SQLite runs DDL outside a transaction: a lock file beside the database serialises it
        with open(f"{database}.migrate-lock", "a") as lock:
            await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
            try:
                await _upgrade(engine)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        return
    await _upgrade(engine)


async def _upgrade(engine: AsyncEngine) -> None:
    async with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # the lock ends with this transaction
            await connection.execute(text("SELECT pg_advisory_xact_lock(7242012)"))
        await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), "head"))
