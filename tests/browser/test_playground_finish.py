"""The playground's finish choice (issue 30) in a real browser."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.test_playground import wait_for_preview

pytestmark = pytest.mark.e2e


def test_choosing_a_finish_previews_it_and_puts_it_in_the_api_calls(page: Page) -> None:
    page.goto("/playground")
    wait_for_preview(page, "color=silver")
    page.get_by_label("Finish").select_option("matte")
    wait_for_preview(page, "color=silver&finish=matte")
    expect(page.locator("#preview-status")).to_contain_text("512 × 512 PNG")
    expect(page.locator("#curl")).to_contain_text("color=silver&finish=matte")
    expect(page.locator("#mint")).to_contain_text('"color":"silver","finish":"matte"')
