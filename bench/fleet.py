"""Load and faults against a carimg fleet, then the ledger checked from the database.

Run: `.venv/bin/python bench/fleet.py [--clients 200] [--seconds 30]` (loopback only; bounded in
time: three phases of `--seconds` each plus start-up, about two minutes with the defaults).

Needs PostgreSQL (CARIMG_TEST_POSTGRES, default postgresql://postgres@127.0.0.1:5432/test: a
fresh database is created and dropped) and `redis-server` on PATH: the bench starts its OWN Redis
on a free port (it restarts it as a fault; the shared instance on 6379 is never touched).

Phases, each `--clients` concurrent clients of paid images, idempotent URL minting and capped
URL loads for `--seconds`:
  1. one `carimg serve` process on SQLite, renders in process (the embedded default);
  2. the fleet: `carimg serve --workers 3` + 2 `carimg worker` on PostgreSQL + Redis;
  3. the fleet again with faults: one worker fails half of its renders (a hidden test-only flag),
     a worker is killed mid-run (and started again), Redis is restarted (data lost), clients drop
     their connection mid-response.
Then, for each database: every account's balance equals grants - debits + refunds; every image
debit is either a delivery or refunded (never both, never neither); no capped URL served beyond
its cap (by the database and by the clients' own count); no idempotency key charged twice; every
5xx the clients saw either refunded or never charged. Prints a Markdown report (for
bench/RESULTS.md) and exits 1 on any discrepancy.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

POSTGRES_ADMIN_URL = os.environ.get(
    "CARIMG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
)
HOT = [  # variants rendered before the clock starts: the steady state of a deployment
    {"make": make, "model": model, "year": year, "view": view, "color": color, "size": "small"}
    for make, model, year in (("toyota", "camry", 2020), ("ford", "f-150", 2021))
    for view in ("front-3-4", "side")
    for color in ("red", "silver", "blue")
]
COLD_SHARE = 0.03  # of image requests: a paint nobody asked for yet (a new render)
CREDITS = 100_000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# -- processes ------------------------------------------------------------------------------


@dataclass
class Deployment:
    name: str
    url: str
    env: dict[str, str]
    database_url: str
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    logs: Path = Path(".")

    def start(self, name: str, *args: str) -> None:
        out = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - the process owns it
        self.processes[name] = subprocess.Popen(
            [sys.executable, "-m", "carimg", *args], env=self.env, stdout=out, stderr=out
        )

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                process.kill()

    def wait_healthy(self, seconds: float = 90) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        raise RuntimeError(f"{self.name} did not become healthy (logs in {self.logs})")


class RedisServer:
    """A Redis of the bench's own, on a free port, that the bench may restart."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.directory)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        for _ in range(100):
            if subprocess.run(["redis-cli", "-p", str(self.port), "ping"],
                              capture_output=True).stdout.strip() == b"PONG":  # fmt: skip
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"],
                           capture_output=True)  # fmt: skip
            self.process.wait(timeout=10)


