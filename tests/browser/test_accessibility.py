"""Pages a person uses fit a phone screen, label every control and work from the keyboard."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import ContextFactory
from tests.browser.helpers import sign_up

pytestmark = pytest.mark.e2e

PHONE = {"width": 375, "height": 740}
PUBLIC_PAGES = ("/", "/playground", "/signin", "/signup")
SIGNED_IN_PAGES = ("/", "/playground", "/dashboard", "/dashboard/billing", "/activate")

UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea")]
  .filter((el) => el.type !== "hidden")
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")
    && !el.getAttribute("aria-labelledby"))
  .map((el) => el.outerHTML)
  .concat([...document.querySelectorAll("img:not([alt])")].map((el) => el.outerHTML))"""

OVERFLOW = """() => document.documentElement.scrollWidth - document.documentElement.clientWidth"""

FOCUSED = """() => { const el = document.activeElement;
  return el.id || el.getAttribute("aria-label") || el.textContent.trim(); }"""


def visit(page: Page, path: str) -> None:
    response = page.goto(path)
    assert response is not None and response.status == 200, path


def focus_order(page: Page, presses: int) -> list[str]:
    """What the Tab key focuses, in order, from the top of the page."""
    seen = []
    for _ in range(presses):
        page.keyboard.press("Tab")
        seen.append(page.evaluate(FOCUSED))
    return seen


def test_pages_have_no_horizontal_scroll_on_a_phone(new_context: ContextFactory) -> None:
    page = new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    for path in PUBLIC_PAGES:
        visit(page, path)
        assert page.evaluate(OVERFLOW) <= 0, f"{path} scrolls sideways at 375 px"
    sign_up(page)
    for path in SIGNED_IN_PAGES:
        visit(page, path)
        assert page.evaluate(OVERFLOW) <= 0, f"{path} scrolls sideways at 375 px"


def test_every_control_has_a_label_and_every_image_a_text(page: Page) -> None:
    for path in PUBLIC_PAGES:
        visit(page, path)
        assert page.evaluate(UNLABELLED) == [], path
    sign_up(page)
    for path in SIGNED_IN_PAGES:
        visit(page, path)
        assert page.evaluate(UNLABELLED) == [], path


def test_the_keyboard_reaches_the_playground_controls(page: Page) -> None:
    visit(page, "/playground")
    order = focus_order(page, 40)
    assert order[0] == "Skip to content"
    for control in ("vehicle", "year", "view", "paint-silver", "paint-hex", "size", "format"):
        assert control in order, f"Tab never reaches #{control}: {order}"


def test_the_keyboard_reaches_the_dashboard_controls(page: Page) -> None:
    sign_up(page)
    order = focus_order(page, 60)
    assert "key-name" in order and "Create key" in order
    assert any(name.startswith("Buy ") for name in order), order
