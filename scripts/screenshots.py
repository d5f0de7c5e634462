"""Screenshots of the web pages for the README: docs/images/{home,playground,dashboard,activate}.

Run by hand after changing a page: `.venv/bin/python scripts/screenshots.py`. It starts a real
`carimg serve` on a throwaway data directory and drives Debian's Chromium (/usr/bin/chromium,
`scripts/ensure-chromium.sh` installs it) with Playwright, like the browser tests.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

import httpx
from PIL import Image
from playwright.sync_api import Page, expect, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the browser tests' server and helpers

from tests.browser.conftest import CHROMIUM, DESKTOP, OPERATOR_TOKEN  # noqa: E402
from tests.browser.helpers import sign_up  # noqa: E402
from tests.e2e.conftest import Server, running_server  # noqa: E402


def save(page: Page, path: Path, *, full_page: bool = True) -> None:
    """A PNG with a 256-colour palette: a fraction of the size, no visible loss on these pages."""
    shot = Image.open(io.BytesIO(page.screenshot(full_page=full_page)))
    shot.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(path, optimize=True)
    size = path.stat().st_size // 1024
    print(f"{path.relative_to(ROOT)}: {shot.width}x{shot.height}, {size} KiB")


def wait_for_images(page: Page) -> None:
    page.wait_for_function(
        "() => [...document.images].every((img) => img.complete && img.naturalWidth > 0)"
    )


def some_usage(server: Server, key: str) -> None:
    """A few images and signed URLs, so the usage chart has something to draw."""
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
        for color in ("red", "blue", "white"):
            query = {"make": "porsche", "model": "911", "year": 2020, "color": color}
            client.get("/api/v1/images/car", params=query | {"size": "thumb"}).raise_for_status()
        body = {"images": [{"make": "toyota", "model": "camry", "year": 2020}] * 2}
        client.post("/api/v1/image-urls", json=body).raise_for_status()


def home(page: Page, out: Path) -> None:
    page.goto("/")
    wait_for_images(page)
    save(page, out / "home.png")


def playground(page: Page, out: Path) -> None:
    page.goto("/playground")
    combobox = page.get_by_role("combobox", name="Vehicle")
    combobox.fill("porsche 911")
    expect(page.get_by_role("option").first).to_contain_text("Porsche 911")
    combobox.press("Enter")
    page.get_by_label("View", exact=True).select_option("side")
    page.get_by_label("Red", exact=True).check()
    page.wait_for_function(
        "() => (document.getElementById('preview').dataset.variant || '').includes('color=red')"
        " && document.getElementById('preview').complete"
    )
    save(page, out / "playground.png")


def dashboard(page: Page, server: Server, out: Path) -> None:
    sign_up(page, "ada@example.com")
    page.get_by_label("Name").fill("production site")
    page.get_by_role("button", name="Create key").click()
    key = page.locator("#new-key").inner_text().strip()
    some_usage(server, key)
    page.get_by_role("button", name="Buy 5,000 credits for $5.00").click()
    page.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    page.get_by_role("button", name="Confirm payment").click()
    page.goto("/dashboard")
    save(page, out / "dashboard.png")


def activate(page: Page, server: Server, out: Path) -> None:
    started = httpx.post(f"{server.url}/api/auth/device/code", json={"client_name": "carimg CLI"})
    page.goto(started.raise_for_status().json()["verification_uri_complete"])
    expect(page.get_by_role("button", name="Approve")).to_be_visible()
    save(page, out / "activate.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as data_dir,
        running_server(Path(data_dir), operator_token=OPERATOR_TOKEN) as server,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
        context = browser.new_context(base_url=server.url, viewport=DESKTOP)
        context.set_default_timeout(60_000)
        page = context.new_page()
        home(page, args.out)
        playground(page, args.out)
        dashboard(page, server, args.out)
        activate(page, server, args.out)
        browser.close()


if __name__ == "__main__":
    main()
