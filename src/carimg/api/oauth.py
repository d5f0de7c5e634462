"""OAuth 2.1 endpoints for connected apps: discovery metadata, registration, authorization,
tokens and revocation. The token endpoints answer in OAuth's own error format
(`{"error", "error_description"}`, RFC 6749 §5.2), which OAuth clients expect, not problems."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import unquote, urlencode

from authlib.oauth2.rfc6749 import OAuth2Error
from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema
from starlette.responses import RedirectResponse, Response

from carimg.api.auth import ServicesDep
from carimg.api.bodies import parse_json, read_body
from carimg.api.cors import CORS, cors_on_errors, preflight
from carimg.api.jsonresponse import JSONBody
from carimg.api.per_address import retry_after
from carimg.api.problems import problem_responses
from carimg.domain.errors import InvalidRequest
from carimg.domain.oauth import (
    REGISTRATIONS_PER_MINUTE,
    REVOCATIONS_PER_MINUTE,
    TOKEN_REQUESTS_PER_MINUTE,
    RedirectError,
)
from carimg.services import Services

T = TypeVar("T")
router = APIRouter(tags=["oauth"])
FORM = "application/x-www-form-urlencoded"


def _absent_not_null(schema: dict[str, Any]) -> None:
    schema.pop("default")  # the member is left out, never null


class OAuthErrorResponse(BaseModel):
    """RFC 6749 §5.2: the error body of the register, token and revoke endpoints."""

    error: str
    error_description: str | SkipJsonSchema[None] = Field(
        default=None, json_schema_extra=_absent_not_null
    )


_CLIENT = {
    "client_id": {"type": "string", "description": "From /oauth/register."},
    "client_secret": {"type": "string", "description": "Confidential clients (or Basic auth)."},
}


def _oauth_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """RFC 6749 §5.2 errors; 401 is an unknown or unauthenticated client (every client must
    register first), 429 carries Retry-After."""
    return {
        status: {
            "description": "OAuth error (RFC 6749 §5.2).",
            "model": OAuthErrorResponse,  # one named schema: generators make one type of it
        }
        for status in statuses
    }


def _form_body(description: str, required: list[str], **members: Any) -> dict[str, Any]:
    schema = {"type": "object", "required": required, "properties": members | _CLIENT}
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {FORM: {"schema": schema}},
        }
    }


_URI_TAIL = r'[!"$-?A-Z\\^-~]*'  # printable ASCII without # (a fragment), @, [ or ]
_REDIRECT_URI = (
    r"^(https://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,5})?"
    r"|http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]{1,5})?)"
    rf"([/?]{_URI_TAIL})?$"
    r"|^(?!(https?|javascript|data|file|vbscript|about|blob):)[a-z][a-z0-9+.-]*:"
    rf"{_URI_TAIL}$"
)
_REGISTRATION = {
    "title": "ClientMetadata",
    "type": "object",
    "required": ["redirect_uris"],
    "properties": {
        "redirect_uris": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "string",
                "description": (
                    "https, http to localhost, or a private-use scheme (RFC 8252 §7.1, such as "
                    "com.example.app:/callback); no fragment, no user information before the host."
                ),
                "pattern": _REDIRECT_URI,
                "examples": ["https://app.example/callback", "http://127.0.0.1:33418/callback"],
            },
        },
        "client_name": {"type": "string"},
        "token_endpoint_auth_method": {
            "type": "string",
            "enum": ["none", "client_secret_post", "client_secret_basic"],
        },
        "grant_types": {
            "type": "array",
            "items": {"type": "string", "enum": ["authorization_code", "refresh_token"]},
        },
        "response_types": {"type": "array", "items": {"type": "string", "enum": ["code"]}},
        "client_uri": {"type": "string", "format": "uri"},
        "logo_uri": {"type": "string", "format": "uri"},
        "software_id": {"type": "string"},
        "software_version": {"type": "string"},
    },
}
_AUTHORIZE_PARAMETERS = [
    {"name": name, "in": "query", "required": required, "description": text, "schema": schema}
    for name, required, text, schema in (
        ("client_id", True, "From /oauth/register.", {"type": "string"}),
        ("response_type", True, "Always code.", {"type": "string", "enum": ["code"]}),
        ("code_challenge", True, "PKCE: BASE64URL(SHA-256(verifier)).", {
            "type": "string", "pattern": "^[A-Za-z0-9._~-]{43,128}$"}),
        ("code_challenge_method", True, "Always S256.", {"type": "string", "enum": ["S256"]}),
        ("redirect_uri", False, "One the client registered (exactly).", {"type": "string"}),
        ("scope", False, "Space-separated; images:read account:read by default.",
         {"type": "string"}),
        ("state", False, "Returned to the redirect URI.", {"type": "string"}),
        ("resource", False, "This server's MCP endpoint (RFC 8707).", {"type": "string"}),
    )
]  # fmt: skip
REGISTRATION_LIMIT = 16 * 1024
_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _oauth_error(error: OAuth2Error, headers: Mapping[str, str] | None = None) -> Response:
    body = {"error": error.error}
    if error.description:
        body["error_description"] = error.description
    code = error.status_code
    answer = _NO_STORE | CORS | dict(headers or {})
    if code == 401:
        answer["WWW-Authenticate"] = 'Basic realm="carimg"'
    return JSONBody(body, status_code=code, headers=answer)


async def _over_limit(
    services: Services, request: Request, kind: str, limit: int
) -> Response | None:
    """The OAuth error (429 with Retry-After) once this address made more than `limit`
    requests of `kind` this minute; None while within it."""
    retry = await retry_after(services, request, f"oauth-{kind}", limit)
    if retry is None:
        return None
    error = OAuth2Error(
        f"More than {limit} requests a minute to this endpoint from this address; "
        f"retry in {retry} s.",
        status_code=429,
        error="temporarily_unavailable",
    )
    return _oauth_error(error, {"Retry-After": str(retry)})


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    """client_secret_basic: url-encoded id and secret in `Authorization: Basic` (RFC 6749
    §2.3.1)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, _, secret = base64.b64decode(value.strip()).decode("utf-8").partition(":")
    except ValueError:
        return None
    return unquote(client_id), unquote(secret)


