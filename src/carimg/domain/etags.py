"""Entity-tag comparison for conditional requests."""

from __future__ import annotations

from typing import Final

from carimg.domain.limits import MAX_HEADER_FIELD_BYTES

# The longest If-None-Match value compared (the default limit of one header, which the app and
# the servers enforce): caches send a few tags, and the work per request stays bounded whatever
# reaches this function (a longer value is compared as if absent).
MAX_IF_NONE_MATCH: Final = MAX_HEADER_FIELD_BYTES


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored; `*` matches anything."""
    if not if_none_match or len(if_none_match) > MAX_IF_NONE_MATCH:
        return False
    opaque = etag.removeprefix("W/")
    if opaque not in if_none_match and "*" not in if_none_match:
        return False  # one scan in C: no list to split
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == opaque:
            return True
    return False
