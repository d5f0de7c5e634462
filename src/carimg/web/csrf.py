"""CSRF protection for every form: a signed double-submit token bound to the session.

The `carimg_csrf` cookie holds a random seed; a form's hidden `csrf_token` is an HMAC (keyed by
the deployment secret) of that seed and the session, so another site can neither read nor forge
it, and a token from before sign-in (or from another session) is refused after it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from fastapi import Depends, Request
from markupsafe import Markup
from starlette.responses import Response

from carimg.web.sessions import is_secure, session_token

CSRF_COOKIE = "carimg_csrf"
CSRF_FIELD = "csrf_token"
COOKIE_MAX_AGE = 30 * 86400


class CsrfRejected(Exception):
    """A form came without a valid CSRF token (answered 403)."""


def _seed(request: Request) -> str:
    seed = request.cookies.get(CSRF_COOKIE) or getattr(request.state, "csrf_seed", None)
    if not seed:
        seed = secrets.token_urlsafe(24)
        request.state.csrf_seed = seed  # `set_cookie_if_new` sends it with the page
    return str(seed)


def _token(request: Request, seed: str) -> str:
    secret: str = request.app.state.services.secret_key
    key = hashlib.sha256(f"carimg:csrf:{secret}".encode()).digest()
    session = hashlib.sha256((session_token(request) or "").encode()).hexdigest()
    return hmac.new(key, f"{seed}|{session}".encode(), hashlib.sha256).hexdigest()


def csrf_token(request: Request) -> str:
    return _token(request, _seed(request))


def csrf_field(request: Request) -> Markup:
    """The hidden input every POST form includes: `{{ csrf_field(request) }}`."""
    return Markup('<input type="hidden" name="{}" value="{}">').format(
        CSRF_FIELD, csrf_token(request)
    )


def set_cookie_if_new(request: Request, response: Response) -> None:
    """Send the seed cookie when this request made one (its first page)."""
    seed = getattr(request.state, "csrf_seed", None)
    if seed and not request.cookies.get(CSRF_COOKIE):
        response.set_cookie(
            CSRF_COOKIE,
            seed,
            max_age=COOKIE_MAX_AGE,
            path="/",
            httponly=True,
            samesite="lax",
            secure=is_secure(request),
        )


async def verify_csrf(request: Request) -> None:
    """A dependency for POST handlers: 403 unless the form's token matches this browser."""
    form: Any = await request.form()
    sent = form.get(CSRF_FIELD)
    seed = request.cookies.get(CSRF_COOKIE)
    if (
        not isinstance(sent, str)
        or not seed
        or not hmac.compare_digest(sent.encode(), _token(request, seed).encode())  # any text
    ):
        raise CsrfRejected()


CsrfProtected = Depends(verify_csrf)
