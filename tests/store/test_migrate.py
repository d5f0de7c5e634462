"""Migrations of a fresh SQLite database by server processes started together."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
