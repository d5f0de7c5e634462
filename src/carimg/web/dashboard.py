"""The signed-in dashboard: balance, usage, keys, buying credits."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.web.pages import render_page
from carimg.web.sessions import SignedIn

router = APIRouter(include_in_schema=False)


@router.get("/dashboard")
async def dashboard_page(request: Request, account: SignedIn) -> Response:
    return await render_page(request, "dashboard.html")
