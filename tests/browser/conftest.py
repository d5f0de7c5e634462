"""Playwright driving Debian's Chromium (/usr/bin/chromium, never a downloaded browser) against a
real `carimg serve` process.

Fixtures: `server` (session; the e2e Server, started with CARIMG_OPERATOR_TOKEN=OPERATOR_TOKEN so
the local hosted checkout page can be confirmed), `browser` (one Chromium per test module),
`new_context(**options)` (a fresh BrowserContext per call, base_url set to the server, closed after
the test, which fails on any script error or CSP refusal in its pages) and `page` (a page in a
fresh 1280x900 context). Helpers live in tests/browser/helpers.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from tests.e2e.conftest import Server, running_server

CHROMIUM = Path("/usr/bin/chromium")
OPERATOR_TOKEN = "browser-tests-operator-token"
DESKTOP = {"width": 1280, "height": 900}

ContextFactory = Callable[..., BrowserContext]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`carimg serve` with an operator token, so tests can confirm local checkouts in the page,
    and cheap password hashing."""
    with running_server(
        tmp_path_factory.mktemp("var"),
        operator_token=OPERATOR_TOKEN,
        # cheap argon2id: tests sign up many accounts (the defaults take ~0.2 s a hash)
        password_hash_memory_kib="64",
        password_hash_iterations="1",
    ) as running:
        yield running


# Per module, not per session: Playwright's sync API keeps its event loop marked running in this
# thread while it is started, which would break every asyncio test this process runs meanwhile;
# pytest ends module fixtures before it moves to another module's tests.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed (/usr/bin/chromium): run scripts/ensure-chromium.sh"
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        yield chromium
        chromium.close()


def _watch(page: Page, errors: list[str]) -> None:
    """Record script errors and what the page's Content-Security-Policy blocked."""
    page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
    page.on(
        "console",
        lambda message: (
            errors.append(f"{page.url}: {message.text}")
            if message.type == "error" and "Content Security Policy" in message.text
            else None
        ),
    )


@pytest.fixture
def new_context(browser: Browser, server: Server) -> Iterator[ContextFactory]:
    """Fresh, isolated contexts (own cookies); every one is closed after the test, which then
    fails if any page threw a script error or had something refused by its CSP."""
    opened: list[BrowserContext] = []
    errors: list[str] = []

    def make(**options: Any) -> BrowserContext:
        options = {"base_url": server.url, "viewport": DESKTOP, **options}
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        context.on("page", lambda page: _watch(page, errors))
        opened.append(context)
        return context

    yield make
    for context in opened:
        context.close()
    assert not errors, "pages had script errors or CSP refusals:\n" + "\n".join(errors)


@pytest.fixture
def page(new_context: ContextFactory) -> Page:
    return new_context().new_page()
