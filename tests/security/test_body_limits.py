"""Request bodies over their limits are refused (413) before they are read whole.

Each endpoint that reads a body gets one many times its limit, once with a truthful
Content-Length (refused before a byte is read) and once chunked (refused within one chunk of
the limit). Reading stops early, so a client cannot make the server buffer megabytes.
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from tests.conftest import Customer
from tests.security.asgi_body import CHUNK, post_oversized

KIB = 1024
# (path, limit in bytes, needs a key, content type): limits from the spec's table (image-urls
# 64 KiB, events 32, feedback 8, resolve 4, checkout 1) and from the endpoints themselves.
LIMITED = [
    ("/api/v1/image-urls", 64 * KIB, True, "application/json"),
    ("/api/v1/images/resolve", 4 * KIB, True, "application/json"),
    ("/api/v1/feedback", 8 * KIB, True, "application/json"),
    ("/api/v1/events", 32 * KIB, False, "application/json"),
    ("/api/v1/billing/checkout", 1 * KIB, True, "application/json"),
    ("/api/v1/billing/webhook", 512 * KIB, False, "application/json"),
    ("/api/auth/device/code", 4 * KIB, False, "application/x-www-form-urlencoded"),
    ("/api/auth/device/token", 4 * KIB, False, "application/x-www-form-urlencoded"),
    ("/oauth/register", 16 * KIB, False, "application/json"),
    ("/api/mcp", 4 * KIB * KIB, True, "application/json"),
]
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@pytest.fixture
async def customer(make_customer) -> Customer:  # type: ignore[no-untyped-def]
    """A key that may call every endpoint here (checkout needs billing:write)."""
    found: Customer = await make_customer(scopes=("images:read", "account:read", "billing:write"))
    return found


def _headers(customer: Customer, needs_key: bool, content_type: str) -> dict[str, str]:
    headers = {"content-type": content_type, "accept": "application/json, text/event-stream"}
    if needs_key:
        headers["authorization"] = f"Bearer {customer.key}"
    return headers


@SQLITE
@pytest.mark.parametrize(("path", "limit", "needs_key", "content_type"), LIMITED)
async def test_a_declared_length_over_the_limit_is_refused_before_reading(
    app: FastAPI, customer: Customer, path: str, limit: int, needs_key: bool, content_type: str
) -> None:
    outcome = await post_oversized(
        app, path, 4 * limit, declare_length=True,
        headers=_headers(customer, needs_key, content_type),
    )  # fmt: skip
    assert outcome.status == 413
    assert outcome.read == 0


@SQLITE
@pytest.mark.parametrize(("path", "limit", "needs_key", "content_type"), LIMITED)
async def test_a_chunked_body_over_the_limit_is_refused_within_a_chunk_of_it(
    app: FastAPI, customer: Customer, path: str, limit: int, needs_key: bool, content_type: str
) -> None:
    outcome = await post_oversized(
        app, path, 4 * limit, declare_length=False,
        headers=_headers(customer, needs_key, content_type),
    )  # fmt: skip
    assert outcome.status == 413
    assert outcome.read <= limit + CHUNK


# Form endpoints parsed by Starlette (`Form()` parameters, `request.form()`): Starlette bounds a
# single field but not the body; the app-wide FormBodyLimit middleware bounds every form body.
FORM_LIMIT = 64 * KIB  # what a form limit should be at most; every form here is a few fields
FORMS = [
    "/oauth/token",
    "/oauth/revoke",
    "/signin",
    "/signup",
    "/forgot-password",
    "/reset-password",
    "/dashboard/keys",
    "/activate",
    "/oauth/consent",
    "/billing/checkout/chk_x/confirm",
]


@SQLITE
@pytest.mark.parametrize("path", FORMS)
async def test_a_form_body_over_a_limit_is_refused_before_reading(
    app: FastAPI, client: object, path: str
) -> None:
    outcome = await post_oversized(
        app, path, 16 * FORM_LIMIT, declare_length=False,
        headers={"content-type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    assert outcome.status == 413
    assert outcome.read <= FORM_LIMIT + CHUNK
