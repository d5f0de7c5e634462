"""Logging that never writes keys, tokens or signatures.

`carimg serve` logs one JSON object per line (or plain text with `CARIMG_LOG_FORMAT=text`); every
record's message, fields and traceback pass through `scrub`, and access-log paths through
`redact`, whatever logger wrote them.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import Any, Literal

LogFormat = Literal["json", "text"]

_SECRET_QUERY = re.compile(
    r"([?&](?:key|api_key|apikey|token|access_token|refresh_token|sig|device_code|user_code|"
    r"code|client_secret|password)=)[^&#\s\"']*",
    re.IGNORECASE,
)
# A delivery token is redacted by pattern, not by route: whatever follows a `delivery` path
# segment in any case, however many slashes (or backslashes, or encoded ones) surround it, up to
# the query; near misses of the route (`/api/v1/delivery//T`, `/api/v1/Delivery/T`,
# `/api/v1//delivery/T`) carry valid tokens too. The route template `{token}` stays readable.
_SEPARATOR = r"(?:/|\\|%2f|%5c)"
_DELIVERY_TOKEN = re.compile(
    rf"({_SEPARATOR}delivery{_SEPARATOR}+)(?!\{{token\}}(?![\w\-]))[^?#\s\"']+", re.IGNORECASE
)
# Any other path segment shaped like a token carimg issues (43 URL-safe characters; 40 or more
# here): a mistyped route (`/api/v1/delivey/T`) still shows no secret.
_TOKEN_SEGMENT = re.compile(
    rf"({_SEPARATOR})[A-Za-z0-9_\-]{{40,}}(?=[/\\?#\s\"']|%2f|%5c|$)", re.IGNORECASE
)
_SECRET_TEXT = (
    # credentials in headers as they appear in text: `Authorization: Bearer …`, `x-api-key: …`
    (
        re.compile(
            r"((?:x-api-key|authorization|cookie|set-cookie)[\"']?\s*[:=,]\s*[\"']?)"
            r"(?:(?:bearer|basic)\s+)?[^\"'\s,;]+",
            re.IGNORECASE,
        ),
        r"\g<1>[redacted]",
    ),
    (re.compile(r"\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]+", re.IGNORECASE), r"\g<1> [redacted]"),
    # API keys, OAuth access/refresh tokens and codes, Stripe secrets: keep the prefix only
    (
        re.compile(
            r"\b(cimg_|cat_|crt_|cac_|sk_live_|sk_test_|rk_live_|rk_test_|whsec_)"
            r"[A-Za-z0-9_\-]{6,}"
        ),
        r"\g<1>[redacted]",
    ),
    # OpenAI-style keys (the generative backend's CARIMG_OPENAI_API_KEY): sk-…, sk-proj-…
    (re.compile(r"\b(sk-)[A-Za-z0-9_\-]{16,}"), r"\g<1>[redacted]"),
    # our cookies (session, playground, CSRF) wherever a `name=value` pair shows
    (re.compile(r"\b(carimg_[a-z_]+=)[^;\s&\"']+"), r"\g<1>[redacted]"),
)
REDACTED = "[redacted]"


def redact(path: str) -> str:
    """A request path with delivery tokens and secret query values replaced."""
    if "delivery" in path.lower():
        path = _DELIVERY_TOKEN.sub(rf"\g<1>{REDACTED}", path)
    path = _TOKEN_SEGMENT.sub(rf"\g<1>{REDACTED}", path)
    return _SECRET_QUERY.sub(rf"\g<1>{REDACTED}", path)


# Something at least one pattern above needs (lower case); text without any of them is returned
# as it is (most log text), which keeps the access log cheap.
_SECRET_MARKERS = (
    "cimg_", "cat_", "crt_", "cac_", "sk_", "sk-", "rk_", "whsec_", "bearer", "basic",
    "authorization", "cookie", "x-api-key", "carimg_", "delivery", "key=", "token=",
    "sig=", "code=", "secret=", "password=",
)  # fmt: skip


def scrub(text: str) -> str:
    """Free text with every key, token, signature and cookie value it shows replaced."""
    lowered = text.lower()
    for marker in _SECRET_MARKERS:  # a plain loop: the cheapest test in CPython
        if marker in lowered:
            break
    else:
        return text
    text = redact(text)
    for pattern, replacement in _SECRET_TEXT:
        text = pattern.sub(replacement, text)
    return text


# Fields a record may carry (`extra=`) that the JSON line shows; the ones carimg fills from a
# fixed vocabulary (method, route template, client address) need no scrubbing.
_FIELDS = ("request_id", "method", "path", "route", "status", "duration_ms", "client", "job")
_PLAIN_FIELDS = frozenset({"method", "route", "client"})


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, request fields, exception."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": scrub(record.getMessage()),
        }
        for name in _FIELDS:
            value = record.__dict__.get(name)
            if value is not None:
                plain = name in _PLAIN_FIELDS or not isinstance(value, str)
                entry[name] = value if plain else scrub(value)
        if record.exc_info:
            entry["exception"] = scrub(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exception"] = scrub(record.exc_text)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The usual one-line text, scrubbed."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


def log_config(log_format: LogFormat = "json", level: str = "info") -> dict[str, Any]:
    """A `logging.config.dictConfig` for carimg and its server (works across worker processes):
    every record goes through the scrubbing formatter to stderr."""
    formatter = "carimg.logs.JsonFormatter" if log_format == "json" else "carimg.logs.TextFormatter"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"carimg": {"()": formatter}},
        "handlers": {
            "default": {
                "class": "logging.StreamHandler",
                "formatter": "carimg",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "carimg": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            # granian's own records, also what its Rust core logs (granian sets their level)
            "_granian": {"handlers": ["default"], "propagate": False},
        },
        "root": {"handlers": ["default"], "level": "WARNING"},
    }
