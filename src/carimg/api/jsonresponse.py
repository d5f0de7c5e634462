"""Fast JSON bodies (orjson) for every response the API writes itself."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import orjson
from starlette.responses import Response


def json_bytes(content: Any) -> bytes:
    return orjson.dumps(content)


def problem_document(
    base_url: str, status: int, detail: str, request_id: str, title: str | None = None,
    **extensions: Any,
) -> dict[str, Any]:  # fmt: skip
    """An RFC 9457 problem document as every carimg error writes it."""
    return {
        "type": f"{base_url}/docs/errors#{status}",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "request_id": request_id,
        **extensions,
    }


class JSONBody(Response):
    """application/json rendered with orjson."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json_bytes(content)
