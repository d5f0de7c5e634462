"""What a person does in the browser, by the labels the pages show."""

from __future__ import annotations

import re
import uuid

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery staple"


def new_email() -> str:
    return f"browser-{uuid.uuid4().hex[:10]}@example.com"


def fill_account_form(page: Page, email: str, password: str) -> None:
    page.get_by_label("E-mail address").fill(email)
    page.get_by_label("Password", exact=True).fill(password)


def sign_up(page: Page, email: str | None = None, password: str = PASSWORD) -> str:
    """Create an account from /signup (signed in afterwards, on the dashboard)."""
    email = email or new_email()
    page.goto("/signup")
    fill_account_form(page, email, password)
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(re.compile(r"/dashboard"))
    return email


def sign_in(page: Page, email: str, password: str = PASSWORD) -> None:
    page.goto("/signin")
    fill_account_form(page, email, password)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/dashboard"))


def credits_shown(page: Page) -> int:
    """The balance the dashboard shows."""
    return int(page.get_by_test_id("credits").inner_text().replace(",", ""))
