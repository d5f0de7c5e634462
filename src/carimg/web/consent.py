"""/oauth/consent: a signed-in person approves or denies an app's connection.

The page shows the app (its registered name and where the browser goes back to), the account,
its balance and each permission asked for; billing:write is listed only when the app asked, and
the person may untick it. Approve and Deny are CSRF-protected POSTs that end in a redirect back
to the app (with a one-time code, or access_denied).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from carimg.api.auth import ServicesDep
from carimg.domain.errors import DomainError
from carimg.domain.keys import BILLING_WRITE
from carimg.domain.oauth import SCOPE_TEXT
from carimg.web.csrf import CsrfProtected
from carimg.web.pages import render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)


async def _error(request: Request, error: DomainError) -> Response:
    return await render_page(
        request,
        "error.html",
        error.status,
        heading="This connection request cannot be used",
        message=error.detail,
    )


@router.get("/oauth/consent")
async def consent_page(request: Request, services: ServicesDep, account: SignedIn) -> Response:
    sealed = request.query_params.get("request", "")
    try:
        asked = services.oauth.unseal(sealed)
    except DomainError as error:
        return await _error(request, error)
    balance = await services.ledger.balance(account.id)
    return await render_page(
        request,
        "consent.html",
        asked=asked,
        sealed=sealed,
        balance=balance,
        scope_text=SCOPE_TEXT,
        optional={BILLING_WRITE},
        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY"},
    )


@router.post("/oauth/consent", dependencies=[CsrfProtected])
async def decide(
    request: Request,
    services: ServicesDep,
    account: SignedIn,
    sealed: Annotated[str, Form(alias="request")],
    decision: Annotated[Literal["approve", "deny"], Form()],
    scopes: Annotated[list[str] | None, Form()] = None,
) -> Response:
    """Approve: the required scopes plus the optional ones left ticked; Deny: access_denied."""
    try:
        asked = services.oauth.unseal(sealed)
        if decision == "deny":
            location = services.oauth.deny(asked)
        else:
            kept = tuple(s for s in asked.scopes if s != BILLING_WRITE or s in (scopes or ()))
            location = await services.oauth.approve(account, asked, kept)
    except DomainError as error:
        return await _error(request, error)
    return RedirectResponse(location, status_code=303, headers={"Cache-Control": "no-store"})
