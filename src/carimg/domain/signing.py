"""Partner signatures for legacy embed URLs and signed cookies.

An embed signature is lowercase hex HMAC-SHA256, keyed with the partner secret, over
`/images/car.png?` followed by the query without `sig`, sorted by key.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlencode

EMBED_PATH = "/images/car.png"
MAX_EMBED_LIFETIME = 30 * 86400


def embed_signing_string(params: Iterable[tuple[str, str]]) -> str:
    items = sorted((name, value) for name, value in params if name != "sig")
    return f"{EMBED_PATH}?{urlencode(items)}"


def embed_signature(secret: str, params: Iterable[tuple[str, str]]) -> str:
    message = embed_signing_string(params).encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signed_embed_url(
    base_url: str, secret: str, params: dict[str, str | int], *, expires_in: int = 86400,
    now: float | None = None,
) -> str:  # fmt: skip
    """A partner-signed `/images/car.png` URL valid for `expires_in` seconds (at most 30 days)."""
    if not 0 < expires_in <= MAX_EMBED_LIFETIME:
        raise ValueError("expires_in must be between 1 second and 30 days")
    exp = int((time.time() if now is None else now) + expires_in)
    items = [(name, str(value)) for name, value in params.items() if name not in ("exp", "sig")]
    items.append(("exp", str(exp)))
    items = sorted(items)
    signature = embed_signature(secret, items)
    return f"{base_url.rstrip('/')}{EMBED_PATH}?{urlencode([*items, ('sig', signature)])}"


def _purpose_key(secret: str, purpose: str) -> bytes:
    """A key per purpose, so a token made for one use (a portal link) is worthless for another
    (a playground cookie)."""
    return hmac.new(secret.encode(), f"carimg:{purpose}".encode(), hashlib.sha256).digest()


def sign_value(secret: str, purpose: str, payload: dict[str, Any]) -> str:
    """A compact signed token (`body.mac`) for one purpose (cookies, portal links)."""
    body = base64.urlsafe_b64encode(json.dumps(payload, sort_keys=True).encode()).decode()
    body = body.rstrip("=")
    mac = hmac.new(_purpose_key(secret, purpose), body.encode(), hashlib.sha256).hexdigest()
    return f"{body}.{mac}"


def unsign_value(secret: str, purpose: str, token: str) -> dict[str, Any] | None:
    """The payload of a token made by `sign_value` for `purpose`, or None when it was altered
    or made for another purpose."""
    body, _, mac = token.rpartition(".")
    expected = hmac.new(_purpose_key(secret, purpose), body.encode(), hashlib.sha256).hexdigest()
    # bytes: compare_digest raises on a non-ASCII str, which a forged cookie may carry
    if not body or not hmac.compare_digest(mac.encode(), expected.encode()):
        return None
    try:
        decoded = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        payload = json.loads(decoded)
    except ValueError:
        return None
    return payload if isinstance(payload, dict) else None
