"""Rules between parameters that OpenAPI cannot state (each is in the parameters' descriptions
and answered with a documented 400): generated requests that break one are dropped, so that
"schema-valid requests are accepted" can be checked on the rest.

Loaded by tests/e2e/test_schemathesis.py; for the CLI:
`SCHEMATHESIS_HOOKS=tests.e2e.schemathesis_hooks schemathesis run …` from the repository root.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from carimg.mcp.endpoint import MCP_PATH

# One parameter under two names: send one of them.
_ALIASES = (("make", "brand"), ("view", "angle"), ("color", "paint"), ("background", "bg"))
_IMAGE_PATHS = ("/api/v1/images/car", "/images/car.png")
_TRUE = ("true", "1", "yes", "on")
_BATCH_VERSION = "2025-03-26"  # the only MCP revision whose batches /api/mcp reads


def _sent(values: dict[str, Any] | None) -> set[str]:
    return {name for name, value in (values or {}).items() if value is not None}


def _names_one_vehicle(values: dict[str, Any]) -> bool:
    """An image is named by a catalog `vehicle` id, or by make (or brand), model and year; a
    blank value counts as not sent."""
    given = {name for name, value in values.items() if str(value).strip()}
    by_name = bool(given & {"make", "brand"}) and {"model", "year"} <= given
    return ("vehicle" in given) != by_name and not (
        "vehicle" in given and given & {"make", "brand", "model", "year"}
    )


def _image_query_ok(query: dict[str, Any]) -> bool:
    sent = _sent(query)
    if any(a in sent and b in sent for a, b in _ALIASES):
        return False
    if "padding" in sent and str(query.get("trim")).lower() not in _TRUE:
        return False  # padding frames a trimmed image
    transparent = str(query.get("background", query.get("bg"))).lower() == "transparent"
    if transparent and str(query.get("format")).lower() in ("jpg", "jpeg"):
        return False  # JPEG has no transparency
    return _names_one_vehicle({k: v for k, v in query.items() if v is not None})


def _vehicles_query_ok(query: set[str]) -> bool:
    """GET /api/v1/vehicles: q alone (with year, limit); model needs make; makeId needs year
    and not make."""
    if "q" in query and query & {"make", "model", "makeId"}:
        return False
    if "model" in query and "make" not in query:
        return False
    return "makeId" not in query or ("year" in query and "make" not in query)


def _mcp_ok(case: Any) -> bool:
    """A batch is read only under protocol 2025-03-26 (the default when no header is sent)."""
    if not isinstance(case.body, list):
        return True
    headers = {name.lower(): value for name, value in (case.headers or {}).items()}
    return headers.get("mcp-protocol-version", _BATCH_VERSION) == _BATCH_VERSION


def _holds_surrogates(value: Any) -> bool:
    """A lone UTF-16 surrogate is not Unicode text: the generator judged the string it drew, but
    JSON joins a high and a low one into another character (often an unassigned one)."""
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_holds_surrogates(k) or _holds_surrogates(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_surrogates(item) for item in value)
    return False


@schemathesis.hook
def filter_case(context: Any, case: Any) -> bool:
    if _holds_surrogates(case.body):
        return False
    path = case.operation.path
    if path in _IMAGE_PATHS:
        return _image_query_ok(case.query or {})
    if path == "/api/v1/image-urls" and isinstance(case.body, dict):
        items = case.body.get("images", [case.body])
        return isinstance(items, list) and all(
            not isinstance(item, dict) or _image_query_ok(item) for item in items
        )
    if path == "/api/v1/vehicles":
        return _vehicles_query_ok(_sent(case.query))
    if path == MCP_PATH:
        return _mcp_ok(case)
    return True
