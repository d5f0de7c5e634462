"""`carimg serve --workers N` (granian) or plain uvicorn workers: the same app, the same load.

Run: `.venv/bin/python bench/servers.py [--workers 3]` — uvicorn is no dependency of carimg's
own (the MCP SDK installs it). Needs wrk, PostgreSQL (CARIMG_TEST_POSTGRES; a fresh database is
created and dropped) and Redis at CARIMG_BENCH_REDIS (default redis://127.0.0.1:6379/11; only
keys of fresh accounts are written).

Both servers run the fleet configuration (PostgreSQL, Redis counters) with N processes; wrk
(2 threads, 50 connections, 10 s, loopback) loads the keyed image endpoint for one cached variant
(authenticated, counted in the key's rate windows, one credit charged) and an unlimited delivery
URL. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from fleet import free_port, postgres_database

REDIS_URL = os.environ.get("CARIMG_BENCH_REDIS", "redis://127.0.0.1:6379/11")
VARIANT = {"make": "toyota", "model": "camry", "year": 2020, "size": "small"}
KEYED = """
request = function()
  return wrk.format("GET", nil, {["Authorization"] = "Bearer %s"})
end
"""


async def prepare(database_url: str) -> str:
    from carimg.domain.accounts import Accounts
    from carimg.domain.clock import SystemClock
    from carimg.store.accounts import AccountStore
    from carimg.store.db import Database, migrate
    from carimg.store.ledger import LedgerStore

    db = Database.open(database_url)
    try:
        await migrate(db.write)
        accounts = Accounts(AccountStore(db), LedgerStore(db), SystemClock())
        account = await accounts.create_account(
            f"servers-{time.time_ns()}@example.com", credits=10_000_000, plan="enterprise"
        )
        key, _ = await accounts.create_key(account, rate_limit_per_minute=1_000_000)
        return key
    finally:
        await db.dispose()


def wrk(url: str, script: Path | None = None) -> tuple[float, str, str]:
    command = ["wrk", "-t2", "-c50", "-d10s", "--latency", url]
    if script is not None:
        command[1:1] = ["-s", str(script)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1)  # type: ignore[union-attr]
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)  # type: ignore[union-attr]
    return rate, p50, p99


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="carimg-servers-"))
    rows = []
    with postgres_database() as database_url:
        key = asyncio.run(prepare(database_url))
        script = work / "keyed.lua"
        script.write_text(KEYED % key)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "CARIMG_DATABASE_URL": database_url,
            "CARIMG_REDIS_URL": REDIS_URL,
            "CARIMG_DATA_DIR": str(work / "var"),
            "CARIMG_BASE_URL": base,
            "CARIMG_SECRET_KEY": "servers-bench",
            "CARIMG_LOG_LEVEL": "warning",
            "CARIMG_DAILY_RENDER_CEILING": "1000000",
        }
        servers = {
            f"carimg serve, granian ({args.workers} workers)": [
                sys.executable, "-m", "carimg", "serve", "--port", str(port),
                "--workers", str(args.workers),
            ],
            f"plain uvicorn ({args.workers} workers)": [
                sys.executable, "-m", "uvicorn", "--factory", "--host", "127.0.0.1",
                "--port", str(port), "--workers", str(args.workers), "--log-level", "warning",
                "--no-access-log", "carimg.app:create_app_from_env",
            ],
        }  # fmt: skip
        for name, command in servers.items():
            process = subprocess.Popen(command, env=env)
            try:
                for _ in range(600):
                    try:
                        if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                            break
                    except httpx.TransportError:
                        time.sleep(0.2)
                headers = {"Authorization": f"Bearer {key}"}
                image = f"{base}/api/v1/images/car?" + str(httpx.QueryParams(VARIANT))
                httpx.get(image, headers=headers, timeout=120).raise_for_status()
                minted = httpx.post(
                    f"{base}/api/v1/image-urls", json={"images": [VARIANT]}, headers=headers
                )
                minted.raise_for_status()
                delivery = minted.json()["data"][0]["url"]
                httpx.get(delivery, timeout=60).raise_for_status()
                keyed = wrk(image, script)
                url = wrk(delivery)
                rows.append(
                    f"| {name} | {keyed[0]:.0f} req/s (p50 {keyed[1]}, p99 {keyed[2]}) | "
                    f"{url[0]:.0f} req/s (p50 {url[1]}, p99 {url[2]}) |"
                )
                print(rows[-1], flush=True)
            finally:
                process.terminate()
                process.wait(timeout=60)
    print("\n| server | keyed image (billed) | delivery URL |\n|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
