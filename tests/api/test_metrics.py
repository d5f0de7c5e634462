"""GET /metrics: requests by route template and status, latency, renders, cache, credits."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY

from carimg import metrics
from carimg.services import Services
from tests.api.delivery_helpers import RenderCalls
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint
from tests.conftest import REDIS_URL, Customer


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """Metrics do not depend on the engine: SQLite only."""
    return f"sqlite+aiosqlite:///{tmp_path / 'carimg.db'}"


def sample(name: str, **labels: str) -> float:
    metrics.tally.flush()  # what /metrics does first: updates wait for the loop turn's end
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_requests_are_counted_by_route_template_never_by_path(
    client: httpx.AsyncClient,
) -> None:
    labels = {"method": "GET", "route": "/api/v1/delivery/{token}", "status": "403"}
    before = sample("carimg_http_requests_total", **labels)
    await client.get("/api/v1/delivery/tok-secret-123")
    assert sample("carimg_http_requests_total", **labels) == before + 1
    exposition = (await client.get("/metrics")).text
    assert "tok-secret-123" not in exposition


async def test_unknown_paths_share_one_label(client: httpx.AsyncClient) -> None:
    labels = {"method": "GET", "route": "unmatched", "status": "404"}
    before = sample("carimg_http_requests_total", **labels)
    await client.get("/nowhere/one")
    await client.get("/nowhere/two")
    assert sample("carimg_http_requests_total", **labels) == before + 2


async def test_unknown_methods_share_one_label(client: httpx.AsyncClient) -> None:
    labels = {"method": "OTHER", "route": "unmatched", "status": "404"}
    before = sample("carimg_http_requests_total", **labels)
    await client.request("BREW", "/nowhere/one")
    await client.request("PROPFIND", "/nowhere/two")
    assert sample("carimg_http_requests_total", **labels) == before + 2
    exposition = (await client.get("/metrics")).text
    assert "BREW" not in exposition and "PROPFIND" not in exposition


async def test_each_request_is_timed_in_the_latency_histogram(client: httpx.AsyncClient) -> None:
    labels = {"method": "GET", "route": "/api/v1/images/options"}
    before = sample("carimg_http_request_duration_seconds_count", **labels)
    await client.get("/api/v1/images/options")
    assert sample("carimg_http_request_duration_seconds_count", **labels) == before + 1
    assert sample("carimg_http_request_duration_seconds_sum", **labels) > 0


async def test_a_new_image_counts_a_charge_a_render_and_a_cache_miss(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    before = (
        sample("carimg_credits_total", kind="charged"),
        sample("carimg_renders_total", outcome="ok"),
        sample("carimg_render_duration_seconds_count"),
        sample("carimg_render_cache_lookups_total", result="miss"),
        sample("carimg_render_cache_lookups_total", result="hit"),
    )
    params = {**CAMRY, "color": fresh_paint()}
    await client.get(IMAGE_URL, params=params, headers=customer.headers)
    await client.get(IMAGE_URL, params=params, headers=customer.headers)
    after = (
        sample("carimg_credits_total", kind="charged"),
        sample("carimg_renders_total", outcome="ok"),
        sample("carimg_render_duration_seconds_count"),
        sample("carimg_render_cache_lookups_total", result="miss"),
        sample("carimg_render_cache_lookups_total", result="hit"),
    )
    assert [a - b for a, b in zip(after, before, strict=True)] == [2, 1, 1, 1, 1]


async def test_a_failed_render_counts_its_refund(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    RenderCalls(services).fail_with = RuntimeError("boom")
    refunded = sample("carimg_credits_total", kind="refunded")
    failed = sample("carimg_renders_total", outcome="failed")
    response = await client.get(
        IMAGE_URL, params={**CAMRY, "color": fresh_paint()}, headers=customer.headers
    )
    assert response.status_code == 502
    assert sample("carimg_credits_total", kind="refunded") == refunded + 1
    assert sample("carimg_renders_total", outcome="failed") == failed + 1


async def test_the_exposition_is_prometheus_text(client: httpx.AsyncClient) -> None:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    assert "# TYPE carimg_http_requests_total counter" in response.text
    assert "# TYPE carimg_render_queue_depth gauge" in response.text


async def test_openmetrics_is_served_to_scrapers_that_ask_for_it(
    client: httpx.AsyncClient,
) -> None:
    response = await client.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")


@pytest.mark.parametrize("overrides", [{"metrics_token": "m-token-123"}])
async def test_a_metrics_token_is_required_when_set(client: httpx.AsyncClient) -> None:
    missing = await client.get("/metrics")
    wrong = await client.get("/metrics", headers={"Authorization": "Bearer m-token-12"})
    right = await client.get("/metrics", headers={"Authorization": "Bearer m-token-123"})
    assert (missing.status_code, wrong.status_code, right.status_code) == (401, 401, 200)
    assert missing.headers["content-type"] == "application/problem+json"


@pytest.fixture
def queue_overrides() -> dict[str, Any]:
    """A render queue on the test Redis, under a name of this test's own."""
    return {
        "redis_url": REDIS_URL,
        "render_queue": "redis",
        "render_queue_name": f"carimg-test:{uuid.uuid4().hex[:12]}",
    }


@pytest.fixture
def overrides(request: pytest.FixtureRequest, queue_overrides: dict[str, Any]) -> dict[str, Any]:
    if "queue" in request.node.name:
        return queue_overrides
    return getattr(request, "param", {})


async def test_the_queue_depth_is_sampled_at_each_scrape(client: httpx.AsyncClient) -> None:
    metrics.RENDER_QUEUE_DEPTH.set(7)
    response = await client.get("/metrics")
    assert "carimg_render_queue_depth 0.0" in response.text.splitlines()