async def _form(request: Request) -> Mapping[str, str]:
    form = await request.form()
    return {name: value for name, value in form.items() if isinstance(value, str)}


async def _client_request(
    request: Request,
    services: Services,
    kind: str,
    limit: int,
    call: Callable[[Mapping[str, str], tuple[str, str] | None], Awaitable[T]],
    answer: Callable[[T], Response],
) -> Response:
    """A form request of an authenticating client (token, revoke): limited per address, the
    client's credentials in the form or Basic, failures in OAuth's error format."""
    limited = await _over_limit(services, request, kind, limit)
    if limited is not None:
        return limited
    try:
        with cors_on_errors():
            result = await call(await _form(request), _basic_credentials(request))
    except OAuth2Error as error:
        return _oauth_error(error)
    return answer(result)


@router.get(
    "/.well-known/oauth-protected-resource",
    operation_id="get_protected_resource_metadata",
    summary="OAuth protected-resource metadata of the agent endpoint (RFC 9728)",
)
@router.get("/.well-known/oauth-protected-resource/api/mcp", include_in_schema=False)
async def protected_resource_metadata(services: ServicesDep) -> Response:
    return JSONBody(services.oauth.protected_resource_metadata(), headers=CORS)


@router.get(
    "/.well-known/oauth-authorization-server",
    operation_id="get_authorization_server_metadata",
    summary="OAuth authorization server metadata (RFC 8414)",
)
async def authorization_server_metadata(services: ServicesDep) -> Response:
    return JSONBody(services.oauth.authorization_server_metadata(), headers=CORS)


@router.options("/.well-known/oauth-protected-resource", include_in_schema=False)
@router.options("/.well-known/oauth-protected-resource/api/mcp", include_in_schema=False)
@router.options("/.well-known/oauth-authorization-server", include_in_schema=False)
@router.options("/oauth/register", include_in_schema=False)
@router.options("/oauth/token", include_in_schema=False)
@router.options("/oauth/revoke", include_in_schema=False)
async def oauth_preflight() -> Response:
    """Browser-based agent hosts ask before their cross-origin requests."""
    return preflight()


