"""The agent image tools take the floor reflection where they take a background (issue 30)."""

from __future__ import annotations

import httpx

from tests.conftest import Customer
from tests.mcp.test_endpoint import call, tool_schemas

RED = {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb", "color": "red"}


async def test_the_image_tools_offer_a_reflection(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    tools = await tool_schemas(client, customer)
    assert "reflection" in tools["get_car_image"]["properties"]
    assert "reflection" in tools["create_car_image_urls"]["$defs"]["ImageRequest"]["properties"]


async def test_get_car_image_with_a_reflection_on_a_background_delivers_it(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    result = await call(
        client, customer, "get_car_image", **RED, view="side", background="white", reflection=True
    )
    assert not result.get("isError"), result


async def test_get_car_image_with_a_reflection_on_transparent_says_it_needs_a_background(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    result = await call(client, customer, "get_car_image", **RED, view="side", reflection=True)
    assert result["isError"]
    assert "needs a background" in result["content"][0]["text"]
