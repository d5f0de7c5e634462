"""End to end: a fleet of two `carimg serve` processes and a `carimg worker` on PostgreSQL, Redis
and an S3 server (moto's). Requests on either process share one render per new variant, one rate
window per key and one idempotency record; a worker killed mid-render loses no charge."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import Server, free_port, wait_until_healthy
from tests.s3 import S3Server, s3_server  # noqa: F401  (fixture)

pytestmark = pytest.mark.e2e

REDIS_URL = os.environ.get("CARIMG_TEST_FLEET_REDIS", "redis://127.0.0.1:6379/12")
QUEUE_WAIT_S = 6  # a request waits this long for a worker, then 503 (refunded)
JOB_TIMEOUT_S = 4  # a job whose worker died is given to another worker after 4 + 2 s
IMAGE = "/api/v1/images/car"


def _redis_or_skip() -> None:
    from redis import Redis
    from redis.exceptions import RedisError

    try:
        with Redis.from_url(REDIS_URL, socket_connect_timeout=2) as redis:
            redis.ping()
    except (RedisError, OSError) as error:
        pytest.skip(f"the fleet needs Redis at {REDIS_URL}: {error}")


@dataclass
class Fleet:
    servers: list[Server]
    env: dict[str, str]
    worker_log: Path
    worker: subprocess.Popen[bytes]
    database_url: str
    tmp: Path

    def start_worker(self, *args: str, log: Path | None = None) -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "carimg", "worker", *args]
        with open(log or self.worker_log, "ab") as out:
            return subprocess.Popen(command, env=self.env, stderr=out, stdout=out)

    def renders_done(self, log: Path | None = None) -> int:
        return (log or self.worker_log).read_text().count("rendered source")

    def customer(self, credits: int = 100) -> dict[str, str]:
        """A new account with one key, written straight into the fleet's database."""
        return {"Authorization": f"Bearer {asyncio.run(_new_key(self.database_url, credits))}"}


async def _new_key(database_url: str, credits: int) -> str:
    from carimg.domain.accounts import Accounts
    from carimg.domain.clock import SystemClock
    from carimg.store.accounts import AccountStore
    from carimg.store.db import Database
    from carimg.store.ledger import LedgerStore

    db = Database.open(database_url)
    try:
        accounts = Accounts(AccountStore(db), LedgerStore(db), SystemClock())
        email = f"fleet-{uuid.uuid4().hex[:10]}@example.com"
        key, _ = await accounts.create_key(await accounts.create_account(email, credits=credits))
        return key
    finally:
        await db.dispose()


@pytest.fixture(scope="module")
def fleet(
    tmp_path_factory: pytest.TempPathFactory,
    postgres_url: str,
    s3_server: S3Server,  # noqa: F811
) -> Iterator[Fleet]:
    """Two server processes and one worker; started together (migrations take turns)."""
    _redis_or_skip()
    tmp = tmp_path_factory.mktemp("fleet")
    ports = [free_port(), free_port()]
    env = {
        **os.environ,
        **s3_server.env(s3_server.new_bucket()),
        "CARIMG_DATABASE_URL": postgres_url,
        "CARIMG_REDIS_URL": REDIS_URL,
        "CARIMG_RENDER_QUEUE": "redis",
        "CARIMG_RENDER_QUEUE_NAME": f"carimg-test:{uuid.uuid4().hex[:12]}",
        "CARIMG_RENDER_QUEUE_WAIT": str(QUEUE_WAIT_S),
        "CARIMG_RENDER_JOB_TIMEOUT": str(JOB_TIMEOUT_S),
        "CARIMG_SECRET_KEY": uuid.uuid4().hex,  # one deployment: every process signs alike
        "CARIMG_BASE_URL": f"http://127.0.0.1:{ports[0]}",
        "CARIMG_LOG_LEVEL": "info",
        "CARIMG_LOG_FORMAT": "text",
        "CARIMG_DATA_DIR": str(tmp / "var"),
    }
    processes: list[subprocess.Popen[bytes]] = []
    servers = []
    for port in ports:
        command = [sys.executable, "-m", "carimg", "serve", "--port", str(port)]
        with open(tmp / f"server-{port}.log", "ab") as out:
            processes.append(subprocess.Popen(command, env=env, stderr=out, stdout=out))
        servers.append(Server(f"http://127.0.0.1:{port}", tmp / "var", env))
    fleet = Fleet(servers, env, tmp / "worker.log", processes[0], postgres_url, tmp)
    fleet.worker = fleet.start_worker()
    processes.append(fleet.worker)
    try:
        for server, process in zip(servers, processes, strict=False):
            wait_until_healthy(server.url, process)
        yield fleet
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.terminate()
        for process in processes:
            process.wait(timeout=30)


