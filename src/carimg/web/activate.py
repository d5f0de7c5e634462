"""/activate: a signed-in human approves or denies a device login (RFC 8628 §3.3).

Signed-out visitors go to sign-in and come back with the code; the page shows the client's name
and what its key could do, and Approve / Deny are CSRF-protected POSTs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.domain import keys as key_rules
from carimg.domain.errors import DomainError, RateLimited
from carimg.domain.ratelimit import per_address
from carimg.web.csrf import CsrfProtected
from carimg.web.pages import render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)

# RFC 8628 §5.1: user codes are short, so entering them is rate-limited (per signed-in account).
CODE_ENTRIES_PER_MINUTE = 20

SCOPE_WORDS = {
    key_rules.IMAGES_READ: "fetch images and create signed image URLs, paid from your credits",
    key_rules.ACCOUNT_READ: "read your balance, usage and pricing",
    key_rules.BILLING_WRITE: "create checkout links for credit packs (it cannot pay)",
}


async def _check_entry_rate(services: ServicesDep, account_id: str) -> None:
    wait = await per_address(
        services.counters, services.clock, "activate", account_id, CODE_ENTRIES_PER_MINUTE
    )
    if wait is not None:
        raise RateLimited(f"Too many codes entered; try again in {wait} seconds.", retry_after=wait)


async def _page(request: Request, status: int = 200, **context: Any) -> Response:
    values: dict[str, Any] = {
        "user_code": "",
        "pending": None,
        "error": None,
        "decided": None,
        "scope_words": SCOPE_WORDS,
        **context,
    }
    return await render_page(request, "activate.html", status, **values)


@router.get("/activate")
async def activate_page(
    request: Request, services: ServicesDep, account: SignedIn, user_code: str = ""
) -> Response:
    """Without a code: a form to type it. With one: who asks, for what, and the two buttons."""
    if not user_code.strip():
        return await _page(request)
    try:
        await _check_entry_rate(services, account.id)
        pending = await services.device.pending(user_code)
    except DomainError as error:
        return await _page(request, error.status, user_code=user_code, error=error.detail)
    return await _page(request, user_code=pending.user_code, pending=pending)


@router.post("/activate", dependencies=[CsrfProtected])
async def decide(
    request: Request,
    services: ServicesDep,
    account: SignedIn,
    user_code: Annotated[str, Form(max_length=40)] = "",
    decision: Annotated[Literal["approve", "deny"], Form()] = "deny",
) -> Response:
    try:
        await _check_entry_rate(services, account.id)
        if decision == "approve":
            shown = await services.device.approve(user_code, account.email)
        else:
            shown = await services.device.deny(user_code)
    except DomainError as error:
        return await _page(request, error.status, user_code=user_code, error=error.detail)
    return await _page(request, user_code=shown.user_code, pending=shown, decided=decision)
