"""Sign-up, sign-in, sessions, CSRF, sign-out and password reset through the pages."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time

import httpx
import pytest

from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.domain.embed import SESSION_COOKIE
from carimg.domain.signing import unsign_value
from carimg.domain.web_accounts import (
    SIGNIN_ATTEMPTS_PER_IP,
    SIGNIN_FAILURES_PER_EMAIL,
    SIGNUPS_PER_IP,
)
from carimg.services import Services
from carimg.store.tables import web_passwords
from tests.web.helpers import (
    PASSWORD,
    MailSink,
    client_with,
    csrf_of,
    get_csrf,
    new_email,
    post_form,
    set_cookie_headers,
    sign_in,
    sign_up,
)


async def test_signup_creates_an_account_with_the_free_credits_and_signs_in(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await sign_up(client)
    account = await services.accounts.by_email(email)
    assert await services.ledger.balance(account.id) == 100
    dashboard = await client.get("/dashboard")
    assert dashboard.status_code == 200
    assert email in dashboard.text


async def test_passwords_are_stored_as_argon2id_hashes(
    client: httpx.AsyncClient, services: Services
) -> None:
    await sign_up(client)
    async with services.engine.connect() as conn:
        stored = (await conn.execute(web_passwords.select())).one().password_hash
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored


async def test_signup_with_a_taken_email_is_409_and_suggests_signing_in(
    client: httpx.AsyncClient,
) -> None:
    email = await sign_up(client)
    other = httpx.AsyncClient(transport=client._transport, base_url=str(client.base_url))
    response = await post_form(other, "/signup", {"email": email.upper(), "password": PASSWORD})
    assert response.status_code == 409
    assert "already exists" in response.text
    assert "reset the password" in response.text


async def test_probes_of_taken_addresses_count_against_the_sign_up_limit_per_address(
    client: httpx.AsyncClient,
) -> None:
    """The 409 names a taken address (see OPERATIONS.md, "Free grants and public endpoints"):
    each probe is a sign-up attempt of the address's hourly allowance."""
    email = await sign_up(client)
    other = httpx.AsyncClient(transport=client._transport, base_url=str(client.base_url))
    allowed, _ = SIGNUPS_PER_IP
    for _ in range(allowed - 1):
        probe = await post_form(other, "/signup", {"email": email, "password": PASSWORD})
        assert probe.status_code == 409
    refused = await post_form(other, "/signup", {"email": new_email(), "password": PASSWORD})
    assert refused.status_code == 429


@pytest.mark.parametrize(
    ("password", "reason"),
    [
        ("short", "at least 10 characters"),
        ("password123", "too easy to guess"),
        ("aaaaaaaaaaaa", "too easy to guess"),
        ("x" * 257, "at most 256"),
    ],
)
async def test_signup_refuses_weak_passwords(
    client: httpx.AsyncClient, services: Services, password: str, reason: str
) -> None:
    email = new_email()
    response = await post_form(client, "/signup", {"email": email, "password": password})
    assert response.status_code == 400
    assert reason in response.text
    assert email in response.text  # the form keeps what was typed
    with pytest.raises(Exception, match="No account"):
        await services.accounts.by_email(email)


async def test_signup_refuses_a_password_holding_the_email_name(client: httpx.AsyncClient) -> None:
    response = await post_form(
        client, "/signup", {"email": "marguerite@example.com", "password": "marguerite2027!"}
    )
    assert response.status_code == 400
    assert "must not contain your e-mail" in response.text


async def test_signup_refuses_what_is_not_an_email_address(client: httpx.AsyncClient) -> None:
    response = await post_form(client, "/signup", {"email": "nobody", "password": PASSWORD})
    assert response.status_code == 400
    assert "not an e-mail address" in response.text


