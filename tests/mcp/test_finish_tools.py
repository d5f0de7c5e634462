"""The agent tools take the paint finish where they take a color (issue 30)."""

from __future__ import annotations

from typing import Any

import httpx

from carimg.render import FINISHES
from tests.conftest import Customer
from tests.mcp.test_endpoint import call, tool_schemas


def finish_choices(schema: dict[str, Any]) -> list[str]:
    """The enum of a `finish` property, whatever nullable spelling the schema uses."""
    finish = schema["properties"]["finish"]
    return next(choice["enum"] for choice in finish.get("anyOf", [finish]) if "enum" in choice)


async def test_the_image_and_rating_tools_offer_the_renderers_finishes(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    tools = await tool_schemas(client, customer)
    assert finish_choices(tools["get_car_image"]) == list(FINISHES)
    assert "finish" in tools["rate_image"]["properties"]
    item = tools["create_car_image_urls"]["$defs"]["ImageRequest"]
    assert finish_choices(item) == list(FINISHES)


async def test_get_car_image_delivers_the_finish_asked_for(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    result = await call(
        client, customer, "get_car_image", make="toyota", model="camry", year=2020,
        size="thumb", color="red", view="side", finish="matte",
    )  # fmt: skip
    assert not result.get("isError"), result
    assert result["structuredContent"]["vehicle"]["finish"] == "matte"
