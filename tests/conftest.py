"""Shared fixtures: the bundled catalog, an isolated app per test on SQLite and on PostgreSQL,
an in-process client, and helpers to create accounts and keys."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from redis import Redis
from redis.exceptions import RedisError

from carimg.app import create_app
from carimg.catalog import Catalog, load_catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.render import RenderPool
from carimg.services import Services

# Fails the run when any log line (in process or of a started server) shows a secret.
pytest_plugins = ["tests.security.logscan"]

REDIS_URL = os.environ.get("CARIMG_TEST_REDIS", "redis://127.0.0.1:6379/15")
POSTGRES_ADMIN_URL = os.environ.get(
    "CARIMG_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
)


async def _postgres(statement: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=5)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@pytest.fixture
def redis_url() -> str:
    """The local Redis (database 15), or a skip saying why it cannot be used."""
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except (RedisError, OSError) as error:
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: {error}")
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A database of this test process's own on the local PostgreSQL server."""
    name = f"carimg_test_{uuid.uuid4().hex[:12]}"
    try:
        asyncio.run(_postgres(f"CREATE DATABASE {name}"))
    except (OSError, ImportError) as error:
        pytest.skip(f"PostgreSQL is not reachable at {POSTGRES_ADMIN_URL}: {error}")
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://")
    yield f"{base}/{name}"
    asyncio.run(_postgres(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def _truncate(url: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    try:
        tables = await connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
            "AND tablename <> 'alembic_version'"
        )
        if tables:
            names = ", ".join(row["tablename"] for row in tables)
            await connection.execute(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
    finally:
        await connection.close()


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'carimg.db'}"
    url: str = request.getfixturevalue("postgres_url")
    asyncio.run(_truncate(url))
    return url


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def overrides() -> dict[str, Any]:
    """Settings a test changes; parametrize `overrides` to change them."""
    return {}


@pytest.fixture(scope="session")
def shared_renders(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One render cache per test process: a variant renders once per run. Tests that need a
    cold render ask for a paint nobody else uses (`fresh_paint()`)."""
    return tmp_path_factory.getbasetemp() / "shared-renders"


@pytest.fixture
def settings(
    tmp_path: Path, database_url: str, shared_renders: Path, overrides: dict[str, Any]
) -> Settings:
    """Data per test (its own database and data directory); renders shared by the session."""
    return Settings(
        data_dir=tmp_path / "var",
        database_url=database_url,
        base_url="http://testserver",
        render_workers=0,
        render_cache_path=shared_renders,
        **overrides,
    )


@pytest.fixture
def app(settings: Settings, catalog: Catalog, clock: FixedClock) -> FastAPI:
    return create_app(settings, catalog=catalog, clock=clock, render_pool=RenderPool(0))


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


@pytest.fixture
def services(app: FastAPI, client: httpx.AsyncClient) -> Services:
    """The running app's services (the client fixture has started its lifespan)."""
    running: Services = app.state.services
    return running


@dataclass
class Customer:
    """An account with one key, as a test's client sees it."""

    account_id: str
    email: str
    key: str
    key_id: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@pytest.fixture
def make_customer(services: Services):  # type: ignore[no-untyped-def]
    async def create(
        *,
        credits: int = 100,
        plan: str = "free",
        scopes: tuple[str, ...] = ("images:read", "account:read"),
        origins: tuple[str, ...] = (),
    ) -> Customer:
        email = f"user-{uuid.uuid4().hex[:8]}@example.com"
        account = await services.accounts.create_account(email, credits=credits, plan=plan)
        key, record = await services.accounts.create_key(account, scopes=scopes, origins=origins)
        return Customer(account.id, email, key, record.id)

    return create


@pytest.fixture
async def customer(make_customer) -> Customer:  # type: ignore[no-untyped-def]
    customer: Customer = await make_customer()
    return customer
