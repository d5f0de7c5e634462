"""The counters contract, passed by both backends (in-process and Redis), and rate windows shared
by every process of a deployment when `CARIMG_REDIS_URL` is set."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path

import httpx
import pytest

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.render import RenderPool
from carimg.services import Services
from carimg.store.counters import Counters, MemoryCounters, RedisCounters
from tests.api.images_helpers import CAMRY, IMAGE_URL


@pytest.fixture(params=["memory", "redis"])
async def counters(request: pytest.FixtureRequest) -> AsyncIterator[Counters]:
    backend: Counters
    if request.param == "memory":
        backend = MemoryCounters()
    else:
        url: str = request.getfixturevalue("redis_url")
        backend = RedisCounters(url, prefix=request.getfixturevalue("redis_prefix"))
    yield backend
    await backend.close()


def name() -> str:
    return f"k:{uuid.uuid4().hex[:8]}"


async def test_an_unknown_counter_is_zero(counters: Counters) -> None:
    assert await counters.get(name()) == 0


async def test_increments_return_the_running_total(counters: Counters) -> None:
    key = name()
    assert [await counters.incr(key, 1, 60) for _ in range(3)] == [1, 2, 3]
    assert await counters.incr(key, 5, 60) == 8
    assert await counters.get(key) == 8


async def test_a_negative_amount_gives_back(counters: Counters) -> None:
    key = name()
    await counters.incr(key, 3, 60)
    assert await counters.incr(key, -1, 60) == 2
    assert await counters.get(key) == 2


async def test_counters_are_independent(counters: Counters) -> None:
    first, second = name(), name()
    await counters.incr(first, 4, 60)
    assert await counters.incr(second, 1, 60) == 1
    assert await counters.get(first) == 4


async def test_concurrent_increments_are_atomic(counters: Counters) -> None:
    key = name()
    results = await asyncio.gather(*(counters.incr(key, 1, 60) for _ in range(200)))
    assert sorted(results) == list(range(1, 201))
    assert await counters.get(key) == 200


async def test_a_counter_expires_its_ttl_after_creation_not_after_the_last_increment(
    counters: Counters,
) -> None:
    key = name()
    await counters.incr(key, 1, 1)
    await asyncio.sleep(0.3)
    assert await counters.incr(key, 1, 1) == 2  # does not extend the expiry
    await asyncio.sleep(0.9)
    assert await counters.get(key) == 0
    assert await counters.incr(key, 1, 1) == 1  # a fresh counter


# -- rate windows shared through Redis ------------------------------------------------------------

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def two_apps(
    stack: AsyncExitStack, settings: Settings, catalog: Catalog, clock: FixedClock
) -> tuple[list[httpx.AsyncClient], dict[str, str]]:
    """Two server processes' worth of services on one database; a key of a new account."""
    clients: list[httpx.AsyncClient] = []
    for _ in range(2):
        app = create_app(settings, catalog=catalog, clock=clock, render_pool=RenderPool(0))
        await stack.enter_async_context(app.router.lifespan_context(app))
        transport = httpx.ASGITransport(app=app)
        client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        clients.append(await stack.enter_async_context(client))
    services: Services = app.state.services
    account = await services.accounts.create_account(f"{uuid.uuid4().hex[:8]}@example.com")
    key, _ = await services.accounts.create_key(account)
    return clients, {"Authorization": f"Bearer {key}", "If-None-Match": "*"}


def app_settings(tmp_path: Path, database_url: str, redis_url: str | None) -> Settings:
    return Settings(
        data_dir=tmp_path / "var",
        database_url=database_url,
        base_url="http://testserver",
        render_workers=0,
        redis_url=redis_url,
    )


@SQLITE_ONLY
async def test_rate_windows_configured_with_redis_are_shared_by_two_apps(
    tmp_path: Path, database_url: str, catalog: Catalog, clock: FixedClock, redis_url: str
) -> None:
    async with AsyncExitStack() as stack:
        settings = app_settings(tmp_path, database_url, redis_url)
        (first, second), headers = await two_apps(stack, settings, catalog, clock)
        for _ in range(100):
            assert (await first.get(IMAGE_URL, params=CAMRY, headers=headers)).status_code == 304
        response = await second.get(IMAGE_URL, params=CAMRY, headers=headers)
        assert response.status_code == 304
        assert response.headers["ratelimit-remaining"] == "19"  # 120 - 101: the count continued
        for _ in range(19):
            assert (await second.get(IMAGE_URL, params=CAMRY, headers=headers)).status_code == 304
        for client in (second, first):
            limited = await client.get(IMAGE_URL, params=CAMRY, headers=headers)
            assert limited.status_code == 429
            assert limited.headers["ratelimit-remaining"] == "0"


@SQLITE_ONLY
async def test_without_redis_each_app_counts_its_own_window(
    tmp_path: Path, database_url: str, catalog: Catalog, clock: FixedClock
) -> None:
    """The in-process default (one server process): the contrast the Redis setting exists for."""
    async with AsyncExitStack() as stack:
        settings = app_settings(tmp_path, database_url, None)
        clients, headers = await two_apps(stack, settings, catalog, clock)
        remaining = [
            (await client.get(IMAGE_URL, params=CAMRY, headers=headers)).headers[
                "ratelimit-remaining"
            ]
            for client in clients
        ]
        assert remaining == ["119", "119"]
