"""Browser sessions: the signed `carimg_session` cookie, who is signed in, and `require_account`.

The cookie is `sign_value(secret_key, "carimg_session", {"exp", "acc", "sid"})`: the embed
endpoint accepts it (signature and `exp`) for free previews without a database read; pages also
check that the session `sid` is still live in the database, so sign-out and a password reset end
it for pages at once.
"""

from __future__ import annotations

import math
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import Depends, Request
from starlette.responses import Response

from carimg.domain.embed import SESSION_COOKIE
from carimg.domain.records import Account
from carimg.domain.signing import sign_value, unsign_value
from carimg.domain.web_accounts import WebSession
from carimg.services import Services

_UNSET = object()  # not looked up yet in this request


class SignInRequired(Exception):
    """A page needs a signed-in account; answered with a redirect to the sign-in page."""

    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def is_secure(request: Request) -> bool:
    """Cookies get `Secure` when the deployment's public address is https."""
    return bool(_services(request).settings.base_url.startswith("https://"))


def _payload(request: Request) -> dict[str, Any] | None:
    token = request.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    services = _services(request)
    payload = unsign_value(services.secret_key, SESSION_COOKIE, token)
    if not payload or float(payload.get("exp", 0)) <= services.clock.time():
        return None
    if not isinstance(payload.get("sid"), str) or not isinstance(payload.get("acc"), str):
        return None
    return payload


def session_token(request: Request) -> str | None:
    """The session secret in a validly signed, unexpired cookie (not yet checked as live)."""
    payload = _payload(request)
    return str(payload["sid"]) if payload else None


async def current_account(request: Request) -> Account | None:
    """The signed-in account (live session, active account), read once per request."""
    cached = getattr(request.state, "web_account", _UNSET)
    if cached is None or isinstance(cached, Account):
        return cached
    payload = _payload(request)
    account = None
    if payload is not None:
        found = await _services(request).web_accounts.session_account(str(payload["sid"]))
        if found is not None and found.id == payload["acc"]:
            account = found
    request.state.web_account = account
    return account


async def signed_in_account(request: Request) -> str | None:
    """The signed-in account's id, or None."""
    account = await current_account(request)
    return account.id if account else None


def safe_next(value: str | None, default: str = "/dashboard") -> str:
    """A local path to return to after signing in; anything else (other sites) is `default`."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return default
    if any(ord(char) < 32 for char in value):
        return default
    return value


def signin_url(next_path: str) -> str:
    return f"/signin?next={quote(next_path, safe='/')}"


async def require_account(request: Request) -> Account:
    """A dependency: the signed-in account; signed-out visitors go to /signin?next=<this page>."""
    account = await current_account(request)
    if account is None:
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise SignInRequired(target)
    return account


SignedIn = Annotated[Account, Depends(require_account)]


def start_session(request: Request, response: Response, session: WebSession) -> None:
    """Set the session cookie (HttpOnly, SameSite=Lax, Secure on https) for a new session."""
    services = _services(request)
    exp = math.floor(session.expires_at.timestamp())
    token = sign_value(
        services.secret_key, SESSION_COOKIE, {"exp": exp, "acc": session.account.id,
                                              "sid": session.token},
    )  # fmt: skip
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=max(1, exp - math.floor(services.clock.time())),
        path="/",
        httponly=True,
        samesite="lax",
        secure=is_secure(request),
    )
    request.state.web_account = session.account


def end_session(request: Request, response: Response) -> None:
    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=is_secure(request)
    )
    request.state.web_account = None
