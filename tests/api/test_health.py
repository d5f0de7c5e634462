"""GET /api/health names each dependency's state: database, render cache, Redis, renderer."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.conftest import REDIS_URL
from tests.s3 import S3Server, s3_bucket, s3_server  # noqa: F401  (fixtures)


async def health(client: httpx.AsyncClient) -> dict[str, Any]:
    response = await client.get("/api/health")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body: dict[str, Any] = response.json()
    return body


async def test_health_names_the_database_the_render_cache_and_the_renderer(
    client: httpx.AsyncClient, database_url: str
) -> None:
    body = await health(client)
    assert body["status"] == "ok" and "failing" not in body
    assert set(body["checks"]) == {"catalog", "data_dir", "database", "render_cache", "renderer"}
    dependencies = body["dependencies"]
    expected = "sqlite" if database_url.startswith("sqlite") else "postgresql"
    assert dependencies["database"]["kind"] == expected
    assert dependencies["render_cache"] == dependencies["render_cache"] | {
        "state": "ok",
        "kind": "local",
    }
    assert dependencies["renderer"]["kind"] == "pool"
    assert all(entry["latency_ms"] >= 0 for entry in dependencies.values())


@pytest.mark.parametrize("overrides", [{"redis_url": REDIS_URL}])
async def test_a_configured_redis_is_probed(client: httpx.AsyncClient) -> None:
    body = await health(client)
    assert body["checks"]["redis"] == "ok"
    assert body["dependencies"]["redis"]["kind"] == "redis"


@pytest.mark.parametrize("overrides", [{"redis_url": "redis://127.0.0.1:9/0"}])
async def test_an_unreachable_redis_makes_the_service_degraded(client: httpx.AsyncClient) -> None:
    body = await health(client)
    assert body["status"] == "degraded"
    assert body["failing"] == ["redis"]
    assert body["checks"]["redis"].startswith("error")


@pytest.fixture
def overrides(request: pytest.FixtureRequest) -> dict[str, Any]:
    """S3 settings for the tests that ask for them (by name), else the parametrized value."""
    if "queue" in request.node.name:
        return {
            "redis_url": REDIS_URL,
            "render_queue": "redis",
            "render_queue_name": f"carimg-test:{uuid.uuid4().hex[:12]}",
        }
    if "s3" in request.node.name:
        server: S3Server = request.getfixturevalue("s3_server")
        bucket = "missing-bucket" if "missing" in request.node.name else None
        return server.settings(bucket or request.getfixturevalue("s3_bucket"))
    return getattr(request, "param", {})


async def test_an_s3_render_cache_is_probed(client: httpx.AsyncClient) -> None:
    body = await health(client)
    assert body["dependencies"]["render_cache"]["kind"] == "s3"
    assert body["checks"]["render_cache"] == "ok"


async def test_a_missing_s3_bucket_is_named_as_failing(client: httpx.AsyncClient) -> None:
    body = await health(client)
    assert body["status"] == "degraded"
    assert body["failing"] == ["render_cache"]


async def test_a_render_queue_is_named_with_its_depth(client: httpx.AsyncClient) -> None:
    body = await health(client)
    assert body["checks"]["renderer"] == "ok"
    assert body["dependencies"]["renderer"] | {"latency_ms": 0} == {
        "state": "ok",
        "kind": "queue",
        "depth": 0,
        "latency_ms": 0,
    }
