"""The dashboard in a real browser: keys that work until revoked, buying credits."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import OPERATOR_TOKEN
from tests.browser.helpers import credits_shown, sign_up
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e


def test_a_key_made_in_the_dashboard_works_until_it_is_revoked(page: Page, server: Server) -> None:
    sign_up(page)
    page.get_by_label("Name").fill("browser test")
    page.get_by_role("button", name="Create key").click()
    key = page.locator("#new-key").inner_text().strip()
    assert key.startswith("cimg_")
    headers = {"Authorization": f"Bearer {key}"}
    account = httpx.get(f"{server.url}/api/v1/account", headers=headers)
    assert account.status_code == 200
    assert account.json()["data"]["credits"] == 100

    page.get_by_role("button", name=re.compile(r"^Revoke key .*browser test")).click()
    expect(page.get_by_role("status").first).to_contain_text("revoked")
    refused = httpx.get(f"{server.url}/api/v1/account", headers=headers)
    assert refused.status_code == 401


def test_buying_a_pack_with_the_local_provider_grows_the_balance(page: Page) -> None:
    sign_up(page)
    before = credits_shown(page)
    pack = page.get_by_role("button", name=re.compile(r"^Buy ")).first
    label = re.fullmatch(r"Buy ([\d,]+) credits for .*", pack.get_attribute("aria-label") or "")
    assert label, "each Buy button names its pack"
    bought = int(label[1].replace(",", ""))
    pack.click()
    expect(page).to_have_url(re.compile(r"/billing/checkout/"))
    page.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    page.get_by_role("button", name="Confirm payment").click()
    expect(page.get_by_text("Paid.")).to_be_visible()
    page.goto("/dashboard")
    assert credits_shown(page) == before + bought
