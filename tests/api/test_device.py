"""Device login (RFC 8628): POST /api/auth/device/code and /api/auth/device/token, approval by
the domain service and (once) by `carimg admin approve-device`, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.domain.errors import Conflict, InvalidParameter, NotFound
from carimg.services import Services
from carimg.store.tables import api_keys, device_codes

CODE_URL = "/api/auth/device/code"
TOKEN_URL = "/api/auth/device/token"
USER_CODE = re.compile(r"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$")
DEVICE_SCOPES = {"images:read", "account:read", "billing:write"}


async def start(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post(CODE_URL, json=body)
    assert response.status_code == 201, response.text
    result: dict[str, Any] = response.json()
    return result


async def poll(client: httpx.AsyncClient, device_code: str) -> httpx.Response:
    return await client.post(TOKEN_URL, json={"device_code": device_code})


def oauth_error(response: httpx.Response, status: int, error: str) -> dict[str, Any]:
    """An RFC 6749 §5.2 error body (not a problem document)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert body["error"] == error, body
    assert body["error_description"]
    assert "type" not in body and "status" not in body
    assert response.headers["cache-control"] == "no-store"
    return body


async def new_account(services: Services) -> str:
    email = f"device-{os.urandom(4).hex()}@example.com"
    await services.accounts.create_account(email, credits=10)
    return email


# -- POST /api/auth/device/code ------------------------------------------------------------------


async def test_code_response_members_and_formats(client: httpx.AsyncClient) -> None:
    response = await client.post(CODE_URL, json={"client_name": "carimg-cli on laptop"})
    assert response.status_code == 201
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert set(body) >= {
        "device_code",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
        "expires_in",
        "interval",
    }
    assert USER_CODE.fullmatch(body["user_code"])
    assert len(body["device_code"]) >= 43
    assert body["verification_uri"] == "http://testserver/activate"
    assert body["verification_uri_complete"] == (
        f"http://testserver/activate?user_code={body['user_code']}"
    )
    assert (body["expires_in"], body["interval"]) == (600, 5)
    other = await start(client)
    assert other["device_code"] != body["device_code"]
    assert other["user_code"] != body["user_code"]


async def test_code_accepts_json_form_and_empty_bodies(
    client: httpx.AsyncClient, services: Services
) -> None:
    form = await client.post(CODE_URL, data={"client_name": "from a form"})
    empty = await client.post(CODE_URL)
    empty_json = await client.post(
        CODE_URL, content=b"", headers={"Content-Type": "application/json"}
    )
    json_body = await client.post(CODE_URL, json={})
    for response in (form, empty, empty_json, json_body):
        assert response.status_code == 201, response.text
    shown = await services.device.pending(form.json()["user_code"])
    assert shown.client_name == "from a form"
    assert (await services.device.pending(empty.json()["user_code"])).client_name == ""


async def test_code_refuses_long_names_unknown_members_and_bad_bodies(
    client: httpx.AsyncClient,
) -> None:
    assert (await client.post(CODE_URL, json={"client_name": "x" * 80})).status_code == 201
    refused = [
        await client.post(CODE_URL, json={"client_name": "x" * 81}),
        await client.post(CODE_URL, data={"client_name": "x" * 81}),
        await client.post(CODE_URL, json={"client_name": 7}),
        await client.post(CODE_URL, json={"client_name": "tab\there"}),
        await client.post(CODE_URL, json={"client_name": "a", "scope": "billing:purchase"}),
        await client.post(CODE_URL, data={"client_name": "a", "extra": "1"}),
        await client.post(CODE_URL, content=b"client_name=a&client_name=b", headers=FORM),
        await client.post(CODE_URL, content=b"{not json", headers=JSON),
        await client.post(CODE_URL, json=["client_name"]),
        await client.post(CODE_URL, params={"client_name": "in the query"}),
    ]
    for response in refused:
        assert response.status_code == 400, response.text
        assert response.headers["content-type"] == "application/problem+json"
    assert refused[0].json()["parameter"] == "client_name"
    assert refused[4].json()["parameter"] == "scope"
    too_big = await client.post(CODE_URL, json={"client_name": "x" * 5000})
    assert too_big.status_code == 413


FORM = {"Content-Type": "application/x-www-form-urlencoded"}
JSON = {"Content-Type": "application/json"}


