"""API keys: the plaintext format, hashing, display prefixes and the scope rules."""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

from carimg.domain.errors import InvalidParameter

KEY_PREFIX: Final = "cimg_"
_KEY_BODY_LENGTH: Final = 43  # secrets.token_urlsafe(32)
KEY_PATTERN: Final = re.compile(rf"{KEY_PREFIX}[A-Za-z0-9_-]{{{_KEY_BODY_LENGTH}}}")
DISPLAY_PREFIX_LENGTH: Final = 12
MAX_ACTIVE_KEYS: Final = 10

IMAGES_READ: Final = "images:read"
ACCOUNT_READ: Final = "account:read"
BILLING_WRITE: Final = "billing:write"
BILLING_PURCHASE: Final = "billing:purchase"
SCOPES: Final = (IMAGES_READ, ACCOUNT_READ, BILLING_WRITE, BILLING_PURCHASE)
DEFAULT_SCOPES: Final = (IMAGES_READ, ACCOUNT_READ)
DEVICE_SCOPES: Final = (IMAGES_READ, ACCOUNT_READ, BILLING_WRITE)

# Values that clients send when a variable was never filled in: treated as a missing key.
_PLACEHOLDERS: Final = re.compile(
    r"(?i)^(?:<.*>|\{.*\}|\$\{?[a-z_][a-z0-9_]*\}?|your[_ -]?api[_ -]?key|api[_ -]?key|"
    r"cimg_(?:\.\.\.|x+|your.*)|undefined|null|none|bearer|xxx+|\*+|changeme|token)$"
)


def new_key() -> str:
    """A new plaintext key: `cimg_` and 256 random bits (shown once, never stored)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode("utf-8")).hexdigest()


def display_prefix(plaintext: str) -> str:
    return plaintext[:DISPLAY_PREFIX_LENGTH]


def is_placeholder(value: str) -> bool:
    """Blank, or an unexpanded template (`<API_KEY>`, `$CAR_IMAGE_API_KEY`, `YOUR_API_KEY` …)."""
    return not value.strip() or bool(_PLACEHOLDERS.match(value.strip()))


def is_well_formed(value: str) -> bool:
    return bool(KEY_PATTERN.fullmatch(value))


def check_scopes(scopes: tuple[str, ...], origins: tuple[str, ...]) -> tuple[str, ...]:
    """Known scopes only, in canonical order; billing:purchase never on a key with origins."""
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown:
        raise InvalidParameter(
            "scopes", f"Unknown scope {', '.join(unknown)}; scopes are {', '.join(SCOPES)}."
        )
    if BILLING_PURCHASE in scopes and origins:
        raise InvalidParameter("scopes", "A key with allowed origins cannot hold billing:purchase.")
    return tuple(scope for scope in SCOPES if scope in scopes)


_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d{1,5})?")


def check_origins(origins: tuple[str, ...]) -> tuple[str, ...]:
    """Origins as `scheme://host[:port]`, lower-cased, without duplicates."""
    cleaned: list[str] = []
    for origin in origins:
        value = origin.strip().rstrip("/").lower()
        if not _ORIGIN.fullmatch(value):
            raise InvalidParameter(
                "origins", f"'{origin}' is not an origin like https://example.com."
            )
        if value not in cleaned:
            cleaned.append(value)
    return tuple(cleaned)
