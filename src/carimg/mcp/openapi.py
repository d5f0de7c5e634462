"""`POST /api/mcp` in the OpenAPI document. The endpoint is the SDK's transport mounted as an
ASGI app, not a FastAPI route, so its path item is written here and added by `app._openapi`."""

from __future__ import annotations

from typing import Any

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from carimg.api.problems import problem_responses

_REQUEST = {
    "title": "JSON-RPC request",
    "type": "object",
    "required": ["jsonrpc", "method"],
    "properties": {
        "jsonrpc": {"type": "string", "enum": ["2.0"], "description": "Always 2.0."},
        "id": {
            "type": ["string", "integer"],
            "description": "Echoed in the answer; left out for notifications.",
        },
        "method": {
            "type": "string",
            "description": "An MCP method: initialize, notifications/initialized, tools/list, "
            "tools/call, ping.",
            "examples": ["tools/call"],
        },
        "params": {
            "type": "object",
            "description": 'The method\'s parameters; for tools/call {"name": tool, "arguments": '
            "{…}} with a tool from tools/list.",
        },
    },
}
_RESPONSE = {
    "title": "JSON-RPC response",
    "type": "object",
    "required": ["jsonrpc"],
    "properties": {
        "jsonrpc": {"type": "string", "enum": ["2.0"]},
        "id": {
            "type": ["string", "integer", "null"],
            "description": "The request's id; null when the request could not be read.",
        },
        "result": {"type": "object", "description": "The method's result (tool errors included)."},
        "error": {"type": "object", "description": "A JSON-RPC error: {code, message, data}."},
    },
}


def _one_or_batch(schema: dict[str, Any], what: str) -> dict[str, Any]:
    batch = {"title": f"{what} batch", "type": "array", "minItems": 1, "items": schema}
    return {"anyOf": [schema, batch]}


def mcp_path_item() -> dict[str, Any]:
    problems = {str(status): entry for status, entry in problem_responses(401, 413, 429).items()}
    problems_400 = problem_responses(400)[400]
    problems["401"]["headers"] = {
        "WWW-Authenticate": {
            "description": 'Bearer resource_metadata="{base_url}/.well-known/oauth-protected-'
            'resource": where OAuth discovery starts.',
            "schema": {"type": "string"},
        }
    }
    problems["429"]["headers"] = {
        "Retry-After": {
            "description": "Seconds until the window resets.",
            "schema": {"type": "integer"},
        }
    }
    return {
        "post": {
            "tags": ["agents"],
            "operationId": "call_mcp",
            "summary": "The agent endpoint: MCP over Streamable HTTP (stateless)",
            "description": "JSON-RPC 2.0 requests (batches under protocol 2025-03-26) for agent "
            "hosts: initialize, tools/list and tools/call with the carimg tools. Send `Accept: "
            "application/json, text/event-stream`. Authenticate with an API key or a connected "
            "app's OAuth access token; each request counts against the rate windows and tools "
            "bill as the REST endpoints they mirror.",
            "security": [{"HTTPBearer": []}, {"APIKeyHeader": []}],
            "parameters": [
                {
                    "name": "MCP-Protocol-Version",
                    "in": "header",
                    "required": False,
                    "description": "The negotiated protocol revision (default 2025-03-26). "
                    "Batches are read only under 2025-03-26; a later revision answers a batch "
                    "with 400.",
                    "schema": {"type": "string", "enum": list(HANDSHAKE_PROTOCOL_VERSIONS)},
                }
            ],
            "requestBody": {
                "required": True,
                "description": "A JSON-RPC request, notification or batch.",
                "content": {"application/json": {"schema": _one_or_batch(_REQUEST, "request")}},
            },
            "responses": {
                "200": {
                    "description": "The JSON-RPC answer (an array for a batch).",
                    "content": {
                        "application/json": {"schema": _one_or_batch(_RESPONSE, "response")},
                        "text/event-stream": {"schema": {"type": "string"}},
                    },
                },
                "202": {"description": "Only notifications were sent: accepted, no body."},
                "400": {
                    "description": "The transport refused the message (not JSON-RPC, an "
                    "unsupported protocol version, a batch under a later revision): a JSON-RPC "
                    "error; an empty batch is a problem document.",
                    "content": {
                        "application/json": {"schema": _RESPONSE},
                        **problems_400["content"],
                    },
                },
                **problems,
            },
        }
    }
