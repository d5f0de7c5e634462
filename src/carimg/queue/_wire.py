"""The job's wire format: JSON (never pickle: Redis contents must not run code in a worker)."""

from __future__ import annotations

import json
from typing import Any

JOB_FUNCTION = "render_source"


def job_id(queue_name: str, key: str) -> str:
    """One job id per source: every process that needs the same source joins the same job."""
    return f"{queue_name}:{key}"


def dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def loads(data: bytes) -> Any:
    return json.loads(data)
