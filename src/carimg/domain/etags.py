"""Entity-tag comparison for conditional requests."""

from __future__ import annotations


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored; `*` matches anything."""
    if not if_none_match:
        return False
    opaque = etag.removeprefix("W/")
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*" or candidate.removeprefix("W/") == opaque:
            return True
    return False