async def _get_all(requests: list[tuple[str, dict[str, Any], dict[str, str]]]) -> list[Any]:
    async with httpx.AsyncClient(timeout=60) as client:
        return await asyncio.gather(*(client.get(u, params=p, headers=h) for u, p, h in requests))


def _fresh_variant() -> dict[str, Any]:
    paint = f"#{random.randrange(0x1000000):06x}"  # a variant nobody rendered
    return {"make": "toyota", "model": "camry", "year": 2020, "color": paint, "size": "small"}


def _credits(server: Server, headers: dict[str, str]) -> int:
    account = httpx.get(f"{server.url}/api/v1/account", headers=headers).json()
    return int(account["data"]["credits"])


def test_a_cold_render_asked_on_both_processes_renders_once(fleet: Fleet) -> None:
    headers = fleet.customer()
    params = _fresh_variant()
    before = fleet.renders_done()
    requests = [(f"{s.url}{IMAGE}", params, headers) for s in fleet.servers for _ in range(3)]
    responses = asyncio.run(_get_all(requests))
    assert [r.status_code for r in responses] == [200] * 6, responses[0].text
    assert len({r.content for r in responses}) == 1
    assert len({r.headers["etag"] for r in responses}) == 1
    assert fleet.renders_done() - before == 1  # one worker render for six requests
    assert _credits(fleet.servers[1], headers) == 100 - 6  # each delivery is one credit


def test_a_keys_rate_window_is_counted_across_both_processes(fleet: Fleet) -> None:
    headers = fleet.customer()
    if 60 - time.time() % 60 < 5:  # keep the requests inside one fixed minute window
        time.sleep(60 - time.time() % 60 + 0.5)
    remaining = []
    for index in range(6):
        server = fleet.servers[index % 2]
        response = httpx.get(f"{server.url}/api/v1/account", headers=headers)
        assert response.status_code == 200
        remaining.append(int(response.headers["ratelimit-remaining"]))
    assert remaining == [119, 118, 117, 116, 115, 114]  # one window, whichever process counts
    requests = [(f"{fleet.servers[i % 2].url}/api/v1/account", {}, headers) for i in range(114 + 4)]
    statuses = [r.status_code for r in asyncio.run(_get_all(requests))]
    assert statuses.count(200) == 114
    assert statuses.count(429) == 4


def test_an_idempotent_retry_on_the_other_process_replays_and_charges_once(fleet: Fleet) -> None:
    headers = {**fleet.customer(), "Idempotency-Key": f"order-{uuid.uuid4().hex}"}
    body = {"images": [{"make": "toyota", "model": "camry", "year": 2020, "size": "thumb"}]}
    first = httpx.post(f"{fleet.servers[0].url}/api/v1/image-urls", json=body, headers=headers)
    retry = httpx.post(f"{fleet.servers[1].url}/api/v1/image-urls", json=body, headers=headers)
    assert first.status_code == retry.status_code == 201, first.text
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.content == first.content
    assert _credits(fleet.servers[1], headers) == 99


def test_a_worker_killed_mid_render_refunds_the_waiting_request(fleet: Fleet) -> None:
    headers = fleet.customer()
    params = _fresh_variant()
    fleet.worker.send_signal(signal.SIGSTOP)  # only the slow worker takes the next job
    slow_log = fleet.tmp / "slow-worker.log"
    slow = fleet.start_worker("--render-delay", "3", log=slow_log)
    try:
        time.sleep(2.5)  # the slow worker is polling the queue
        server = fleet.servers[0]
        with httpx.Client(timeout=60) as client:
            started = time.monotonic()
            pending = _in_thread(lambda: client.get(f"{server.url}{IMAGE}", params=params,
                                                    headers=headers))  # fmt: skip
            time.sleep(1.5)  # the slow worker holds the job, mid-render
            slow.kill()
            slow.wait(timeout=10)
            answer = pending()
        assert answer.status_code == 503, answer.text
        assert answer.headers["content-type"] == "application/problem+json"
        assert time.monotonic() - started >= QUEUE_WAIT_S - 0.5
        assert fleet.renders_done(slow_log) == 0  # killed before it finished
        assert _credits(server, headers) == 100  # charged, then refunded: no loss, no gain
    finally:
        if slow.poll() is None:
            slow.kill()
        fleet.worker.send_signal(signal.SIGCONT)
    # The job is retried (or asked again); the next request is served and charged once.
    again = httpx.get(f"{fleet.servers[1].url}{IMAGE}", params=params, headers=headers, timeout=60)
    assert again.status_code == 200, again.text
    assert _credits(server, headers) == 99


def _in_thread(call: Any) -> Any:
    """Start `call` in a thread; returns a function that waits for its result."""
    import concurrent.futures

    executor = concurrent.futures.ThreadPoolExecutor(1)
    future = executor.submit(call)
    executor.shutdown(wait=False)
    return future.result
