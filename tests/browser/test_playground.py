"""The playground in a real browser: the catalog combobox, free previews, paint changes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ContextFactory

pytestmark = pytest.mark.e2e

# Mean colour of the preview's opaque pixels (a blob: URL of this origin, so readable).
MEAN_PAINT = """() => {
  const img = document.getElementById("preview");
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(img, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  const sum = [0, 0, 0]; let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] < 250) continue;
    sum[0] += data[i]; sum[1] += data[i + 1]; sum[2] += data[i + 2]; count += 1;
  }
  return sum.map((value) => value / Math.max(count, 1));
}"""


# The first preview is the server's first render: it starts the render pool (about 5 s on a
# loaded 2-core machine, bench/render.py), more than the 5 s an expectation waits by default.
# Speed is measured in bench/, not here.
FIRST_RENDER_MS = 30_000


def wait_for_preview(page: Page, needle: str) -> None:
    """Until the preview shows a variant whose URL contains `needle`, fully loaded."""
    preview = page.locator("#preview")
    expect(preview).to_have_attribute(
        "data-variant", re.compile(re.escape(needle)), timeout=FIRST_RENDER_MS
    )
    page.wait_for_function(
        "() => { const img = document.getElementById('preview');"
        " return img.complete && img.naturalWidth > 0; }"
    )


def test_the_preview_loads_free_and_changing_paint_changes_the_image(page: Page) -> None:
    page.goto("/playground")
    wait_for_preview(page, "color=silver")
    expect(page.locator("#preview-status")).to_contain_text("512 × 512 PNG")
    red, green, blue = page.evaluate(MEAN_PAINT)
    assert abs(red - blue) < 25  # silver is grey

    page.get_by_label("Red", exact=True).check()
    wait_for_preview(page, "color=red")
    red, green, blue = page.evaluate(MEAN_PAINT)
    assert red > green + 30 and red > blue + 30
    expect(page.locator("#curl")).to_contain_text("color=red")


def test_the_catalog_combobox_works_from_the_keyboard(new_context: ContextFactory) -> None:
    page = new_context(permissions=["clipboard-read", "clipboard-write"]).new_page()
    page.goto("/playground")
    combobox = page.get_by_role("combobox", name="Vehicle")
    combobox.fill("porsche 91")
    expect(page.get_by_role("option").first).to_contain_text("Porsche 911")
    expect(combobox).to_have_attribute("aria-expanded", "true")
    combobox.press("ArrowDown")
    combobox.press("ArrowUp")
    combobox.press("Enter")
    expect(combobox).to_have_value("Porsche 911")
    expect(combobox).to_have_attribute("aria-expanded", "false")
    wait_for_preview(page, "brand=porsche&model=911")
    expect(page.locator("#curl")).to_contain_text("make=porsche&model=911")
    expect(page.locator("#mint")).to_contain_text('"make":"porsche","model":"911"')
    page.get_by_role("button", name="Copy").first.click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied.startswith("curl -H") and "make=porsche&model=911" in copied
