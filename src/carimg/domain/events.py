"""Funnel events from the web beacon, CLI, agent server and SDKs: validated, never billed.

Known names include `cli_command`, `cli_login`, `cli_doctor`, `cli_bulk`, `mcp_tool_call`,
`sdk_request`, `web_page_view`, `web_signup`, `playground_render`; any name of 1–64 characters of
`a-z 0-9 _ . : -` is accepted.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from carimg.domain.errors import InvalidParameter, InvalidRequest

MAX_EVENTS: Final = 20
MAX_PROPERTIES: Final = 50
_NAME = re.compile(r"[a-z0-9_.:\-]{1,64}")
_SOURCE = re.compile(r"[a-z0-9_.\-]{1,32}")
# RFC 3339 date-time (section 5.6; T, Z case-insensitive, a space allowed for T): no other
# ISO 8601 form (basic format, week dates, minutes without seconds) is accepted.
_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_FIELDS = {"event", "anonymous_id", "source", "properties", "timestamp"}
KNOWN_EVENTS: Final = (
    "cli_command", "cli_login", "cli_doctor", "cli_bulk", "mcp_tool_call", "sdk_request",
    "web_page_view", "web_signup", "playground_render",
)  # fmt: skip


def _event(index: int, raw: Any, received_at: datetime) -> dict[str, Any]:
    def fail(parameter: str, detail: str) -> InvalidParameter:
        return InvalidParameter(parameter, f"events[{index}]: {detail}", index=index)

    if not isinstance(raw, dict):
        raise fail("events", "each event is a JSON object")
    unknown = sorted(set(raw) - _FIELDS)
    if unknown:
        raise fail(unknown[0], f"unknown member '{unknown[0]}'")
    name = raw.get("event")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise fail("event", "'event' is 1–64 characters of a-z 0-9 _ . : -")
    anonymous_id = raw.get("anonymous_id")
    if not isinstance(anonymous_id, str) or not 1 <= len(anonymous_id) <= 128:
        raise fail("anonymous_id", "'anonymous_id' is a string of 1–128 characters")
    source = raw.get("source")
    if not isinstance(source, str) or not _SOURCE.fullmatch(source):
        raise fail("source", "'source' is cli, mcp, web, sdk or another short lower-case name")
    properties = raw.get("properties", {})
    if not isinstance(properties, dict) or len(properties) > MAX_PROPERTIES:
        raise fail("properties", f"'properties' is an object of at most {MAX_PROPERTIES} members")
    for key, value in properties.items():
        if not isinstance(value, str | int | float | bool) and value is not None:
            raise fail("properties", f"property '{key}' must be a string, number, boolean or null")
    occurred_at = None
    if raw.get("timestamp") is not None:
        timestamp = raw["timestamp"]
        if not isinstance(timestamp, str) or not _RFC3339.fullmatch(timestamp):
            raise fail(
                "timestamp", "'timestamp' is an RFC 3339 date-time (e.g. 2027-01-15T08:00:00Z)"
            )
        try:
            occurred_at = datetime.fromisoformat(timestamp.upper().replace("Z", "+00:00"))
            occurred_at = occurred_at.astimezone(UTC)  # overflows at the ends of time
        except (ValueError, OverflowError):
            raise fail("timestamp", "'timestamp' is an RFC 3339 date-time") from None
        if not 2000 <= occurred_at.year <= 2100:
            raise fail("timestamp", "'timestamp' must fall between the years 2000 and 2100")
    return {
        "name": name,
        "anonymous_id": anonymous_id,
        "source": source,
        "properties": orjson.dumps(properties).decode(),
        "occurred_at": occurred_at,
        "received_at": received_at,
    }


def parse_events(body: Any, received_at: datetime) -> list[dict[str, Any]]:
    """Rows to store for a batch `{"events": [...]}` of 1–20 events (400 with `index` otherwise)."""
    if (
        not isinstance(body, dict)
        or set(body) != {"events"}
        or not isinstance(body["events"], list)
    ):
        raise InvalidRequest('The body is {"events": [ … ]} with 1 to 20 events.')
    batch = body["events"]
    if not 1 <= len(batch) <= MAX_EVENTS:
        raise InvalidParameter("events", f"Send 1 to {MAX_EVENTS} events per batch.")
    return [_event(index, raw, received_at) for index, raw in enumerate(batch)]
