"""Drive the pages like a browser: forms with their CSRF tokens, sign-up, cookies."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx

PASSWORD = "correct horse battery"


def csrf_of(html: str) -> str:
    """The CSRF token of the forms on a page."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


async def get_csrf(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    assert page.status_code in (200, 201), page.text
    return csrf_of(page.text)


async def post_form(
    client: httpx.AsyncClient, path: str, data: dict[str, Any], *, page: str | None = None
) -> httpx.Response:
    """POST a form the way a browser does: with the CSRF token of the page that shows it."""
    token = await get_csrf(client, page or path)
    return await client.post(path, data={"csrf_token": token, **data})


def new_email() -> str:
    return f"person-{uuid.uuid4().hex[:8]}@example.com"


async def sign_up(
    client: httpx.AsyncClient, email: str | None = None, password: str = PASSWORD
) -> str:
    email = email or new_email()
    response = await post_form(client, "/signup", {"email": email, "password": password})
    assert response.status_code == 303, response.text
    return email


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = PASSWORD
) -> httpx.Response:
    return await post_form(client, "/signin", {"email": email, "password": password})


def set_cookie_headers(response: httpx.Response, name: str) -> list[str]:
    return [
        value for value in response.headers.get_list("set-cookie") if value.startswith(f"{name}=")
    ]