@contextmanager
def postgres_database() -> Iterator[str]:
    import asyncpg

    name = f"carimg_bench_{uuid.uuid4().hex[:10]}"

    async def run(statement: str) -> None:
        connection = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=5)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run(f"CREATE DATABASE {name}"))
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    try:
        yield f"{base}/{name}"
    finally:
        asyncio.run(run(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


# -- accounts -------------------------------------------------------------------------------


async def seed(database_url: str, clients: int, per_account: int = 5) -> list[str]:
    """Enterprise accounts (so rate windows rarely bite), `per_account` clients' keys each."""
    from carimg.domain.accounts import Accounts
    from carimg.domain.clock import SystemClock
    from carimg.store.accounts import AccountStore
    from carimg.store.db import Database, migrate
    from carimg.store.ledger import LedgerStore

    db = Database.open(database_url)
    try:
        await migrate(db.write)
        accounts = Accounts(AccountStore(db), LedgerStore(db), SystemClock())
        keys = []
        for index in range(0, clients, per_account):
            account = await accounts.create_account(
                f"bench-{index}-{uuid.uuid4().hex[:6]}@example.com",
                credits=CREDITS,
                plan="enterprise",
            )
            for _ in range(min(per_account, clients - index)):
                keys.append((await accounts.create_key(account))[0])
        return keys
    finally:
        await db.dispose()


# -- load -----------------------------------------------------------------------------------


@dataclass
class Tally:
    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)
    server_errors: list[tuple[str, str]] = field(default_factory=list)  # (action, request id)
    mints: dict[str, set[bytes]] = field(default_factory=dict)  # idempotency key -> bodies
    loads: Counter[str] = field(default_factory=Counter)  # URL -> 200 loads seen
    caps: dict[str, int] = field(default_factory=dict)
    disconnects: int = 0
    transport_errors: Counter[str] = field(default_factory=Counter)
    faults: list[str] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0

    @property
    def requests(self) -> int:
        return sum(self.statuses.values())


class Client:
    def __init__(
        self, index: int, url: str, key: str, http: httpx.AsyncClient, tally: Tally, faults: bool
    ) -> None:
        self.index, self.url, self.http, self.tally, self.faults = index, url, http, tally, faults
        self.headers = {"Authorization": f"Bearer {key}"}
        self.key = key
        self.rng = random.Random(index)
        self.count = 0
        self.urls: list[str] = []

    def request_id(self) -> str:
        self.count += 1
        return f"bench-{self.index}-{self.count}-{uuid.uuid4().hex[:6]}"

    async def call(self, action: str, method: str, path: str, **kwargs: Any) -> httpx.Response:
        rid = self.request_id()
        headers = {**kwargs.pop("headers", self.headers), "X-Request-Id": rid}
        response = await self.http.request(method, path, headers=headers, **kwargs)
        self.tally.statuses[(action, response.status_code)] += 1
        if response.status_code >= 500:
            self.tally.server_errors.append((action, rid))
        return response

    def variant(self) -> dict[str, Any]:
        if self.rng.random() < COLD_SHARE:
            return {**HOT[0], "color": f"#{self.rng.randrange(0x1000000):06x}"}
        return self.rng.choice(HOT)

    async def run(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            roll = self.rng.random()
            try:
                if roll < 0.5:
                    await self.call("image", "GET", "/api/v1/images/car", params=self.variant())
                elif roll < 0.7:
                    await self.mint()
                elif roll < 0.95 and self.urls:
                    await self.load(self.rng.choice(self.urls))
                elif self.faults:
                    await self.disconnect()
                else:
                    await self.call("image", "GET", "/api/v1/images/car", params=self.variant())
            except httpx.TransportError as error:
                self.tally.transport_errors[type(error).__name__] += 1
                await asyncio.sleep(0.2)

    async def mint(self) -> None:
        """Mint 2 capped URLs under an Idempotency-Key; retry the same key a third of the time."""
        key = f"bench-{uuid.uuid4().hex}"
        body = {"images": [self.variant(), self.rng.choice(HOT)], "max_uses": 3}
        for _ in range(2 if self.rng.random() < 0.33 else 1):
            response = await self.call(
                "mint", "POST", "/api/v1/image-urls", json=body,
                headers={**self.headers, "Idempotency-Key": key},
            )  # fmt: skip
            if response.status_code == 201:
                self.tally.mints.setdefault(key, set()).add(response.content)
                for item in response.json()["data"]:
                    self.tally.caps[item["url"]] = 3
                    self.urls.append(item["url"])
        if len(self.urls) > 20:
            del self.urls[:10]

    async def load(self, url: str) -> None:
        response = await self.call("load", "GET", url, headers={})
        if response.status_code == 200:
            self.tally.loads[url] += 1

    async def disconnect(self) -> None:
        """Ask for an image (sometimes a new render) and hang up before the answer is read."""
        host, port = self.url.removeprefix("http://").split(":")
        params = httpx.QueryParams(self.variant())
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(
            f"GET /api/v1/images/car?{params} HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {self.key}\r\n"
            f"X-Request-Id: {self.request_id()}\r\n\r\n".encode()
        )
        await writer.drain()
        with_reply = self.rng.random() < 0.5
        try:
            if with_reply:  # mid-response: the status line arrived, the body did not
                await asyncio.wait_for(reader.readline(), 10)
            else:  # before the response: the server may still be rendering
                await asyncio.sleep(self.rng.uniform(0.0, 0.3))
        except TimeoutError:
            pass
        writer.transport.abort()
        self.tally.disconnects += 1


async def load(url: str, keys: list[str], seconds: float, faults: bool) -> Tally:
    tally = Tally()
    limits = httpx.Limits(max_connections=len(keys) + 10, max_keepalive_connections=len(keys))
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:
        clients = [Client(i, url, key, http, tally, faults) for i, key in enumerate(keys)]
        tally.started = time.monotonic()
        deadline = tally.started + seconds
        await asyncio.gather(*(client.run(deadline) for client in clients))
        tally.ended = time.monotonic()
    return tally


async def warm(url: str, key: str) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=120) as http:
        for params in HOT:
            response = await http.get(
                "/api/v1/images/car", params=params, headers={"Authorization": f"Bearer {key}"}
            )
            response.raise_for_status()


# -- faults ---------------------------------------------------------------------------------


async def inject_faults(
    fleet: Deployment, redis: RedisServer, seconds: float, tally: Tally
) -> None:
    start = time.monotonic()

    async def at(fraction: float) -> None:
        await asyncio.sleep(max(0.0, start + seconds * fraction - time.monotonic()))

    def note(text: str) -> None:
        tally.faults.append(f"t={time.monotonic() - start:4.1f} s: {text}")

    await at(0.25)
    fleet.processes["worker-1"].send_signal(signal.SIGKILL)
    note("worker-1 killed (SIGKILL), renders in flight abandoned")
    await at(0.4)
    fleet.start("worker-1", "worker")
    note("worker-1 started again")
    await at(0.55)
    redis.stop()
    note("Redis shut down (nosave: queue, rate windows and budgets lost)")
    await asyncio.sleep(2)
    redis.start()
    note("Redis started again, empty")


# -- checks ---------------------------------------------------------------------------------


async def check_ledger(database_url: str, tally: Tally) -> dict[str, int]:
    """Discrepancies found in the database, by rule (all zero when nothing was lost)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    engine = create_async_engine(database_url)
    async with engine.connect() as conn:

        async def rows(sql: str) -> list[Any]:
            return list((await conn.execute(text(sql))).all())

        accounts = await rows("SELECT id, credits FROM accounts")
        ledger = await rows("SELECT account_id, kind, amount, reference, note FROM ledger")
        delivered = {(a, r) for a, r in await rows("SELECT account_id, request_id FROM deliveries")}
        urls = await rows("SELECT id, max_uses, uses, state, delivered FROM delivery_urls")
        idempotent = await rows("SELECT count(*) FROM idempotency WHERE status = 201")
    await engine.dispose()

    sums: Counter[tuple[str, str]] = Counter()
    for account_id, kind, amount, _, _ in ledger:
        sums[(account_id, "in" if kind in ("grant", "purchase", "refund") else kind)] += amount
    amounts = {reference: amount for _, _, amount, reference, _ in ledger}
    refunded = {reference.removeprefix("refund:") for _, kind, _, reference, _ in ledger
                if kind == "refund"}  # fmt: skip
    image_debits = {  # request id -> (account, debit reference)
        note.rsplit(" ", 1)[-1]: (account_id, reference)
        for account_id, kind, _, reference, note in ledger
        if kind == "debit" and reference.startswith("debit:image:")
    }
    return {
        "balance != grants - debits + refunds": sum(
            1 for account_id, credits in accounts
            if credits != sums[(account_id, "in")] + sums[(account_id, "debit")]
        ),
        "image debits both delivered and refunded, or neither": sum(
            1 for rid, (account_id, reference) in image_debits.items()
            if (reference in refunded) == ((account_id, rid) in delivered)
        ),
        "refunds without a debit, or larger than it": sum(
            1 for _, kind, amount, reference, _ in ledger
            if kind == "refund" and reference.startswith("refund:debit:")
            and -amounts.get(reference.removeprefix("refund:"), 0) < amount
        ),
        "capped URLs served past their cap": sum(1 for _, cap, uses, _, _ in urls
                                                 if cap and uses > cap),
        "failed first loads not refunded, or refunded and delivered": sum(
            1 for url_id, _, _, state, was_delivered in urls
            if (state == "consumed") != (f"url:{url_id}" in refunded)
            or (f"url:{url_id}" in refunded and was_delivered)
        ),
        "URL debits beyond their idempotent records (a key charged twice)": sum(
            1 for _, kind, _, reference, _ in ledger
            if kind == "debit" and reference.startswith("debit:urls:")
        ) - int(idempotent[0][0]),
        "5xx image answers charged and not refunded": sum(
            1 for action, rid in tally.server_errors
            if action == "image" and rid in image_debits
            and image_debits[rid][1] not in refunded
        ),
        "capped URLs loaded past their cap (clients' count)": sum(
            1 for url, loads in tally.loads.items() if loads > tally.caps[url]
        ),
        "idempotency keys answered with two different bodies": sum(
            1 for bodies in tally.mints.values() if len(bodies) > 1
        ),
    }  # fmt: skip


# -- report ---------------------------------------------------------------------------------


def report(name: str, tally: Tally, found: dict[str, int]) -> str:
    seconds = tally.ended - tally.started
    by_status = Counter[int]()
    for (_, status), n in tally.statuses.items():
        by_status[status] += n
    lines = [
        f"### {name}",
        "",
        f"- requests answered: {tally.requests} in {seconds:.1f} s = "
        f"**{tally.requests / seconds:.0f} req/s**; transport errors "
        f"{dict(tally.transport_errors) or 0}; "
        f"connections dropped by clients {tally.disconnects}",
        "- by status: " + ", ".join(f"{s}: {n}" for s, n in sorted(by_status.items())),
        "- by action: "
        + ", ".join(f"{a} {s}: {n}" for (a, s), n in sorted(tally.statuses.items())),
        f"- idempotency keys: {len(tally.mints)}; capped URLs loaded: {len(tally.loads)}",
    ]
    if tally.faults:
        lines.append("- faults: " + "; ".join(tally.faults))
    lines += ["", "| check | discrepancies |", "|---|---|"]
    lines += [f"| {rule} | {n} |" for rule, n in found.items()]
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--server-workers", type=int, default=3)
    parser.add_argument("--render-workers", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        print("redis-server is not on PATH", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="carimg-fleet-"))
    base_env = {
        **os.environ,
        "CARIMG_LOG_LEVEL": "warning",
        "CARIMG_SECRET_KEY": uuid.uuid4().hex,
        "CARIMG_DAILY_RENDER_CEILING": "100000",
    }
    sections: list[str] = []
    failed = False

    # 1. one process on SQLite
    port = free_port()
    single = Deployment(
        "1 process, SQLite, renders in process",
        f"http://127.0.0.1:{port}",
        {**base_env, "CARIMG_DATA_DIR": str(work / "single"), "CARIMG_BASE_URL":
         f"http://127.0.0.1:{port}"},
        f"sqlite+aiosqlite:///{work / 'single' / 'carimg.db'}",
        logs=work,
    )  # fmt: skip
    (work / "single").mkdir()
    keys = asyncio.run(seed(single.database_url, args.clients))
    single.start("single", "serve", "--port", str(port))
    try:
        single.wait_healthy()
        asyncio.run(warm(single.url, keys[0]))
        tally = asyncio.run(load(single.url, keys, args.seconds, faults=False))
        found = asyncio.run(check_ledger(single.database_url, tally))
    finally:
        single.stop()
    failed |= any(found.values())
    sections.append(report(single.name, tally, found))
    print(sections[-1], flush=True)

    # 2 and 3. the fleet
    redis = RedisServer(work)
    redis.start()
    with postgres_database() as database_url:
        port = free_port()
        fleet = Deployment(
            f"fleet: {args.server_workers} server processes + {args.render_workers} render "
            "workers, PostgreSQL + Redis",
            f"http://127.0.0.1:{port}",
            {
                **base_env,
                "CARIMG_DATA_DIR": str(work / "fleet"),
                "CARIMG_BASE_URL": f"http://127.0.0.1:{port}",
                "CARIMG_DATABASE_URL": database_url,
                "CARIMG_REDIS_URL": redis.url,
                "CARIMG_RENDER_QUEUE": "redis",
                "CARIMG_RENDER_QUEUE_WAIT": "10",
                "CARIMG_RENDER_JOB_TIMEOUT": "8",
            },
            database_url,
            logs=work,
        )
        keys = asyncio.run(seed(database_url, args.clients))
        fleet.start("serve", "serve", "--port", str(port), "--workers", str(args.server_workers))
        fleet.start("worker-1", "worker")
        try:
            fleet.wait_healthy()
            asyncio.run(warm(fleet.url, keys[0]))
            for name, faults in (("", False), (", with faults", True)):
                if faults:  # worker-2 from now on fails half of its renders
                    fleet.processes["worker-2"].terminate()
                    fleet.processes["worker-2"].wait(timeout=30)
                    fleet.start("worker-2", "worker", "--fail-fraction", "0.5")
                else:
                    fleet.start("worker-2", "worker")

                async def phase(faults: bool = faults) -> Tally:
                    if not faults:
                        return await load(fleet.url, keys, args.seconds, faults=False)
                    tally = Tally()
                    loaded, _ = await asyncio.gather(
                        load(fleet.url, keys, args.seconds, faults=True),
                        inject_faults(fleet, redis, args.seconds, tally),
                    )
                    loaded.faults = tally.faults
                    return loaded

                tally = asyncio.run(phase())
                found = asyncio.run(check_ledger(database_url, tally))
                failed |= any(found.values())
                sections.append(report(fleet.name + name, tally, found))
                print(sections[-1], flush=True)
        finally:
            fleet.stop()
            redis.stop()
    print(f"(logs in {work})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
