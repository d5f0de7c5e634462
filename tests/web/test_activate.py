"""/activate: a signed-in person approves or denies a device login; the device's poll follows."""

from __future__ import annotations

from typing import Any

import httpx

from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.web.helpers import post_form

CODE_URL = "/api/auth/device/code"
TOKEN_URL = "/api/auth/device/token"


async def _start(client: httpx.AsyncClient, name: str = "carimg CLI on laptop") -> dict[str, Any]:
    response = await client.post(CODE_URL, json={"client_name": name})
    assert response.status_code == 201
    body: dict[str, Any] = response.json()
    return body


async def _poll(client: httpx.AsyncClient, device_code: str) -> httpx.Response:
    return await client.post(TOKEN_URL, data={"device_code": device_code})


async def _decide(client: httpx.AsyncClient, user_code: str, decision: str) -> httpx.Response:
    return await post_form(
        client,
        "/activate",
        {"user_code": user_code, "decision": decision},
        page=f"/activate?user_code={user_code}",
    )


async def test_signed_out_visitors_sign_in_first_and_come_back_with_the_code(
    client: httpx.AsyncClient,
) -> None:
    started = await _start(client)
    response = await client.get(f"/activate?user_code={started['user_code']}")
    assert response.status_code == 303
    code = started["user_code"]
    assert response.headers["location"] == f"/signin?next=/activate%3Fuser_code%3D{code}"


async def test_the_page_shows_the_client_the_scopes_and_the_code(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    started = await _start(client)
    page = await client.get(started["verification_uri_complete"].replace("http://testserver", ""))
    assert page.status_code == 200
    assert "carimg CLI on laptop" in page.text
    assert started["user_code"] in page.text
    for scope in ("images:read", "account:read", "billing:write"):
        assert f"<code>{scope}</code>" in page.text
    assert signed_in in page.text
    assert 'value="approve"' in page.text
    assert 'value="deny"' in page.text


async def test_the_client_name_is_shown_as_text(client: httpx.AsyncClient, signed_in: str) -> None:
    started = await _start(client, "laptop <script>alert(1)</script>")
    page = await client.get(f"/activate?user_code={started['user_code']}")
    assert "laptop &lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<script>alert(1)" not in page.text


async def test_without_a_code_the_page_asks_for_it(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    page = await client.get("/activate")
    assert page.status_code == 200
    assert 'name="user_code"' in page.text
    assert "Code shown on your device" in page.text


async def test_approving_gives_the_polling_device_a_working_key(
    client: httpx.AsyncClient, signed_in: str, clock: FixedClock, services: Services
) -> None:
    started = await _start(client)
    pending = await _poll(client, started["device_code"])
    assert pending.json()["error"] == "authorization_pending"
    approved = await _decide(client, started["user_code"].lower().replace("-", ""), "approve")
    assert approved.status_code == 200
    assert "Approved." in approved.text
    clock.advance(started["interval"])
    token = await _poll(client, started["device_code"])
    assert token.status_code == 200
    key = token.json()["access_token"]
    account = await client.get("/api/v1/account", headers={"Authorization": f"Bearer {key}"})
    assert account.status_code == 200
    assert account.json()["data"]["email"] == signed_in
    dashboard = await client.get("/dashboard")
    assert "carimg CLI on laptop" in dashboard.text
    assert key[:12] in dashboard.text


async def test_denying_tells_the_polling_device_access_denied(
    client: httpx.AsyncClient, signed_in: str, clock: FixedClock
) -> None:
    started = await _start(client)
    denied = await _decide(client, started["user_code"], "deny")
    assert denied.status_code == 200
    assert "Denied." in denied.text
    clock.advance(started["interval"])
    token = await _poll(client, started["device_code"])
    assert token.status_code == 400
    assert token.json()["error"] == "access_denied"


async def test_a_decided_code_cannot_be_decided_again(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    started = await _start(client)
    assert (await _decide(client, started["user_code"], "deny")).status_code == 200
    again = await post_form(
        client,
        "/activate",
        {"user_code": started["user_code"], "decision": "approve"},
        page="/activate",
    )
    assert again.status_code == 409
    assert "already denied" in again.text


async def test_unknown_and_malformed_codes_are_explained(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    unknown = await client.get("/activate?user_code=BCDF-GHJK")
    assert unknown.status_code == 404
    assert "No device login waits for this code" in unknown.text
    malformed = await client.get("/activate?user_code=hello")
    assert malformed.status_code == 400
    assert 'value="hello"' in malformed.text  # the form keeps it for correcting


async def test_approval_needs_the_csrf_token(
    client: httpx.AsyncClient, signed_in: str, clock: FixedClock
) -> None:
    started = await _start(client)
    forged = await client.post(
        "/activate", data={"user_code": started["user_code"], "decision": "approve"}
    )
    assert forged.status_code == 403
    clock.advance(started["interval"])
    token = await _poll(client, started["device_code"])
    assert token.json()["error"] == "authorization_pending"


async def test_entering_codes_is_rate_limited_per_account(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    """RFC 8628 §5.1: user codes are short, so guessing them must be slow."""
    for _ in range(20):
        assert (await client.get("/activate?user_code=BCDF-GHJK")).status_code == 404
    refused = await client.get("/activate?user_code=BCDF-GHJK")
    assert refused.status_code == 429
    assert "Too many codes entered" in refused.text