async def test_code_requests_are_limited_to_20_a_minute_per_address(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.advance(60 - clock.time() % 60)  # the start of a minute window
    for _ in range(20):
        assert (await client.post(CODE_URL)).status_code == 201
    refused = await client.post(CODE_URL)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.headers["retry-after"] == "60"
    clock.advance(60)
    assert (await client.post(CODE_URL)).status_code == 201


# -- POST /api/auth/device/token -----------------------------------------------------------------


async def test_pending_then_approved_then_the_key_once_then_consumed(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    email = await new_account(services)
    started = await start(client, client_name="my laptop")
    oauth_error(await poll(client, started["device_code"]), 400, "authorization_pending")
    clock.advance(5)
    oauth_error(await poll(client, started["device_code"]), 400, "authorization_pending")

    # Any case, with or without the dash.
    shown = await services.device.approve(started["user_code"].replace("-", "").lower(), email)
    assert (shown.user_code, shown.client_name) == (started["user_code"], "my laptop")
    assert set(shown.scopes) == DEVICE_SCOPES
    with pytest.raises(Conflict):
        await services.device.approve(started["user_code"], email)

    clock.advance(5)
    granted = await poll(client, started["device_code"])
    assert granted.status_code == 200, granted.text
    assert granted.headers["cache-control"] == "no-store"
    token = granted.json()
    assert token["token_type"] == "Bearer"
    assert token["access_token"] == token["api_key"]
    assert re.fullmatch(r"cimg_[A-Za-z0-9_-]{43}", token["api_key"])
    assert set(token["scope"].split(" ")) == DEVICE_SCOPES
    assert token["key_id"].startswith("key_")
    assert token["api_key"].startswith(token["key_prefix"])

    account = await client.get(
        "/api/v1/account", headers={"Authorization": f"Bearer {token['access_token']}"}
    )
    assert account.status_code == 200, account.text
    principal = await services.accounts.authenticate(token["api_key"])
    assert principal.account.email == email
    assert set(principal.key.scopes) == DEVICE_SCOPES
    assert principal.key.name == "my laptop"
    assert principal.key.id == token["key_id"]

    for _ in range(2):  # consumed: never a second key
        clock.advance(5)
        oauth_error(await poll(client, started["device_code"]), 400, "invalid_request")
    clock.advance(600)
    oauth_error(await poll(client, started["device_code"]), 400, "invalid_request")
    async with services.engine.connect() as conn:
        keys = (await conn.execute(select(api_keys.c.id))).all()
    assert len(keys) == 1


async def test_codes_expire_after_ten_minutes(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    email = await new_account(services)
    started = await start(client)
    approved_late = await start(client)
    clock.advance(599)
    oauth_error(await poll(client, started["device_code"]), 400, "authorization_pending")
    await services.device.approve(approved_late["user_code"], email)
    clock.advance(1)
    oauth_error(await poll(client, started["device_code"]), 400, "expired_token")
    # Approved, but not collected within the ten minutes: expired too, and no key was made.
    oauth_error(await poll(client, approved_late["device_code"]), 400, "expired_token")
    with pytest.raises(NotFound):
        await services.device.approve(started["user_code"], email)
    async with services.engine.connect() as conn:
        assert (await conn.execute(select(api_keys.c.id))).all() == []


async def test_polling_faster_than_the_interval_is_slow_down(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    started = await start(client)
    oauth_error(await poll(client, started["device_code"]), 400, "authorization_pending")
    clock.advance(1)
    too_fast = await poll(client, started["device_code"])
    oauth_error(too_fast, 429, "slow_down")
    assert too_fast.headers["retry-after"] == "10"  # the interval grew by 5 s (RFC 8628 §3.5)
    clock.advance(5)  # the old interval is now too fast
    again = await poll(client, started["device_code"])
    oauth_error(again, 429, "slow_down")
    assert again.headers["retry-after"] == "15"
    clock.advance(15)
    oauth_error(await poll(client, started["device_code"]), 400, "authorization_pending")


async def test_polls_are_limited_to_60_a_minute_per_address(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    clock.advance(60 - clock.time() % 60)
    unknown = [poll(client, f"unknown-{n}") for n in range(60)]
    for response in await asyncio.gather(*unknown):
        oauth_error(response, 400, "invalid_request")
    refused = await poll(client, "unknown")
    oauth_error(refused, 429, "slow_down")
    assert refused.headers["retry-after"] == "60"
    clock.advance(60)
    oauth_error(await poll(client, "unknown"), 400, "invalid_request")


async def test_denied_codes_answer_access_denied(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    email = await new_account(services)
    started = await start(client, client_name="not me")
    shown = await services.device.deny(started["user_code"].lower())
    assert shown.client_name == "not me"
    oauth_error(await poll(client, started["device_code"]), 400, "access_denied")
    clock.advance(5)
    oauth_error(await poll(client, started["device_code"]), 400, "access_denied")
    with pytest.raises(Conflict):
        await services.device.approve(started["user_code"], email)
    with pytest.raises(InvalidParameter):
        await services.device.approve("AEIO-U123", email)
    with pytest.raises(NotFound):
        await services.device.deny("BCDF-GHJK")
    with pytest.raises(NotFound):
        await services.device.approve(started["user_code"], "nobody@example.com")


async def test_token_requests_read_json_and_forms_and_refuse_bad_ones(
    client: httpx.AsyncClient,
) -> None:
    started = await start(client)
    grant = "urn:ietf:params:oauth:grant-type:device_code"
    form = await client.post(
        TOKEN_URL,
        data={"device_code": started["device_code"], "grant_type": grant, "client_id": "cli"},
    )
    oauth_error(form, 400, "authorization_pending")
    for response in (
        await client.post(TOKEN_URL),
        await client.post(TOKEN_URL, json={}),
        await client.post(TOKEN_URL, data={"device_code": ""}),
        await client.post(TOKEN_URL, json={"device_code": 12}),
        await client.post(TOKEN_URL, json={"device_code": "x", "other": 1}),
        await client.post(TOKEN_URL, content=b"{", headers=JSON),
        await client.post(TOKEN_URL, json={"device_code": "not-a-code"}),
        await client.post(TOKEN_URL, data={"device_code": started["user_code"]}),
    ):
        oauth_error(response, 400, "invalid_request")
    wrong_grant = await client.post(
        TOKEN_URL, json={"device_code": started["device_code"], "grant_type": "password"}
    )
    oauth_error(wrong_grant, 400, "unsupported_grant_type")


async def test_codes_and_keys_are_never_stored_in_plaintext(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    email = await new_account(services)
    started = await start(client, client_name="scan me")
    await services.device.approve(started["user_code"], email)

    async def stored() -> str:
        async with services.engine.connect() as conn:
            rows = (await conn.execute(select(device_codes))).all()
            keys = (await conn.execute(select(api_keys))).all()
        return json.dumps([[str(value) for value in row] for row in rows + keys])

    between = await stored()  # approved, not yet polled: no key exists anywhere
    async with services.engine.connect() as conn:
        assert (await conn.execute(select(api_keys.c.id))).all() == []
    granted = await poll(client, started["device_code"])
    assert granted.status_code == 200
    after = await stored()
    key = granted.json()["api_key"]
    user_code = started["user_code"]
    for text in (between, after):
        assert "scan me" in text  # the scan sees the rows
        for secret in (started["device_code"], user_code, user_code.replace("-", ""), key):
            assert secret not in text
            assert secret.lower() not in text.lower()


async def test_racing_polls_after_approval_get_exactly_one_key(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await new_account(services)
    started = await start(client)
    await services.device.approve(started["user_code"], email)
    responses = await asyncio.gather(*(poll(client, started["device_code"]) for _ in range(6)))
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200, 400, 400, 400, 400, 400], [r.text for r in responses]
    for response in responses:
        if response.status_code == 400:
            oauth_error(response, 400, "invalid_request")
    async with services.engine.connect() as conn:
        keys = (await conn.execute(select(api_keys.c.id))).all()
    assert [row.id for row in keys] == [
        next(r for r in responses if r.status_code == 200).json()["key_id"]
    ]


async def test_an_account_at_its_key_limit_is_refused_at_the_poll(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await new_account(services)
    account = await services.accounts.by_email(email)
    for _ in range(10):
        await services.accounts.create_key(account)
    started = await start(client)
    await services.device.approve(started["user_code"], email)
    body = oauth_error(await poll(client, started["device_code"]), 400, "access_denied")
    assert "revoke one" in body["error_description"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # no storage involved
async def test_openapi_describes_both_endpoints(client: httpx.AsyncClient) -> None:
    document = (await client.get("/openapi.json")).json()
    code = document["paths"]["/api/auth/device/code"]["post"]
    token = document["paths"]["/api/auth/device/token"]["post"]
    for operation in (code, token):
        content = operation["requestBody"]["content"]
        assert {"application/json", "application/x-www-form-urlencoded"} <= set(content)
    assert code["requestBody"]["required"] is False
    assert {"201", "400", "429"} <= set(code["responses"])
    assert {"200", "400", "429"} <= set(token["responses"])
    token_200 = token["responses"]["200"]["content"]["application/json"]["schema"]
    assert token_200 == {"$ref": "#/components/schemas/DeviceTokenResponse"}
    error = document["components"]["schemas"]["OAuthError"]
    assert "slow_down" in error["properties"]["error"]["enum"]


# -- carimg admin approve-device (one subprocess) -------------------------------------------------


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_admin_approve_device_as_a_subprocess(
    client: httpx.AsyncClient, services: Services, settings: Settings
) -> None:
    email = await new_account(services)
    started = await start(client, client_name="operator approved")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARIMG_")}
    env["CARIMG_DATA_DIR"] = str(settings.data_dir)
    assert settings.database_url is not None
    env["CARIMG_DATABASE_URL"] = settings.database_url
    user_code = started["user_code"].lower()  # as a human might type it
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "carimg",
        "admin",
        "approve-device",
        "--user-code",
        user_code,
        "--email",
        email,
        "--json",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()
    assert json.loads(stdout) == {
        "approved": True,
        "user_code": started["user_code"],
        "email": email,
        "client_name": "operator approved",
    }
    granted = await poll(client, started["device_code"])
    assert granted.status_code == 200, granted.text
    assert granted.json()["scope"] == "images:read account:read billing:write"
