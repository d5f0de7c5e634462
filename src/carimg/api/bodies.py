"""JSON request bodies with a size limit (413) and clear errors for malformed JSON (400)."""

from __future__ import annotations

from typing import Any, TypeVar

import orjson
from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from carimg.domain.errors import InvalidParameter, InvalidRequest, PayloadTooLarge

Model = TypeVar("Model", bound=BaseModel)


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


def validate_body(model: type[Model], raw: Any) -> Model:
    """The body as `model` (unknown properties refused), or 400 naming the failing member."""
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        name = ".".join(str(part) for part in first["loc"]) or "body"
        raise InvalidParameter(name, f"Invalid '{name}': {first['msg']}.") from None


def body_openapi(
    *models: type[BaseModel],
    description: str,
    required: bool = True,
    media_types: tuple[str, ...] = ("application/json",),
) -> dict[str, Any]:
    """`openapi_extra` documenting a body the endpoint reads itself.

    Declaring the body as a parameter would make the framework read and parse it before the
    endpoint could refuse it (413 over the limit, 401 without a key).
    """
    schemas = [model.model_json_schema() for model in models]
    schema = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    return {
        "requestBody": {
            "required": required,
            "description": description,
            "content": {media_type: {"schema": schema} for media_type in media_types},
        }
    }
