"""Web page fixtures: cheap password hashing, and a browser-like client that signs up."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest

PASSWORD = "correct horse battery"


@pytest.fixture
def overrides() -> dict[str, Any]:
    """Tests hash with tiny argon2id parameters (the defaults take ~0.2 s per hash)."""
    return {"password_hash_memory_kib": 64, "password_hash_iterations": 1}


def csrf_of(html: str) -> str:
    """The CSRF token of the first form on a page."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


async def get_csrf(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    assert page.status_code == 200, page.text
    return csrf_of(page.text)


async def post_form(
    client: httpx.AsyncClient, path: str, data: dict[str, Any], *, page: str | None = None
) -> httpx.Response:
    """POST a form the way a browser does: the CSRF token from the page that shows it."""
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


@pytest.fixture
async def signed_in(client: httpx.AsyncClient) -> str:
    """The client is signed in to a new account; returns its e-mail address."""
    return await sign_up(client)