async def test_signin_with_the_right_password_sets_the_session_and_follows_next(
    client: httpx.AsyncClient,
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    response = await post_form(
        client,
        "/signin",
        {"email": email, "password": PASSWORD, "next": "/dashboard/billing?pack=pack_5000"},
        page="/signin",
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard/billing?pack=pack_5000"
    assert set_cookie_headers(response, SESSION_COOKIE)


@pytest.mark.parametrize("target", ["//evil.example/", "https://evil.example/", "/\\evil"])
async def test_signin_never_sends_people_to_another_site(
    client: httpx.AsyncClient, target: str
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    response = await post_form(
        client, "/signin", {"email": email, "password": PASSWORD, "next": target}
    )
    assert response.headers["location"] == "/dashboard"


async def test_signin_with_a_wrong_password_is_401_with_one_message_for_both_cases(
    client: httpx.AsyncClient,
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    wrong = await sign_in(client, email, "not the password at all")
    unknown = await sign_in(client, new_email(), PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert "The e-mail address or the password is wrong." in wrong.text
    assert "The e-mail address or the password is wrong." in unknown.text
    assert not set_cookie_headers(wrong, SESSION_COOKIE)


async def test_failed_signins_per_email_are_limited_even_for_the_right_password(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    failures, window = SIGNIN_FAILURES_PER_EMAIL
    for _ in range(failures):
        assert (await sign_in(client, email, "wrong password here")).status_code == 401
    blocked = await sign_in(client, email)
    assert blocked.status_code == 429
    assert 0 < int(blocked.headers["retry-after"]) <= window
    assert "Too many failed sign-ins" in blocked.text
    clock.advance(window)
    assert (await sign_in(client, email)).status_code == 303


async def test_signin_attempts_per_address_are_limited(client: httpx.AsyncClient) -> None:
    attempts, _ = SIGNIN_ATTEMPTS_PER_IP
    token = await get_csrf(client, "/signin")
    for index in range(attempts):
        response = await client.post(
            "/signin",
            data={"csrf_token": token, "email": f"n{index}@example.com", "password": "x" * 12},
        )
        assert response.status_code == 401
    response = await client.post(
        "/signin", data={"csrf_token": token, "email": "late@example.com", "password": "x" * 12}
    )
    assert response.status_code == 429
    assert "retry-after" in response.headers


async def test_suspended_accounts_cannot_sign_in(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    await services.accounts.set_status(email, "suspended")
    response = await sign_in(client, email)
    assert response.status_code == 403
    assert "suspended" in response.text


async def test_the_session_cookie_is_httponly_samesite_lax_and_not_secure_on_http(
    client: httpx.AsyncClient,
) -> None:
    response = await post_form(client, "/signup", {"email": new_email(), "password": PASSWORD})
    (cookie,) = set_cookie_headers(response, SESSION_COOKIE)
    attributes = cookie.lower()
    assert "httponly" in attributes
    assert "samesite=lax" in attributes
    assert "path=/" in attributes
    assert "secure" not in attributes
    assert "max-age=1209600" in attributes  # 14 days


async def test_cookies_are_secure_when_the_deployment_is_https(
    settings: Settings, catalog: Catalog, clock: FixedClock
) -> None:
    async with client_with(settings, catalog, clock, base_url="https://cars.example") as client:
        page = await client.get("/signup")
        assert "secure" in page.headers["set-cookie"].lower()
        response = await client.post(
            "/signup",
            data={"csrf_token": csrf_of(page.text), "email": new_email(), "password": PASSWORD},
        )
    (cookie,) = set_cookie_headers(response, SESSION_COOKIE)
    assert "secure" in cookie.lower()


async def test_the_session_cookie_is_the_one_the_embed_endpoint_accepts(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await sign_up(client)
    token = client.cookies[SESSION_COOKIE]
    payload = unsign_value(services.secret_key, SESSION_COOKIE, token)
    assert payload is not None
    assert payload["exp"] > services.clock.time()
    assert payload["acc"] == (await services.accounts.by_email(email)).id
    embed = "/images/car.png?brand=honda&model=civic&year=2019&w=256"
    assert (await client.get(embed)).status_code == 200
    client.cookies.delete(SESSION_COOKIE)
    assert (await client.get(embed)).status_code == 401


async def test_a_signed_out_session_cookie_no_longer_grants_free_embeds(
    client: httpx.AsyncClient,
) -> None:
    await sign_up(client)
    old_cookie = client.cookies[SESSION_COOKIE]
    embed = "/images/car.png?brand=honda&model=civic&year=2019&w=256"
    assert (await client.get(embed)).status_code == 200
    await post_form(client, "/signout", {}, page="/dashboard")
    client.cookies.set(SESSION_COOKIE, old_cookie)  # a copy kept from before signing out
    assert (await client.get(embed)).status_code == 401


async def test_a_session_ends_when_its_time_is_up(
    client: httpx.AsyncClient, clock: FixedClock
) -> None:
    await sign_up(client)
    clock.advance(14 * 86400 + 1)
    response = await client.get("/dashboard")
    assert response.status_code == 303
    assert response.headers["location"] == "/signin?next=/dashboard"


async def test_forms_without_a_csrf_token_are_refused(client: httpx.AsyncClient) -> None:
    await client.get("/signup")  # the browser has its CSRF cookie
    response = await client.post("/signup", data={"email": new_email(), "password": PASSWORD})
    assert response.status_code == 403
    assert "This form expired" in response.text


async def test_a_csrf_token_from_another_browser_is_refused(client: httpx.AsyncClient) -> None:
    stranger = httpx.AsyncClient(transport=client._transport, base_url=str(client.base_url))
    foreign = await get_csrf(stranger, "/signup")
    await client.get("/signup")
    response = await client.post(
        "/signup", data={"csrf_token": foreign, "email": new_email(), "password": PASSWORD}
    )
    assert response.status_code == 403


async def test_a_csrf_token_from_before_signing_in_is_refused_after(
    client: httpx.AsyncClient,
) -> None:
    before = await get_csrf(client, "/signin")
    await sign_up(client)
    response = await client.post("/signout", data={"csrf_token": before})
    assert response.status_code == 403
    assert (await client.get("/dashboard")).status_code == 200  # still signed in


async def test_signout_ends_the_session_on_the_server_too(client: httpx.AsyncClient) -> None:
    await sign_up(client)
    stolen = client.cookies[SESSION_COOKIE]
    response = await post_form(client, "/signout", {}, page="/dashboard")
    assert response.status_code == 303
    (cleared,) = set_cookie_headers(response, SESSION_COOKIE)
    assert "max-age=0" in cleared.lower()
    client.cookies.set(SESSION_COOKIE, stolen)
    assert (await client.get("/dashboard")).status_code == 303


async def test_signed_out_pages_redirect_to_signin_with_next(client: httpx.AsyncClient) -> None:
    response = await client.get("/dashboard/billing?pack=pack_5000")
    assert response.status_code == 303
    assert response.headers["location"] == "/signin?next=/dashboard/billing%3Fpack%3Dpack_5000"


async def test_pages_are_not_cached_or_framed(client: httpx.AsyncClient) -> None:
    page = await client.get("/signin")
    assert page.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"


# -- password reset -------------------------------------------------------------------------------


async def _request_reset(
    client: httpx.AsyncClient, email: str, caplog: pytest.LogCaptureFixture
) -> httpx.Response:
    with caplog.at_level(logging.WARNING, logger="carimg.web"):
        return await post_form(client, "/forgot-password", {"email": email})


async def _reset_link(services: Services, email: str) -> str:
    """A reset link for `email` as the operator makes one (`carimg admin reset-link`)."""
    link, _ = await services.web_accounts.reset_link(email)
    return link.removeprefix("http://testserver")


async def _signed_up_reset_link(client: httpx.AsyncClient, services: Services) -> str:
    """A reset link for a new account."""
    return await _reset_link(services, await sign_up(client))


async def _set_password(client: httpx.AsyncClient, link: str, password: str) -> httpx.Response:
    """Open the reset link's form and send `password` with the form's CSRF token."""
    form = await client.get(link)
    assert form.status_code == 200, form.text
    return await client.post(
        "/reset-password",
        data={"csrf_token": csrf_of(form.text), "token": link.split("=", 1)[1],
              "password": password},
    )  # fmt: skip


async def test_a_reset_request_says_the_link_is_on_its_way(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    sent = await _request_reset(client, email, caplog)
    assert sent.status_code == 200
    assert "a link to set a new password is on its way" in sent.text


async def test_without_a_mail_server_the_log_names_the_operator_command_not_a_link(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    email = await sign_up(client)
    await _request_reset(client, email, caplog)
    assert f"carimg admin reset-link --email {email}" in caplog.text
    assert "token" not in caplog.text


async def test_a_reset_link_sets_a_new_password_and_ends_the_other_sessions(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = await sign_up(client)
    other_browser = client.cookies[SESSION_COOKIE]
    await post_form(client, "/signout", {}, page="/dashboard")
    new_password = "a brand new passphrase"
    response = await _set_password(client, await _reset_link(services, email), new_password)
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard?notice=password-reset"
    assert (await client.get("/dashboard")).status_code == 200
    await post_form(client, "/signout", {}, page="/dashboard")
    assert (await sign_in(client, email)).status_code == 401
    assert (await sign_in(client, email, new_password)).status_code == 303
    client.cookies.set(SESSION_COOKIE, other_browser)
    assert (await client.get("/dashboard")).status_code == 303


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_operator_reset_link_command_prints_a_working_link(
    client: httpx.AsyncClient, settings: Settings, clock: FixedClock
) -> None:
    clock.advance(time.time() - clock.time())  # the command's clock is the real one
    email = await sign_up(client)
    await post_form(client, "/signout", {}, page="/dashboard")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CARIMG_")}
    env |= {"CARIMG_DATA_DIR": str(settings.data_dir), "CARIMG_BASE_URL": "http://testserver"}
    assert settings.database_url is not None
    env["CARIMG_DATABASE_URL"] = settings.database_url
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "carimg", "admin", "reset-link", "--email", email.upper(), "--json",
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode == 0, stderr.decode()
    printed = json.loads(stdout)
    assert printed["email"] == email
    link = printed["reset_link"].removeprefix("http://testserver")
    assert (await _set_password(client, link, "an operator's new password")).status_code == 303


async def test_a_reset_link_works_once(client: httpx.AsyncClient, services: Services) -> None:
    link = await _signed_up_reset_link(client, services)
    token = link.split("=", 1)[1]
    first = await _set_password(client, link, "first new password")
    assert first.status_code == 303
    assert (await client.get(link)).status_code == 404
    again = await post_form(
        client, "/reset-password", {"token": token, "password": "second new password"},
        page="/dashboard",
    )  # fmt: skip
    assert again.status_code == 404
    assert "unknown, used or expired" in again.text


async def test_a_reset_link_expires_after_an_hour(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    link = await _signed_up_reset_link(client, services)
    clock.advance(3601)
    assert (await client.get(link)).status_code == 404


async def test_a_reset_keeps_the_strength_rule_and_the_link(
    client: httpx.AsyncClient, services: Services
) -> None:
    link = await _signed_up_reset_link(client, services)
    weak = await _set_password(client, link, "short")
    assert weak.status_code == 400
    assert "at least 10 characters" in weak.text
    assert (await client.get(link)).status_code == 200


async def test_reset_requests_do_not_tell_who_has_an_account(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    response = await _request_reset(client, new_email(), caplog)
    assert response.status_code == 200
    assert "a link to set a new password is on its way" in response.text
    assert "reset" not in caplog.text


async def test_reset_mails_per_email_are_limited(
    settings: Settings, catalog: Catalog, clock: FixedClock
) -> None:
    async with MailSink() as sink:
        changes = {"smtp_host": "127.0.0.1", "smtp_port": sink.port, "smtp_starttls": False}
        async with client_with(settings, catalog, clock, **changes) as client:
            email = await sign_up(client)
            for _ in range(5):
                sent = await post_form(client, "/forgot-password", {"email": email})
                assert sent.status_code == 200
    assert len(sink.messages) == 3


async def test_an_account_without_a_password_gets_one_by_reset(
    client: httpx.AsyncClient, services: Services
) -> None:
    email = new_email()
    await services.accounts.create_account(email)  # made by an operator: no password yet
    assert (await sign_in(client, email)).status_code == 401
    link = await _reset_link(services, email)
    response = await _set_password(client, link, PASSWORD)
    assert response.status_code == 303


async def test_with_a_mail_server_the_reset_link_is_mailed_not_logged(
    settings: Settings,
    catalog: Catalog,
    clock: FixedClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with MailSink() as sink:
        changes = {"smtp_host": "127.0.0.1", "smtp_port": sink.port, "smtp_starttls": False}
        async with client_with(settings, catalog, clock, **changes) as client:
            email = await sign_up(client)
            with caplog.at_level(logging.WARNING, logger="carimg.web"):
                sent = await post_form(client, "/forgot-password", {"email": email})
            assert sent.status_code == 200
            assert "sends no mail" not in sent.text
    (message,) = sink.messages
    assert f"To: {email}".encode() in message
    assert b"Subject: Reset your carimg password" in message
    assert b"http://testserver/reset-password?token=" in message
    assert "reset-password?token=" not in caplog.text
