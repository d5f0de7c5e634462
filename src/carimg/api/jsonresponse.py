"""Fast JSON bodies (orjson) for every response the API writes itself."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


def json_bytes(content: Any) -> bytes:
    return orjson.dumps(content)


class JSONBody(Response):
    """application/json rendered with orjson."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json_bytes(content)
