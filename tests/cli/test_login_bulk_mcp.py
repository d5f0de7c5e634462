"""Processes end to end: device login approved by the operator, an interrupted bulk download
resumed, and the local MCP server driven by the official MCP client over stdio."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp import ClientSession
from tests.cli.conftest import Account, Run, json_of
from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e
CARIMG = [sys.executable, "-m", "carimg"]


def test_login_stores_the_approved_key_for_the_owner_only(
    server: Server, account: Account, env: dict[str, str], carimg: Run, tmp_path: Path
) -> None:
    environ = {**os.environ, **env}
    environ.pop("CAR_IMAGE_API_KEY")
    login = subprocess.Popen(
        [*CARIMG, "login", "--json", "--no-browser", "--client-name", "test laptop"],
        env=environ,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert login.stdout is not None
        shown = json.loads(login.stdout.readline())
        assert shown["event"] == "device_code" and server.url in shown["verification_uri_complete"]
        approved = server.admin(
            "approve-device", "--user-code", shown["user_code"], "--email", account.email
        )
        assert approved["client_name"] == "test laptop"
        done = json.loads(login.stdout.readline())
        assert login.wait(timeout=60) == 0
    finally:
        login.kill()
        login.wait()
        login.stdout.close()  # type: ignore[union-attr]
    path = Path(done["credentials"])
    assert path == tmp_path / "config" / "carimg" / "credentials.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "billing:write" in done["scope"]
    os.environ.pop("CAR_IMAGE_API_KEY")  # the env fixture's monkeypatch restores it
    me = json_of(carimg("whoami", "--json"))
    assert me["email"] == account.email and me["key_source"] == "credentials"
    assert me["key"]["name"] == "test laptop"
    assert json_of(carimg("logout", "--json"))["logged_out"] and not path.exists()


def _listing(path: Path, count: int) -> Path:
    colors = ["white", "black", "gray", "silver", "blue", "red", "green", "brown", "beige", "tan"]
    views = ["front", "side", "rear", "rear-3-4"]
    rows = ["make,model,year,view,color,size"]
    rows += [f"volvo,v60,2021,{views[i % 4]},{colors[i % 10]},thumb" for i in range(count)]
    path.write_text("\n".join(rows) + "\n")
    return path


def _manifest_files(folder: Path) -> set[str]:
    manifest = folder / ".carimg-bulk.jsonl"
    if not manifest.exists():
        return set()
    lines = manifest.read_text().splitlines()
    return {json.loads(line)["file"] for line in lines if line.endswith("}")}


def test_bulk_resumes_after_an_interruption_without_paying_twice(
    env: dict[str, str], carimg: Run, tmp_path: Path
) -> None:
    listing, out = _listing(tmp_path / "cars.csv", 12), tmp_path / "images"
    command = [*CARIMG, "bulk", str(listing), "-o", str(out), "--yes", "--concurrency", "1"]
    environ = {**os.environ, **env}
    with subprocess.Popen(command, env=environ, stderr=subprocess.DEVNULL) as first:
        deadline = time.monotonic() + 120
        while len(_manifest_files(out)) < 3 and first.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
    written = _manifest_files(out)
    assert written, "the first run wrote nothing before it was stopped"
    before = json_of(carimg("account", "--json"))["data"]["credits"]
    summary = json_of(carimg("bulk", str(listing), "-o", str(out), "--yes", "--json"))
    assert summary["skipped_existing"] == len(written)
    assert summary["downloaded"] == 12 - len(written) == summary["credits_spent"]
    assert json_of(carimg("account", "--json"))["data"]["credits"] == before - (12 - len(written))
    images = {path.name for path in out.glob("*.png")}
    assert len(images) == 12 and images == _manifest_files(out)


def test_bulk_keeps_to_the_spending_cap_then_finishes(carimg: Run, tmp_path: Path) -> None:
    listing, out = _listing(tmp_path / "cars.csv", 4), tmp_path / "images"
    capped = json_of(carimg("bulk", str(listing), "-o", str(out), "--yes", "--max-credits", "1",
                            "--json"))  # fmt: skip
    assert (capped["downloaded"], capped["skipped_cap"], capped["credits_spent"]) == (1, 3, 1)
    rest = json_of(carimg("bulk", str(listing), "-o", str(out), "--yes", "--json"))
    assert (rest["downloaded"], rest["skipped_existing"]) == (3, 1)


def test_bulk_asks_before_spending(carimg: Run, tmp_path: Path) -> None:
    listing, out = _listing(tmp_path / "cars.csv", 2), tmp_path / "images"
    result = carimg("bulk", str(listing), "-o", str(out), "--json")
    assert result.exit_code == 2 and "--yes" in json_of(result)["error"]["detail"]
    assert not list(out.glob("*.png"))


async def test_mcp_serves_the_agent_tools_over_stdio(env: dict[str, str]) -> None:
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "carimg", "mcp"], env={**os.environ, **env}
    )
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert names == {
            "get_car_image", "create_car_image_urls", "search_vehicles", "resolve_vehicle",
            "list_image_options", "get_account", "rate_image", "describe_api",
        }  # fmt: skip
        image = await session.call_tool(
            "get_car_image", {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb"}
        )
        assert not image.is_error and image.content[0].type == "image"
        assert image.structured_content and image.structured_content["credits_charged"] == 1
        resolved = await session.call_tool("resolve_vehicle", {"query": "red 2020 toyota camry"})
        assert resolved.structured_content
        assert resolved.structured_content["params"]["color"] == "red"
        missing = await session.call_tool(
            "get_car_image", {"make": "toyota", "model": "camryy", "year": 2020}
        )
        assert missing.is_error and "Camry" in missing.content[0].text
