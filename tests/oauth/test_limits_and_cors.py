"""Per-address limits on the public OAuth endpoints (OAuth errors, 429 with Retry-After) and CORS
for browser-based agent hosts on them and on /api/mcp."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from carimg.domain.clock import FixedClock
from carimg.domain.oauth import (
    REGISTRATIONS_PER_MINUTE,
    REVOCATIONS_PER_MINUTE,
    TOKEN_REQUESTS_PER_MINUTE,
)
from tests.conftest import Customer

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # counters only

ORIGIN = "https://agent.example"
BAD_TOKEN_REQUEST = {"grant_type": "authorization_code", "client_id": "cli_unknown"}


async def register(client: httpx.AsyncClient) -> httpx.Response:
    return await client.post("/oauth/register", json={"redirect_uris": []})  # refused, counted


async def test_registration_beyond_the_limit_is_429_in_oauth_format(
    client: httpx.AsyncClient,
) -> None:
    for _ in range(REGISTRATIONS_PER_MINUTE):
        assert (await register(client)).status_code == 400
    response = await register(client)
    assert response.status_code == 429
    assert response.json()["error"] == "temporarily_unavailable"
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert response.headers["access-control-allow-origin"] == "*"


async def test_token_requests_beyond_the_limit_are_429(client: httpx.AsyncClient) -> None:
    for _ in range(TOKEN_REQUESTS_PER_MINUTE):
        response = await client.post("/oauth/token", data=BAD_TOKEN_REQUEST)
        assert response.status_code == 401
    response = await client.post("/oauth/token", data=BAD_TOKEN_REQUEST)
    assert response.status_code == 429
    assert response.json()["error"] == "temporarily_unavailable"
    assert "retry-after" in response.headers


async def test_revocations_beyond_the_limit_are_429(client: httpx.AsyncClient) -> None:
    form = {"token": "crt_x", "client_id": "cli_unknown"}
    for _ in range(REVOCATIONS_PER_MINUTE):
        assert (await client.post("/oauth/revoke", data=form)).status_code == 401
    response = await client.post("/oauth/revoke", data=form)
    assert response.status_code == 429
    assert response.json()["error"] == "temporarily_unavailable"


async def test_the_limit_resets_with_the_next_minute(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    for _ in range(REGISTRATIONS_PER_MINUTE + 1):
        await register(client)
    clock.advance(60)
    assert (await register(client)).status_code == 400


async def test_the_limit_counts_per_address(app: FastAPI, client: httpx.AsyncClient) -> None:
    for _ in range(REGISTRATIONS_PER_MINUTE + 1):
        await register(client)
    transport = httpx.ASGITransport(app=app, client=("192.0.2.7", 4000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        assert (await register(other)).status_code == 400


@pytest.mark.parametrize(
    "path",
    [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
        "/.well-known/oauth-authorization-server",
        "/oauth/register",
        "/oauth/token",
        "/oauth/revoke",
        "/api/mcp",
    ],
)
async def test_preflight_allows_agent_hosts_headers(client: httpx.AsyncClient, path: str) -> None:
    response = await client.options(
        path,
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version",
        },
    )
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == "*"
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = {
        h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")
    }
    assert {"authorization", "content-type", "mcp-session-id", "mcp-protocol-version"} <= allowed
    assert "access-control-allow-credentials" not in response.headers  # bearer, never cookies


async def test_mcp_401_exposes_www_authenticate_to_pages(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/api/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Origin": ORIGIN, "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == "*"
    exposed = response.headers["access-control-expose-headers"].lower()
    assert "www-authenticate" in exposed


async def test_mcp_answers_carry_cors_headers(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.post(
        "/api/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers=customer.headers
        | {"Origin": ORIGIN, "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == "*"
    assert "ratelimit-remaining" in response.headers["access-control-expose-headers"].lower()


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-authorization-server", "/.well-known/oauth-protected-resource"]
)
async def test_metadata_is_readable_cross_origin(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path, headers={"Origin": ORIGIN})
    assert response.headers["access-control-allow-origin"] == "*"


async def test_token_errors_are_readable_cross_origin(client: httpx.AsyncClient) -> None:
    response = await client.post("/oauth/token", data=BAD_TOKEN_REQUEST, headers={"Origin": ORIGIN})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == "*"
