"""Every failure is an RFC 9457 problem document; every response carries X-Request-Id."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI


def assert_problem(response: httpx.Response, status: int) -> dict:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["type"] == f"http://testserver/docs/errors#{status}"
    assert body["status"] == status
    assert body["title"] and body["detail"]
    assert body["request_id"] == response.headers["x-request-id"]
    return body


async def test_an_unknown_route_is_a_404_problem(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/api/v1/nothing-here"), 404)


async def test_a_wrong_method_is_a_405_problem(client: httpx.AsyncClient) -> None:
    response = await client.delete("/api/v1/vehicles")
    assert_problem(response, 405)
    assert "GET" in response.headers["allow"]


async def test_framework_validation_is_a_400_problem(client: httpx.AsyncClient) -> None:
    body = assert_problem(await client.get("/api/v1/vehicles?limit=many&q=x"), 400)
    assert body["parameter"] == "limit"


async def test_an_unexpected_failure_is_a_500_problem(app: FastAPI) -> None:
    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("kaput")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        body = assert_problem(await client.get("/boom"), 500)
    assert "kaput" not in body["detail"]


@pytest.mark.parametrize("value", ["abc", "A-Z.a_z:0-9", "x" * 128])
async def test_a_valid_client_request_id_is_echoed(client: httpx.AsyncClient, value: str) -> None:
    response = await client.get("/api/health", headers={"X-Request-Id": value})
    assert response.headers["x-request-id"] == value


@pytest.mark.parametrize("value", ["", "has space", "x" * 129, "semi;colon", "ü"])
async def test_an_invalid_client_request_id_is_replaced(
    client: httpx.AsyncClient, value: str
) -> None:
    response = await client.get("/api/health", headers={"X-Request-Id": value.encode()})
    assert response.headers["x-request-id"] != value
    assert response.headers["x-request-id"].startswith("req_")


async def test_error_bodies_carry_the_echoed_request_id(client: httpx.AsyncClient) -> None:
    response = await client.get("/nowhere", headers={"X-Request-Id": "trace-42"})
    assert response.json()["request_id"] == "trace-42"


async def test_health_reports_ok(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
