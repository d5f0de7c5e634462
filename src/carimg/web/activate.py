"""/activate: a signed-in human approves or denies a device login (RFC 8628)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.web.pages import render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)


@router.get("/activate")
async def activate_page(request: Request, account: SignedIn, user_code: str = "") -> Response:
    return await render_page(request, "error.html", heading="Activate", message="")
