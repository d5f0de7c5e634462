"""POST /api/mcp in the OpenAPI document (the endpoint is an ASGI app, not a FastAPI route)."""

from __future__ import annotations

import httpx
import pytest

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # no storage


@pytest.fixture
async def operation(client: httpx.AsyncClient) -> dict:
    document = (await client.get("/openapi.json")).json()
    return document["paths"]["/api/mcp"]["post"]


async def test_mcp_is_described_with_a_json_rpc_body(operation: dict) -> None:
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    request, batch = schema["anyOf"]
    assert {"jsonrpc", "method"} <= set(request["required"])
    assert batch["type"] == "array" and batch["items"] == request


async def test_mcp_responses_are_200_401_and_429(operation: dict) -> None:
    responses = operation["responses"]
    assert {"200", "401", "429"} <= set(responses)
    assert "WWW-Authenticate" in responses["401"]["headers"]
    assert "Retry-After" in responses["429"]["headers"]
    problem = responses["429"]["content"]["application/problem+json"]["schema"]
    assert problem == {"$ref": "#/components/schemas/Problem"}


async def test_mcp_is_authenticated_like_the_rest(operation: dict) -> None:
    assert {"HTTPBearer": []} in operation["security"]
    assert operation["operationId"] == "call_mcp"