@router.post(
    "/oauth/register",
    operation_id="register_oauth_client",
    summary="Register a connected app (RFC 7591 dynamic client registration)",
    status_code=201,
    response_class=Response,
    responses={
        201: {"description": "The client's id (and secret for confidential clients)."},
        **_oauth_errors(400, 429),
        **problem_responses(413),
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "Client metadata (RFC 7591 §2).",
            "content": {"application/json": {"schema": _REGISTRATION}},
        }
    },
)
async def register_client(request: Request, services: ServicesDep) -> Response:
    """20 registrations a minute per address."""
    limited = await _over_limit(services, request, "register", REGISTRATIONS_PER_MINUTE)
    if limited is not None:
        return limited
    try:
        with cors_on_errors():
            body = parse_json(await read_body(request, REGISTRATION_LIMIT))
    except InvalidRequest as error:
        return JSONBody(
            {"error": "invalid_client_metadata", "error_description": error.detail},
            status_code=400,
            headers=CORS,
        )
    if not isinstance(body, dict):
        body = {}
    try:
        registered = await services.oauth.register(body)
    except OAuth2Error as error:
        return _oauth_error(error)
    return JSONBody(registered, status_code=201, headers=_NO_STORE | CORS)


@router.get(
    "/oauth/authorize",
    operation_id="authorize_oauth_client",
    summary="Start connecting an app: PKCE (S256) authorization request, then the consent page",
    response_class=Response,
    responses={
        302: {"description": "To the consent page, or an error to the client's redirect URI."},
        **problem_responses(400),
    },
    openapi_extra={"parameters": _AUTHORIZE_PARAMETERS},
)
async def authorize(request: Request, services: ServicesDep) -> Response:
    """Checks the request, then sends the browser to /oauth/consent (errors the client can act
    on go back to its redirect URI; an unknown client or redirect URI stops here)."""
    params = dict(request.query_params.items())
    try:
        checked = await services.oauth.authorization_request(params)
    except RedirectError as error:
        return RedirectResponse(error.location, status_code=302, headers=_NO_STORE)
    except OAuth2Error as error:
        raise InvalidRequest(
            f"This app's authorization request is not valid: {error.description} "
            "(nothing was connected; tell the app's developer)."
        ) from None
    target = "/oauth/consent?" + urlencode({"request": services.oauth.seal(checked)})
    return RedirectResponse(target, status_code=302, headers=_NO_STORE)


@router.post(
    "/oauth/token",
    operation_id="create_oauth_token",
    summary="Exchange an authorization code (with its PKCE verifier) or a refresh token",
    response_class=Response,
    responses={
        200: {"description": "Access and refresh tokens (RFC 6749 §5.1)."},
        **_oauth_errors(400, 401, 429),
    },
    openapi_extra=_form_body(
        "A code exchange or a refresh; the client authenticates in the form or with Basic.",
        ["grant_type"],
        grant_type={"type": "string", "enum": ["authorization_code", "refresh_token"]},
        code={"type": "string"},
        redirect_uri={"type": "string"},
        code_verifier={"type": "string"},
        refresh_token={"type": "string"},
        scope={"type": "string"},
        resource={"type": "string"},
    ),
)
async def token(request: Request, services: ServicesDep) -> Response:
    """Access tokens are short-lived; each refresh token works once and is replaced. 60
    requests a minute per address."""
    return await _client_request(
        request,
        services,
        "token",
        TOKEN_REQUESTS_PER_MINUTE,
        services.oauth.token,
        lambda issued: JSONBody(issued, headers=_NO_STORE | CORS),
    )


@router.post(
    "/oauth/revoke",
    operation_id="revoke_oauth_token",
    summary="Revoke an access or refresh token (RFC 7009)",
    response_class=Response,
    responses={200: {"description": "Revoked (or unknown)."}, **_oauth_errors(400, 401, 429)},
    openapi_extra=_form_body(
        "The token; the client authenticates in the form or with Basic.",
        ["token"],
        token={"type": "string", "minLength": 1},
        token_type_hint={"type": "string", "enum": ["access_token", "refresh_token"]},
    ),
)
async def revoke(request: Request, services: ServicesDep) -> Response:
    """200 even for unknown tokens; revoking a refresh token ends the connection's tokens. 60
    requests a minute per address."""
    return await _client_request(
        request,
        services,
        "revoke",
        REVOCATIONS_PER_MINUTE,
        services.oauth.revoke,
        lambda _: Response(status_code=200, headers=_NO_STORE | CORS),
    )
