"""The official MCP Python client (Streamable HTTP + ClientSession) against the real server:
initialize, tools/list, every tool with a key, billing, a 402 as a tool error, batches, 401.

Kept fast: the accounts are made once per module, in this process, straight in the server's
database (the admin CLI is tested elsewhere), and every image call asks for the same small
variant, so the server renders one source at most."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
import pytest

from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.render import RenderPool
from carimg.services import build_services
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e

TOOLS = {
    "get_car_image", "create_car_image_urls", "search_vehicles", "resolve_vehicle",
    "list_image_options", "get_account", "rate_image", "describe_api",
}  # fmt: skip
IMAGE = {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb"}  # one small variant


@dataclass(frozen=True)
class Keys:
    funded: str  # 100 credits, shared by the tests that spend (they check differences)
    broke: str  # no credits


@pytest.fixture(scope="module")
def keys(server: Server, catalog: Catalog) -> Keys:
    async def create() -> Keys:
        settings = Settings(data_dir=server.data_dir, base_url=server.url, render_workers=0)
        services = await build_services(settings, catalog, render_pool=RenderPool(0))
        try:
            made = []
            for credits in (100, 0):
                email = f"agent-{uuid.uuid4().hex[:8]}@example.com"
                account = await services.accounts.create_account(email, credits=credits)
                key, _ = await services.accounts.create_key(
                    account, scopes=("images:read", "account:read")
                )
                made.append(key)
            return Keys(*made)
        finally:
            await services.close()

    return asyncio.run(create())


@asynccontextmanager
async def session_with(server: Server, key: str) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        streamable_http_client(f"{server.url}/api/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def balance(server: Server, key: str) -> int:
    response = httpx.get(f"{server.url}/api/v1/account", headers={"Authorization": f"Bearer {key}"})
    return int(response.json()["data"]["credits"])


async def test_every_tool_answers_with_a_key(server: Server, keys: Keys) -> None:
    async with session_with(server, keys.funded) as session:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS
        calls: dict[str, dict[str, Any]] = {
            "search_vehicles": {"query": "toyota camry"},
            "resolve_vehicle": {"query": "red 2020 porsche 911 side view"},
            "list_image_options": {},
            "get_account": {},
            "describe_api": {"endpoint": "get_car_image"},
            "create_car_image_urls": {
                "images": [{"make": "toyota", "model": "camry", "year": 2020}]
            },
            "get_car_image": IMAGE,
            "rate_image": {"make": "toyota", "model": "camry", "year": 2020, "rating": 5},
        }
        for name, arguments in calls.items():
            result = await session.call_tool(name, arguments)
            assert not result.is_error, (name, text_of(result))


async def test_get_car_image_returns_the_image_and_bills_one_credit(
    server: Server, keys: Keys
) -> None:
    before = balance(server, keys.funded)
    async with session_with(server, keys.funded) as session:
        result = await session.call_tool("get_car_image", IMAGE)
    image = result.content[0]
    assert image.type == "image" and image.mime_type == "image/png"
    assert base64.b64decode(image.data).startswith(b"\x89PNG")
    assert balance(server, keys.funded) == before - 1
    url = result.structured_content["url"]
    loaded = httpx.get(url)  # the signed URL serves the same image, free
    assert loaded.status_code == 200 and loaded.content == base64.b64decode(image.data)
    assert balance(server, keys.funded) == before - 1


async def test_an_empty_balance_is_a_tool_error_that_says_how_to_buy(
    server: Server, keys: Keys
) -> None:
    async with session_with(server, keys.broke) as session:
        result = await session.call_tool("get_car_image", IMAGE)
    assert result.is_error
    text = text_of(result)
    assert "buy credits" in text and f"{server.url}/dashboard/billing" in text
    assert "/api/v1/pricing" in text


async def test_a_batch_is_answered_as_one_array(server: Server, keys: Keys) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_account", "arguments": {}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]  # fmt: skip
    response = httpx.post(
        f"{server.url}/api/mcp",
        json=batch,
        headers={
            "Authorization": f"Bearer {keys.funded}",
            "Accept": "application/json, text/event-stream",
        },
    )
    assert response.status_code == 200, response.text
    answers = {answer["id"]: answer for answer in response.json()}
    assert set(answers) == {1, 2}
    assert answers[2]["result"]["structuredContent"]["credits"] == balance(server, keys.funded)


async def test_without_credentials_401_names_the_resource_metadata(server: Server) -> None:
    response = httpx.post(
        f"{server.url}/api/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    challenge = response.headers["www-authenticate"]
    assert f'resource_metadata="{server.url}/.well-known/oauth-protected-resource"' in challenge
    assert response.headers["content-type"] == "application/problem+json"
