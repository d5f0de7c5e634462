"""Sign-up, sign-in, sign-out and password reset pages (forms with CSRF tokens)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.api.per_address import client_ip
from carimg.domain.errors import DomainError
from carimg.domain.passwords import MIN_LENGTH
from carimg.domain.pricing import FREE_CREDITS
from carimg.domain.web_accounts import WebSession
from carimg.web.csrf import CsrfProtected
from carimg.web.pages import redirect, render_page
from carimg.web.sessions import (
    current_account,
    end_session,
    safe_next,
    session_token,
    start_session,
)

router = APIRouter(include_in_schema=False)
FormText = Annotated[str, Form()]


def _signed_in(request: Request, session: WebSession, url: str) -> Response:
    """A redirect to `url` that starts the new session."""
    response = redirect(url)
    start_session(request, response, session)
    return response


async def _form_error(
    request: Request, template: str, error: DomainError, **context: Any
) -> Response:
    """The form again, with the reason, under the error's status (429 keeps Retry-After)."""
    return await render_page(
        request, template, error.status, headers=error.headers, error=error.detail, **context
    )


@router.get("/signin")
async def signin_page(request: Request, next: str = "") -> Response:
    if await current_account(request) is not None:
        return redirect(safe_next(next))
    return await render_page(request, "signin.html", email="", error=None, next=safe_next(next))


@router.post("/signin", dependencies=[CsrfProtected])
async def signin(
    request: Request,
    services: ServicesDep,
    email: FormText = "",
    password: FormText = "",
    next: FormText = "",
) -> Response:
    target = safe_next(next)
    try:
        session = await services.web_accounts.sign_in(email, password, ip=client_ip(request))
    except DomainError as error:
        return await _form_error(request, "signin.html", error, email=email, next=target)
    return _signed_in(request, session, target)


@router.get("/signup")
async def signup_page(request: Request, next: str = "") -> Response:
    if await current_account(request) is not None:
        return redirect(safe_next(next))
    return await render_page(request, "signup.html", **_signup_context("", None, next))


def _signup_context(email: str, error: str | None, next: str) -> dict[str, Any]:
    return {
        "email": email,
        "error": error,
        "next": safe_next(next),
        "free_credits": FREE_CREDITS,
        "min_length": MIN_LENGTH,
    }


@router.post("/signup", dependencies=[CsrfProtected])
async def signup(
    request: Request,
    services: ServicesDep,
    email: FormText = "",
    password: FormText = "",
    next: FormText = "",
) -> Response:
    try:
        session = await services.web_accounts.sign_up(email, password, ip=client_ip(request))
    except DomainError as error:
        message = error.detail
        if error.status == 409:
            message += " Sign in instead, or reset the password if you forgot it."
        return await render_page(
            request,
            "signup.html",
            error.status,
            headers=error.headers,
            **_signup_context(email, message, next),
        )
    return _signed_in(request, session, safe_next(next))


@router.post("/signout", dependencies=[CsrfProtected])
async def signout(request: Request, services: ServicesDep) -> Response:
    token = session_token(request)
    if token:
        await services.web_accounts.sign_out(token)
    response = redirect("/?notice=signed-out")
    end_session(request, response)
    return response


@router.get("/forgot-password")
async def forgot_password_page(request: Request, services: ServicesDep) -> Response:
    return await render_page(
        request, "forgot_password.html", email="", error=None, sent=False, log_delivery=False
    )


@router.post("/forgot-password", dependencies=[CsrfProtected])
async def forgot_password(
    request: Request, services: ServicesDep, email: FormText = ""
) -> Response:
    context: dict[str, Any] = {"email": email, "log_delivery": services.settings.smtp_host is None}
    try:
        await services.web_accounts.request_reset(email, ip=client_ip(request))
    except DomainError as error:
        return await _form_error(request, "forgot_password.html", error, sent=False, **context)
    return await render_page(request, "forgot_password.html", error=None, sent=True, **context)


@router.get("/reset-password")
async def reset_password_page(request: Request, services: ServicesDep, token: str = "") -> Response:
    valid = bool(token) and await services.web_accounts.reset_is_valid(token)
    error = None if valid else "This reset link is unknown, used or expired; ask for a new one."
    return await render_page(
        request,
        "reset_password.html",
        200 if valid else 404,
        headers={"Referrer-Policy": "no-referrer"},
        token=token,
        valid=valid,
        error=error,
        min_length=MIN_LENGTH,
    )


@router.post("/reset-password", dependencies=[CsrfProtected])
async def reset_password(
    request: Request, services: ServicesDep, token: FormText = "", password: FormText = ""
) -> Response:
    try:
        session = await services.web_accounts.reset_password(token, password)
    except DomainError as error:
        return await _form_error(
            request,
            "reset_password.html",
            error,
            token=token,
            valid=error.status == 400,
            min_length=MIN_LENGTH,
        )
    return _signed_in(request, session, "/dashboard?notice=password-reset")
