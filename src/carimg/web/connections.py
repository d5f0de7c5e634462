"""/dashboard/connections: the apps connected through OAuth; revoking one ends its tokens (and
the signed URLs it minted) at once."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.api.auth import ServicesDep
from carimg.domain.errors import DomainError
from carimg.domain.oauth import SCOPE_TEXT, redirect_host
from carimg.web.csrf import CsrfProtected
from carimg.web.pages import redirect, render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)


async def _page(
    request: Request, services: ServicesDep, account_id: str, status: int = 200, error: str = ""
) -> Response:
    connections = await services.oauth.connections(account_id)
    return await render_page(
        request,
        "connections.html",
        status,
        connections=connections,
        scope_text=SCOPE_TEXT,
        redirect_host=redirect_host,
        error=error or None,
    )


@router.get("/dashboard/connections")
async def connections_page(request: Request, services: ServicesDep, account: SignedIn) -> Response:
    return await _page(request, services, account.id)


@router.post("/dashboard/connections/{connection_id}/revoke", dependencies=[CsrfProtected])
async def revoke_connection(
    connection_id: str, request: Request, services: ServicesDep, account: SignedIn
) -> Response:
    try:
        await services.oauth.revoke_connection(account.id, connection_id)
    except DomainError as error:
        return await _page(request, services, account.id, error.status, error.detail)
    return redirect("/dashboard/connections?revoked=1")
