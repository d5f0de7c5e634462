"""CORS only where the spec makes an endpoint public for browsers, and never with credentials.

Public and called cross-origin by browser pages: the telemetry sink (`/api/v1/events`, "Public,
CORS-enabled"), OAuth discovery, registration, token and revocation, and `/api/mcp` (browser
agent hosts; Bearer credentials, never cookies). Delivery URLs and the legacy embed are loaded
by `<img>`, which needs no CORS; every other route is same-origin only (cookies or keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

PUBLIC = {
    "/api/v1/events",
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-protected-resource/api/mcp",
    "/.well-known/oauth-authorization-server",
    "/oauth/register",
    "/oauth/token",
    "/oauth/revoke",
    "/api/mcp",
}
FOREIGN = "https://attacker.example"
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def _routes(routes: list[Any]) -> Iterator[tuple[str, str]]:
    for route in routes:
        if hasattr(route, "original_router"):  # FastAPI's included routers
            yield from _routes(route.original_router.routes)
        for method in sorted((getattr(route, "methods", None) or set()) - {"HEAD", "OPTIONS"}):
            yield route.path, method


def _url(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", path)


@SQLITE
async def test_every_public_endpoint_is_a_route(app: FastAPI) -> None:
    assert {path for path, _ in _routes(app.routes)} >= PUBLIC


@SQLITE
async def test_only_public_endpoints_answer_a_foreign_preflight(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    allowed: dict[str, str | None] = {}
    for path, method in _routes(app.routes):
        response = await client.options(
            _url(path), headers={"Origin": FOREIGN, "Access-Control-Request-Method": method}
        )
        allowed[f"{method} {path}"] = response.headers.get("access-control-allow-origin")
        assert "access-control-allow-credentials" not in response.headers, path
    opened = {name.split(" ", 1)[1] for name, value in allowed.items() if value}
    assert opened == PUBLIC
    assert {value for value in allowed.values() if value} == {"*"}


@SQLITE
async def test_only_public_endpoints_let_a_foreign_page_read_the_answer(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    opened = set()
    for path, method in _routes(app.routes):
        response = await client.request(method, _url(path), headers={"Origin": FOREIGN})
        assert "access-control-allow-credentials" not in response.headers, path
        if response.headers.get("access-control-allow-origin"):
            assert response.headers["access-control-allow-origin"] == "*"
            opened.add(path)
    assert opened == PUBLIC
