"""Logging that never writes keys, tokens or signatures: access-log paths are redacted."""

from __future__ import annotations

import copy
import logging
import re
from typing import Any

_SECRET_QUERY = re.compile(
    r"([?&](?:key|api_key|apikey|token|access_token|sig|device_code)=)[^&#\s]*", re.IGNORECASE
)
_DELIVERY_TOKEN = re.compile(r"(/api/v1/delivery/)[^/?#\s]+")
REDACTED = "[redacted]"


def redact(path: str) -> str:
    """A request path with delivery tokens and secret query values replaced."""
    path = _DELIVERY_TOKEN.sub(rf"\g<1>{REDACTED}", path)
    return _SECRET_QUERY.sub(rf"\g<1>{REDACTED}", path)


class RedactSecrets(logging.Filter):
    """Redacts the path of uvicorn access-log records (args: client, method, path, …)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact(args[2]), *args[3:])
        return True


def uvicorn_log_config() -> dict[str, Any]:
    """uvicorn's logging configuration with the access log redacted (works across workers)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_secrets"] = {"()": "carimg.logs.RedactSecrets"}
    config["handlers"]["access"]["filters"] = ["redact_secrets"]
    return config
