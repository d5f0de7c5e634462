"""Server-rendered pages: one Jinja2 environment, `render_page`, redirects, static files.

Templates live in `web/templates/` and extend `base.html` (blocks `title`, `head`, `content`,
`scripts`); every page gets `request`, `account` (the signed-in Account or None), `path`,
`settings`, `notice` and the globals `csrf_field(request)` and `static_url(name)`.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import Request
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse, RedirectResponse, Response

from carimg.web import csrf
from carimg.web.sessions import current_account

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
STATIC_DIR = Path(__file__).resolve().parent / "static"

# Pages carry CSRF tokens and account data: never cached, never framed; scripts and styles come
# from /static only (no inline script or style attribute anywhere).
PAGE_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}

# Short messages a redirect can ask the next page to show (`?notice=`), never free text.
NOTICES = {
    "signed-out": "You are signed out.",
    "password-reset": "Your password is set; you are signed in.",
    "key-revoked": "The key is revoked; requests with it are refused from now on.",
    "device-approved": "Approved. The device receives its key at its next check.",
    "device-denied": "Denied. The device gets no key.",
    "checkout-cancelled": "The checkout was cancelled; nothing was charged.",
}


@cache
def static_url(name: str) -> str:
    """`/static/<name>?v=<content hash>`: browsers may cache it, a new release changes it."""
    version = hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest()[:10]
    return f"/static/{name}?v={version}"


def utc(value: datetime | None, empty: str = "never") -> str:
    """`2027-01-15 08:00 UTC` (the pages show UTC, like the API)."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if value else empty


environment = Environment(
    loader=FileSystemLoader(TEMPLATES_DIR),
    autoescape=select_autoescape(default=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.globals["csrf_field"] = csrf.csrf_field
environment.filters["utc"] = utc
environment.globals["static_url"] = static_url


async def render_page(
    request: Request,
    template: str,
    status: int = 200,
    *,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    """Render `template` with the page context; `headers` add to (or replace) PAGE_HEADERS."""
    account = await current_account(request)
    notice = NOTICES.get(request.query_params.get("notice", ""))
    values = {
        "request": request,
        "account": account,
        "path": request.url.path,
        "settings": request.app.state.settings,
        "notice": notice,
        **context,
    }
    html = environment.get_template(template).render(values)
    response = HTMLResponse(html, status_code=status, headers={**PAGE_HEADERS, **(headers or {})})
    csrf.set_cookie_if_new(request, response)
    return response


def redirect(url: str) -> Response:
    """303 See Other: after a form POST the browser GETs `url`."""
    return RedirectResponse(url, status_code=303, headers={"Cache-Control": "no-store"})
