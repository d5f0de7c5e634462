"""Who is asking: API keys from `Authorization: Bearer` or `x-api-key`, scopes, rate windows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import APIKeyHeader, HTTPBearer

from carimg.domain.accounts import require_scope
from carimg.domain.oauth import is_access_token
from carimg.domain.records import Principal
from carimg.services import Services

# Declared for the OpenAPI document; the credential itself is read by `credential_of`.
bearer_scheme = HTTPBearer(
    auto_error=False, description="`Authorization: Bearer cimg_…` (or an OAuth access token)"
)
api_key_scheme = APIKeyHeader(name="x-api-key", auto_error=False, description="`x-api-key: cimg_…`")


async def services_of(request: Request) -> Services:
    # async: FastAPI runs a plain `def` dependency in a worker thread, a hop every request pays
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(services_of)]


def credential_of(request: Request) -> str | None:
    """The presented key: the Bearer credential, else `x-api-key`; None when neither is sent."""
    authorization = request.headers.get("authorization")
    if authorization is not None:
        scheme, _, value = authorization.strip().partition(" ")
        return value.strip() if scheme.lower() == "bearer" else authorization
    return request.headers.get("x-api-key")


async def principal_for(services: Services, request: Request) -> Principal:
    """The principal behind the request's credential (an API key, or a connected app's OAuth
    access token), counted against its rate windows."""
    credential = credential_of(request)
    if credential is not None and is_access_token(credential):
        principal = await services.oauth.authenticate(credential)
    else:
        principal = await services.accounts.authenticate(credential)
    request.state.principal = principal
    state = await services.rate.hit(principal)
    request.state.rate_headers = state.headers()
    return principal


def authenticated(*scopes: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency: the principal, counted against its rate windows, holding one of `scopes`."""

    async def dependency(
        request: Request,
        services: ServicesDep,
        _bearer: Annotated[object, Depends(bearer_scheme)] = None,
        _api_key: Annotated[object, Depends(api_key_scheme)] = None,
    ) -> Principal:
        principal = await principal_for(services, request)
        if scopes:
            require_scope(principal, *scopes)
        return principal

    return dependency
