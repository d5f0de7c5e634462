"""Web pages for people: sign-up and sign-in, the dashboard, device activation (and, from other
modules, the home page, the playground and OAuth consent). Server-rendered with Jinja2, no
front-end build; static files under /static.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from fastapi.staticfiles import StaticFiles
from starlette.responses import Response

from carimg.web import activate, auth_pages, connections, consent, dashboard, home, playground
from carimg.web.csrf import CsrfRejected
from carimg.web.pages import STATIC_DIR, redirect, render_page
from carimg.web.sessions import SignInRequired, signin_url

router = APIRouter(include_in_schema=False)
router.include_router(auth_pages.router)
router.include_router(dashboard.router)
router.include_router(consent.router)
router.include_router(connections.router)
router.include_router(activate.router)
router.include_router(home.router)
router.include_router(playground.router)


async def _sign_in_required(request: Request, error: Exception) -> Response:
    assert isinstance(error, SignInRequired)
    return redirect(signin_url(error.next_path))


async def _csrf_rejected(request: Request, error: Exception) -> Response:
    return await render_page(
        request,
        "error.html",
        403,
        heading="This form expired",
        message="The form was sent without a valid security token (it may be from an old tab, "
        "or from another site). Go back, reload the page and try again.",
    )


def install(app: FastAPI) -> None:
    """Static files and the answers to signed-out visits and forged forms."""
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_exception_handler(SignInRequired, _sign_in_required)
    app.add_exception_handler(CsrfRejected, _csrf_rejected)
