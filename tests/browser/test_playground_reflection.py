"""The playground's floor reflection choice (issue 30) in a real browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_playground import wait_for_preview

pytestmark = pytest.mark.e2e


def test_the_reflection_can_be_chosen_only_on_a_background(page: Page) -> None:
    page.goto("/playground")
    wait_for_preview(page, "color=silver")
    reflection = page.get_by_label("Floor reflection")
    expect(reflection).to_be_disabled()
    page.get_by_label("Background", exact=True).select_option("white")
    expect(reflection).to_be_enabled()


def test_a_chosen_reflection_goes_into_the_api_calls(page: Page) -> None:
    page.goto("/playground")
    wait_for_preview(page, "color=silver")
    page.get_by_label("Background", exact=True).select_option("white")
    page.get_by_label("Floor reflection").check()
    expect(page.locator("#curl")).to_contain_text("background=white&reflection=true")
    expect(page.locator("#mint")).to_contain_text('"background":"white","reflection":true')
