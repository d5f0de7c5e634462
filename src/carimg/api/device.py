"""Device login (RFC 8628): POST /api/auth/device/code and POST /api/auth/device/token.

Both are public and read JSON, `application/x-www-form-urlencoded` or (the code request) an empty
body. Token errors are OAuth error bodies (RFC 6749 §5.2), not problem documents, because device
clients are OAuth clients. The human approves at `/activate` (`web/activate.py`).
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import parse_qsl

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.api.bodies import body_openapi, parse_json, read_body, validate_body
from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody
from carimg.api.per_address import client_ip
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.domain.device import (
    CLIENT_NAME_MAX,
    DeviceFlowError,
)
from carimg.domain.errors import DomainError, InvalidParameter, InvalidRequest

router = APIRouter(tags=["device login"])
BODY_LIMIT = 4 * 1024
FORM = "application/x-www-form-urlencoded"
DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class DeviceCodeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    client_name: str | None = Field(
        default=None,
        max_length=CLIENT_NAME_MAX,
        description="Names the key to be created (shown to the approving human); no control, "
        "format, private-use or unassigned characters (Unicode category C).",
        json_schema_extra={"pattern": r"^\P{C}*$"},
    )


class DeviceTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    device_code: str = Field(min_length=1, max_length=200)
    grant_type: str | None = Field(
        default=None,
        description=f"Optional; when sent it must be `{DEVICE_CODE_GRANT}`.",
        json_schema_extra={"enum": [DEVICE_CODE_GRANT]},
    )
    client_id: str | None = Field(
        default=None, max_length=200, description="Optional and ignored (RFC 8628 clients)."
    )


class DeviceAuthorizationResponse(BaseModel):
    """RFC 8628 §3.2."""

    device_code: str
    user_code: str = Field(examples=["BCDF-GHJK"])
    verification_uri: str
    verification_uri_complete: str
    expires_in: int = Field(examples=[600])
    interval: int = Field(examples=[5])
    request_id: str


class DeviceTokenResponse(BaseModel):
    """RFC 6749 §5.1, plus the key under the names the rest of the API uses."""

    access_token: str = Field(description="The new `cimg_` key, shown only in this response.")
    token_type: Literal["Bearer"]
    scope: str = Field(examples=["images:read account:read billing:write"])
    api_key: str = Field(description="The same key as access_token.")
    key_id: str
    key_prefix: str
    request_id: str


class OAuthError(BaseModel):
    """RFC 6749 §5.2 / RFC 8628 §3.5."""

    error: Literal[
        "authorization_pending",
        "slow_down",
        "access_denied",
        "expired_token",
        "invalid_request",
        "unsupported_grant_type",
    ]
    error_description: str
    request_id: str


async def _fields(request: Request) -> Any:
    """The body's members: a form, else JSON; an empty body is no members."""
    body = await read_body(request, BODY_LIMIT)
    if not body.strip():
        return {}
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media_type != FORM:
        return parse_json(body)
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
    except (UnicodeDecodeError, ValueError):
        raise InvalidRequest("The form body is not valid UTF-8 form encoding.") from None
    fields: dict[str, str] = {}
    for name, value in pairs:
        if name in fields:
            raise InvalidParameter(name, f"'{name}' is repeated.")
        fields[name] = value
    return fields


def _oauth_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {
        status: {
            "description": "OAuth error (RFC 6749 §5.2); 429 carries Retry-After.",
            "model": OAuthError,
        }
        for status in statuses
    }


@router.post(
    "/api/auth/device/code",
    operation_id="create_device_code",
    summary="Start a device login (RFC 8628): a device code to poll with, a user code to approve",
    status_code=201,
    response_class=Response,
    responses={
        201: {
            "description": "Device authorization response.",
            "model": DeviceAuthorizationResponse,
        },
        **problem_responses(400, 413, 429, 503),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(
        DeviceCodeRequest,
        required=False,
        description="Optional: the client's name.",
        media_types=("application/json", FORM),
    ),
)
async def create_device_code(request: Request, services: ServicesDep) -> Response:
    """Codes live ten minutes; 20 requests a minute per address."""
    body = validate_body(DeviceCodeRequest, await _fields(request))
    started = await services.device.start(body.client_name, ip=client_ip(request))
    activate = f"{services.settings.base_url}/activate"
    return JSONBody(
        {
            "device_code": started.device_code,
            "user_code": started.user_code,
            "verification_uri": activate,
            "verification_uri_complete": f"{activate}?user_code={started.user_code}",
            "expires_in": started.expires_in,
            "interval": started.interval,
            "request_id": request_id_of(request),
        },
        status_code=201,
        headers=NO_STORE,
    )


def _oauth_error(
    request: Request, status: int, error: str, description: str, **headers: str
) -> Response:
    body = {"error": error, "error_description": description, "request_id": request_id_of(request)}
    return JSONBody(body, status_code=status, headers=NO_STORE | headers)


@router.post(
    "/api/auth/device/token",
    operation_id="create_device_token",
    summary="Poll for the key of an approved device login (RFC 8628 §3.4)",
    status_code=200,
    response_class=Response,
    responses={
        200: {"description": "The new key, returned exactly once.", "model": DeviceTokenResponse},
        **_oauth_responses(400, 429),
        **problem_responses(413, 503),
    },
    dependencies=[StrictQuery],
    openapi_extra=body_openapi(
        DeviceTokenRequest,
        description="The device_code to poll with.",
        media_types=("application/json", FORM),
    ),
)
async def create_device_token(request: Request, services: ServicesDep) -> Response:
    """400 authorization_pending until approved; 429 slow_down when polled faster than the
    interval (or over 60 polls a minute per address); the key exactly once, then the code is
    consumed (invalid_request)."""
    try:
        body = validate_body(DeviceTokenRequest, await _fields(request))
        if body.grant_type is not None and body.grant_type != DEVICE_CODE_GRANT:
            return _oauth_error(
                request,
                400,
                "unsupported_grant_type",
                f"grant_type must be {DEVICE_CODE_GRANT} (or left out).",
            )
        grant = await services.device.poll(body.device_code, ip=client_ip(request))
    except DeviceFlowError as error:
        return _oauth_error(request, error.status, error.error, error.detail, **error.headers)
    except DomainError as error:
        if error.status != 400:
            raise
        return _oauth_error(request, 400, "invalid_request", error.detail)
    return JSONBody(
        {
            "access_token": grant.key,
            "token_type": "Bearer",
            "scope": " ".join(grant.record.scopes),
            "api_key": grant.key,
            "key_id": grant.record.id,
            "key_prefix": grant.record.prefix,
            "request_id": request_id_of(request),
        },
        headers=NO_STORE,
    )
