"""Migrations: a fresh SQLite database migrated by server processes started together, and
migrations that rebuild a table keeping its rows (on both databases)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import AsyncEngine

from carimg.store.db import _alembic_config, create_engine
from tests.conftest import _postgres

MIGRATE = """
import asyncio, sys
from carimg.store.db import create_engine, migrate

async def main() -> None:
    engine = create_engine(sys.argv[1])
    await migrate(engine)
    await engine.dispose()

asyncio.run(main())
"""


def test_processes_migrating_one_new_sqlite_database_at_once_all_succeed(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'carimg.db'}"
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", MIGRATE, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(6)
    ]
    failures = []
    for process in processes:
        _, stderr = process.communicate(timeout=120)
        if process.returncode != 0:
            failures.append(stderr.decode()[-300:])
    assert failures == []


@pytest.fixture(params=["sqlite", "postgres"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database no migration has run on, of each kind."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    process_database: str = request.getfixturevalue("postgres_url")  # skips without PostgreSQL
    name = f"carimg_migrations_{uuid.uuid4().hex[:12]}"
    asyncio.run(_postgres(f"CREATE DATABASE {name}"))
    yield f"{process_database.rsplit('/', 1)[0]}/{name}"
    asyncio.run(_postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def _to(engine: AsyncEngine, revision: str, *, down: bool = False) -> None:
    async with engine.begin() as connection:
        change = command.downgrade if down else command.upgrade
        await connection.run_sync(lambda sync: change(_alembic_config(sync), revision))


async def _deliveries(engine: AsyncEngine) -> tuple[list[str], list[tuple[str, str]]]:
    """The deliveries' key columns, in order, and their (request id, account) rows."""
    async with engine.connect() as connection:
        key = await connection.run_sync(
            lambda sync: inspect(sync).get_pk_constraint("deliveries")["constrained_columns"]
        )
        rows = await connection.execute(
            text("SELECT request_id, account_id FROM deliveries ORDER BY request_id")
        )
        return key, [(row[0], row[1]) for row in rows]


async def test_deliveries_migrations_change_the_key_and_keep_every_row_up_and_down(
    empty_database: str,
) -> None:
    engine = create_engine(empty_database)
    try:
        await _to(engine, "0009")
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO accounts (id, email, plan, status, credits, created_at) "
                    "VALUES ('acc_1', 'a@example.com', 'free', 'active', 1, CURRENT_TIMESTAMP)"
                )
            )
            for request_id in ("req_2", "req_1"):
                await connection.execute(
                    text(
                        "INSERT INTO deliveries (request_id, account_id, vehicle_id, view, "
                        "paint, created_at) VALUES (:request_id, 'acc_1', 'veh_1', 'side', "
                        "'#ffffff', CURRENT_TIMESTAMP)"
                    ),
                    {"request_id": request_id},
                )
        rows = [("req_1", "acc_1"), ("req_2", "acc_1")]
        assert await _deliveries(engine) == (["account_id", "request_id"], rows)
        await _to(engine, "head")
        assert await _deliveries(engine) == (["request_id", "account_id"], rows)
        await _to(engine, "0009", down=True)
        assert await _deliveries(engine) == (["account_id", "request_id"], rows)
        await _to(engine, "0006", down=True)  # before 0007: keyed by request id alone
        assert await _deliveries(engine) == (["request_id"], rows)
        await _to(engine, "head")
        assert await _deliveries(engine) == (["request_id", "account_id"], rows)
    finally:
        await engine.dispose()
