"""Connecting an agent app end to end: discovery from the 401, registration, authorization with
PKCE, consent approved in Chromium, token exchange, tools called with the token, refresh
(rotation), revocation."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from playwright.sync_api import Page, expect

from tests.browser.helpers import sign_up
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

CALLBACK = "http://127.0.0.1:47613/callback"  # the app's loopback redirect (never listened on)


async def _tools_with(url: str, token: str) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        account = await session.call_tool("get_account", {})
        search = await session.call_tool("search_vehicles", {"query": "ford f-150"})
        assert not account.is_error and not search.is_error
        structured: dict[str, Any] = account.structured_content
        return structured


def call_tools(url: str, token: str) -> dict[str, Any]:
    """The official MCP client, on its own event loop (Playwright's sync API holds this one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _tools_with(url, token)).result()


def test_an_agent_app_connects_through_the_consent_page(server: Server, page: Page) -> None:
    mcp_url = f"{server.url}/api/mcp"
    accept = {"Accept": "application/json, text/event-stream"}
    # 1. discovery starts at the 401's resource_metadata
    refused = httpx.post(
        mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=accept
    )
    assert refused.status_code == 401
    found = re.search(r'resource_metadata="([^"]+)"', refused.headers["www-authenticate"])
    assert found
    resource = httpx.get(found.group(1)).json()
    issuer = resource["authorization_servers"][0]
    metadata = httpx.get(f"{issuer}/.well-known/oauth-authorization-server").json()
    # 2. registration
    client = httpx.post(
        metadata["registration_endpoint"],
        json={"client_name": "Desk Agent", "redirect_uris": [CALLBACK]},
    ).json()
    # 3. authorization with PKCE, approved by the person in the browser
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode()
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": CALLBACK,
        "code_challenge": challenge.rstrip("="),
        "code_challenge_method": "S256",
        "state": "s-123",
        "resource": resource["resource"],
    }
    email = sign_up(page)
    returned: list[str] = []
    page.route(
        re.compile(r"^http://127\.0\.0\.1:47613/"),
        lambda route: (returned.append(route.request.url), route.fulfill(body="connected")),
    )
    page.goto(f"{metadata['authorization_endpoint']}?{urlencode(query)}")
    expect(page.locator("#client-name")).to_have_text("Desk Agent")
    expect(page.locator("#account-email")).to_have_text(email)
    expect(page.locator("#redirect-host")).to_have_text("127.0.0.1:47613")
    expect(page.locator("#balance")).to_have_text("100")
    expect(page.locator("#scopes")).to_contain_text("images:read")
    expect(page.locator("#scopes")).not_to_contain_text("billing:purchase")
    page.get_by_role("button", name="Allow").click()
    expect(page.locator("body")).to_have_text("connected")
    answer = {k: v[0] for k, v in parse_qs(urlsplit(returned[-1]).query).items()}
    assert answer["state"] == "s-123" and answer["iss"] == issuer
    # 4. token exchange
    token_form = {
        "grant_type": "authorization_code",
        "code": answer["code"],
        "redirect_uri": CALLBACK,
        "client_id": client["client_id"],
        "code_verifier": verifier,
    }
    tokens = httpx.post(metadata["token_endpoint"], data=token_form).json()
    assert tokens["scope"] == "images:read account:read"
    # 5. the tools, called with the access token
    assert call_tools(mcp_url, tokens["access_token"])["email"] == email
    # 6. refresh rotates: the new pair works, the old refresh token does not
    refresh = {"grant_type": "refresh_token", "client_id": client["client_id"]}
    renewed = httpx.post(
        metadata["token_endpoint"], data=refresh | {"refresh_token": tokens["refresh_token"]}
    )
    assert renewed.status_code == 200
    assert call_tools(mcp_url, renewed.json()["access_token"])["credits"] == 100
    # 7. revocation ends the connection's tokens
    revoked = httpx.post(
        metadata["revocation_endpoint"],
        data={"token": renewed.json()["refresh_token"], "client_id": client["client_id"]},
    )
    assert revoked.status_code == 200
    after = httpx.post(
        mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers=accept | {"Authorization": f"Bearer {renewed.json()['access_token']}"},
    )
    assert after.status_code == 401
    replay = httpx.post(
        metadata["token_endpoint"], data=refresh | {"refresh_token": tokens["refresh_token"]}
    )
    assert replay.json()["error"] == "invalid_grant"
