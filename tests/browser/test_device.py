"""Device login end to end: a client polls while a person signs up and approves in the browser."""

from __future__ import annotations

import re
import threading
import time

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.helpers import PASSWORD, fill_account_form, new_email
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e


class PollingClient(threading.Thread):
    """What a command-line client does: poll the token endpoint every `interval` seconds."""

    def __init__(self, url: str, device_code: str, interval: float, seconds: float = 60) -> None:
        super().__init__(daemon=True)
        self.url, self.device_code, self.interval = url, device_code, interval
        self.deadline = time.monotonic() + seconds
        self.answers: list[object] = []  # the refusals seen before the key
        self.token: dict[str, object] | None = None

    def run(self) -> None:
        with httpx.Client(base_url=self.url) as client:
            while time.monotonic() < self.deadline:
                body = {"device_code": self.device_code}
                answer = client.post("/api/auth/device/token", data=body)
                if answer.status_code == 200:
                    self.token = answer.json()
                    return
                self.answers.append(answer.json().get("error", answer.status_code))
                time.sleep(self.interval)


def test_a_polling_client_gets_a_working_key_once_the_browser_approves(
    page: Page, server: Server
) -> None:
    started = httpx.post(
        f"{server.url}/api/auth/device/code", json={"client_name": "Browser test CLI"}
    )
    assert started.status_code == 201
    grant = started.json()
    client = PollingClient(server.url, grant["device_code"], grant["interval"])
    client.start()

    page.goto(grant["verification_uri_complete"])  # signed out: sign-in first, then back
    expect(page).to_have_url(re.compile(r"/signin\?next="))
    page.get_by_role("main").get_by_role("link", name="Sign up").click()
    fill_account_form(page, new_email(), PASSWORD)
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(re.compile(r"/activate\?user_code="))
    expect(page.locator("#client-name")).to_have_text("Browser test CLI")
    expect(page.locator("#user-code")).to_have_text(grant["user_code"])
    expect(page.locator("#scopes")).to_contain_text("billing:write")
    assert client.token is None and client.answers  # it polls, and waits
    page.get_by_role("button", name="Approve").click()
    expect(page.locator("#activate-result")).to_contain_text("Approved")

    client.join(timeout=grant["interval"] * 3 + 10)
    assert client.token is not None, f"the client saw {client.answers}"
    assert set(client.answers) == {"authorization_pending"}
    key = client.token["access_token"]
    assert isinstance(key, str) and key.startswith("cimg_")
    account = httpx.get(f"{server.url}/api/v1/account", headers={"Authorization": f"Bearer {key}"})
    assert account.status_code == 200
    again = httpx.post(
        f"{server.url}/api/auth/device/token", data={"device_code": grant["device_code"]}
    )
    assert again.status_code == 400  # delivered once, then consumed
