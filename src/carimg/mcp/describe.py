"""describe_api: an endpoint of the HTTP API explained from the OpenAPI document, as plain text.

Both tool backends use it: the remote one with the app's own document, the command-line
client's with the document fetched from `/openapi.json`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

_METHODS = ("get", "post", "put", "patch", "delete", "head")


def _operations(document: Mapping[str, Any]) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    for path, item in document.get("paths", {}).items():
        for method in _METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def _resolve(document: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow one local `$ref` (`#/components/schemas/X`)."""
    ref = schema.get("$ref")
    if not isinstance(ref, str) or not ref.startswith("#/"):
        return schema
    node: Any = document
    for part in ref[2:].split("/"):
        node = node.get(part, {}) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else schema


def _schema_type(schema: Mapping[str, Any]) -> str:
    if "anyOf" in schema:
        return " or ".join(_schema_type(s) for s in schema["anyOf"] if s.get("type") != "null")
    declared = schema.get("type", "object")
    kind = " or ".join(declared) if isinstance(declared, list) else str(declared)  # 3.1 unions
    if "enum" in schema:
        kind += f" ({', '.join(map(str, schema['enum']))})"
    bounds = [f"{name} {schema[name]}" for name in ("minimum", "maximum") if name in schema]
    return kind + (f", {', '.join(bounds)}" if bounds else "")


def _body_lines(document: Mapping[str, Any], operation: Mapping[str, Any]) -> list[str]:
    content = operation.get("requestBody", {}).get("content", {})
    lines: list[str] = []
    for media_type, body in content.items():
        schema = _resolve(document, body.get("schema", {}))
        variants = schema.get("anyOf") or schema.get("oneOf") or [schema]
        lines.append(f"Body ({media_type}):")
        for variant in variants:
            variant = _resolve(document, variant)
            if len(variants) > 1:
                lines.append(f"  one of: {variant.get('title', 'object')}")
            required = set(variant.get("required", ()))
            for name, prop in variant.get("properties", {}).items():
                mark = " (required)" if name in required else ""
                about = f" — {prop['description']}" if prop.get("description") else ""
                lines.append(f"  - {name}: {_schema_type(prop)}{mark}{about}")
    return lines


def _explain(
    document: Mapping[str, Any], method: str, path: str, operation: Mapping[str, Any]
) -> str:
    lines = [f"{method} {path}  (operation {operation.get('operationId', '?')})"]
    if operation.get("summary"):
        lines.append(str(operation["summary"]))
    if operation.get("description"):
        lines.append(str(operation["description"]).strip())
    security = operation.get("security")
    lines.append(
        "Authentication: Authorization: Bearer cimg_… (an API key) or an OAuth access token."
        if security
        else "Authentication: none (public)."
    )
    parameters = operation.get("parameters", [])
    if parameters:
        lines.append("Parameters:")
        for parameter in parameters:
            schema = parameter.get("schema", {})
            mark = " (required)" if parameter.get("required") else ""
            about = parameter.get("description") or schema.get("description") or ""
            lines.append(
                f"  - {parameter['name']} ({parameter.get('in', 'query')}): "
                f"{_schema_type(schema)}{mark}" + (f" — {about}" if about else "")
            )
    lines += _body_lines(document, operation)
    responses = operation.get("responses", {})
    if responses:
        lines.append("Responses:")
        for status, response in responses.items():
            lines.append(f"  - {status}: {response.get('description', '')}")
    servers = document.get("servers") or [{"url": ""}]
    lines.append(f"URL: {servers[0].get('url', '')}{path}")
    return "\n".join(lines)


def describe_endpoint(document: Mapping[str, Any], endpoint: str | None) -> str:
    """Every endpoint in one line each, or one endpoint explained (by operation id, path or
    'METHOD /path'); an unknown name lists what exists."""
    operations = list(_operations(document))
    listing = "\n".join(
        f"{method} {path} — {op.get('summary', '')} (operation {op.get('operationId', '?')})"
        for method, path, op in operations
    )
    if not endpoint or not endpoint.strip():
        info = document.get("info", {})
        return f"{info.get('title', 'API')} {info.get('version', '')} endpoints:\n{listing}"
    wanted = endpoint.strip()
    method_part, _, path_part = wanted.partition(" ")
    matches = [
        (method, path, op)
        for method, path, op in operations
        if wanted in (op.get("operationId"), path)
        or (path_part and method == method_part.upper() and path == path_part.strip())
    ]
    if not matches:
        return f"No endpoint '{wanted}'. The endpoints are:\n{listing}"
    return "\n\n".join(_explain(document, *match) for match in matches)
