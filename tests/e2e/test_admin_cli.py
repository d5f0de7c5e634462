"""`carimg admin …` run exactly as an operator writes it, as subprocesses on one data directory,
then the deployment's API checked against what the commands did.

Each command starts Python (seconds each), so one test walks the whole operator story and runs
the commands that do not depend on each other side by side.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.render import RenderPool
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL

pytestmark = pytest.mark.e2e

CARIMG = str(Path(sys.executable).with_name("carimg"))
EMAIL = "ops@example.com"


class Admin:
    """Runs `carimg admin …` with the deployment's settings (CARIMG_DATA_DIR) in the environment."""

    def __init__(self, data_dir: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("CARIMG_")}
        self.env["CARIMG_DATA_DIR"] = str(data_dir)

    async def __call__(self, *arguments: str) -> tuple[int, dict[str, Any]]:
        """Exit status and the one JSON object printed (stdout, or stderr on failure)."""
        process = await asyncio.create_subprocess_exec(
            CARIMG,
            "admin",
            *arguments,
            env=self.env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode is not None
        output = (stdout if process.returncode == 0 else stderr).decode().strip()
        lines = output.splitlines()
        assert len(lines) == 1, (arguments, stdout, stderr)
        result: dict[str, Any] = json.loads(lines[0])
        return process.returncode, result


async def image(client: httpx.AsyncClient, key: str) -> httpx.Response:
    """An authenticated request that renders nothing (a free 304 once the key is accepted)."""
    headers = {"Authorization": f"Bearer {key}", "If-None-Match": "*"}
    return await client.get(IMAGE_URL, params=CAMRY, headers=headers)


async def test_the_admin_commands_as_an_operator_runs_them(
    tmp_path: Path, catalog: Catalog
) -> None:
    data_dir = tmp_path / "var"
    admin = Admin(data_dir)

    status, account = await admin(
        "create-account", "--email", EMAIL, "--credits", "5", "--plan", "pro", "--json"
    )
    assert status == 0
    assert set(account) >= {"account_id", "email", "credits"}
    assert account["account_id"].startswith("acc_")
    assert (account["email"], account["credits"]) == (EMAIL, 5)

    (s1, default_key), (s2, scoped_key), (s3, granted), (s4, error) = await asyncio.gather(
        admin("create-key", "--email", EMAIL, "--json"),
        admin(
            "create-key",
            "--email",
            EMAIL,
            "--scopes",
            "images:read,billing:write",
            "--origins",
            "https://shop.example,https://www.shop.example",
            "--json",
        ),
        admin("grant-credits", "--email", EMAIL, "--credits", "10", "--json"),
        admin("create-key", "--email", "nobody@example.com", "--json"),
    )
    assert (s1, s2, s3) == (0, 0, 0)
    assert set(default_key) >= {"key", "id", "prefix", "scopes"}
    assert default_key["key"].startswith("cimg_")
    assert default_key["key"].startswith(default_key["prefix"])
    assert default_key["prefix"] != default_key["key"]
    assert default_key["id"].startswith("key_")
    assert default_key["scopes"] == ["images:read", "account:read"]
    assert scoped_key["scopes"] == ["images:read", "billing:write"]
    assert scoped_key["origins"] == ["https://shop.example", "https://www.shop.example"]
    assert granted["credits"] == 15
    assert s4 == 1
    assert error["status"] == 404 and "nobody@example.com" in error["error"]

    (s5, revoked), (s6, suspended) = await asyncio.gather(
        admin("revoke-key", "--id", scoped_key["id"], "--json"),
        admin("suspend", "--email", EMAIL, "--json"),
    )
    assert (s5, s6) == (0, 0)
    assert revoked["id"] == scoped_key["id"]
    assert suspended["status"] == "suspended"

    settings = Settings(data_dir=data_dir, base_url="http://testserver", render_workers=0)
    app = create_app(settings, catalog=catalog, render_pool=RenderPool(0))
    async with app.router.lifespan_context(app):
        services: Services = app.state.services
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            assert (await image(client, scoped_key["key"])).status_code == 401
            refused = await image(client, default_key["key"])
            assert refused.status_code == 403
            assert refused.json()["code"] == "account_suspended"

            status, unsuspended = await admin("unsuspend", "--email", EMAIL, "--json")
            assert status == 0 and unsuspended["status"] == "active"

            served = await image(client, default_key["key"])
            assert served.status_code == 304
            assert served.headers["ratelimit-limit"] == "120"  # the pro plan's key window
        stored = await services.accounts.by_email(EMAIL)
        assert stored is not None and stored.plan == "pro"
        assert await services.ledger.balance(stored.id) == 15
