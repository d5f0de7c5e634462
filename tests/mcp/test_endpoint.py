"""The agent endpoint in-process: authentication, tool calls over raw JSON-RPC, batches."""

from __future__ import annotations

from typing import Any

import httpx

from tests.conftest import Customer

ACCEPT = {"Accept": "application/json, text/event-stream"}


def rpc(method: str, params: dict[str, Any] | None = None, id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}


async def test_tools_list_answers_json(client: httpx.AsyncClient, customer: Customer) -> None:
    response = await client.post(
        "/api/mcp", json=rpc("tools/list"), headers=customer.headers | ACCEPT
    )
    assert response.status_code == 200, response.text
    names = {tool["name"] for tool in response.json()["result"]["tools"]}
    assert "get_car_image" in names


async def tool_schemas(client: httpx.AsyncClient, customer: Customer) -> dict[str, Any]:
    """Each tool's input schema by name, from `tools/list`."""
    response = await client.post(
        "/api/mcp", json=rpc("tools/list"), headers=customer.headers | ACCEPT
    )
    return {tool["name"]: tool["inputSchema"] for tool in response.json()["result"]["tools"]}


async def call(client: httpx.AsyncClient, customer: Customer, name: str, **arguments: Any) -> Any:
    response = await client.post(
        "/api/mcp",
        json=rpc("tools/call", {"name": name, "arguments": arguments}),
        headers=customer.headers | ACCEPT,
    )
    assert response.status_code == 200, response.text
    return response.json()["result"]


async def test_get_account_reads_the_callers_balance(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    result = await call(client, customer, "get_account")
    assert not result.get("isError"), result
    assert result["structuredContent"]["credits"] == 100


async def test_get_car_image_bills_one_credit(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    result = await call(
        client, customer, "get_car_image", make="toyota", model="camry", year=2020, size="thumb"
    )
    assert not result.get("isError"), result
    kinds = [block["type"] for block in result["content"]]
    assert kinds == ["image", "text"]
    assert result["structuredContent"]["credits_remaining"] == 99


async def test_a_json_array_nested_a_thousand_deep_is_a_400_problem(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = b"[" * 1000 + b"]" * 1000
    response = await client.post(
        "/api/mcp",
        content=body,
        headers=customer.headers | ACCEPT | {"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
