"""JSON request bodies with a size limit (413) and clear errors for malformed JSON (400)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request

from carimg.domain.errors import InvalidRequest, PayloadTooLarge


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, refusing (413) anything over `limit` bytes without reading it all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"The body is over this endpoint's limit of {limit // 1024} KiB.")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"The body is over this endpoint's limit of {limit // 1024} KiB.")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(body: bytes) -> Any:
    if not body.strip():
        raise InvalidRequest("The body is empty; send a JSON object.")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise InvalidRequest(f"The body is not valid JSON: {error}.") from None
