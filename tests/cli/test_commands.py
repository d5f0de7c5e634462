"""The client commands against a real server: output, JSON, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import Account, Run, json_of

pytestmark = pytest.mark.e2e

DOCTOR_CHECKS = [
    "health", "options", "vehicles:years", "vehicles:makes", "vehicles:models", "search",
    "resolve", "account", "image-urls", "image",
]  # fmt: skip


def test_doctor_runs_the_checks_in_order_and_spends_nothing_without_yes(carimg: Run) -> None:
    result = carimg("doctor", "--json")
    report = json_of(result)
    assert result.exit_code == 0 and report["ok"]
    assert [check["name"] for check in report["checks"]] == DOCTOR_CHECKS
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses.pop("image") == "skip" and set(statuses.values()) == {"pass"}
    assert report["credits_spent"] == 0
    check = report["checks"][DOCTOR_CHECKS.index("account")]
    assert check["http_status"] == 200 and check["request_id"] and check["latency_ms"] > 0


def test_doctor_with_yes_mints_and_fetches_for_two_credits(carimg: Run) -> None:
    report = json_of(carimg("doctor", "--yes", "--json"))
    assert report["ok"] and report["credits_spent"] == 2
    assert {check["status"] for check in report["checks"]} == {"pass"}


def test_doctor_with_a_bad_key_fails_with_fixes_and_exit_1(carimg: Run) -> None:
    result = carimg("doctor", "--api-key", "cimg_not_a_real_key", "--json")
    report = json_of(result)
    assert result.exit_code == 1 and not report["ok"]
    failed = [check for check in report["checks"] if check["status"] == "fail"]
    assert {check["name"] for check in failed} >= {"resolve", "account", "image-urls"}
    assert all(check["http_status"] == 401 and "carimg login" in check["fix"] for check in failed)


def test_doctor_prints_a_table(carimg: Run) -> None:
    result = carimg("doctor")
    assert result.exit_code == 0
    assert "vehicles:models" in result.stdout and "all good" in result.stdout


def test_get_writes_the_image_and_reports_the_credits_left(carimg: Run, tmp_path: Path) -> None:
    result = carimg(
        "get", "toyota", "camry", "2020", "--size", "thumb", "-o", f"{tmp_path}/", "--json"
    )
    saved = json_of(result)
    path = Path(saved["path"])
    assert path.parent == tmp_path and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert saved["bytes"] == path.stat().st_size and saved["width"] == 256
    assert saved["credits_charged"] == 1 and saved["credits_remaining"] >= 0


def test_get_resolves_a_description_first(carimg: Run, tmp_path: Path) -> None:
    target = tmp_path / "civic.webp"
    result = carimg("get", "blue", "2019", "honda", "civic", "side", "--size", "thumb",
                    "--format", "webp", "-o", str(target))  # fmt: skip
    assert result.exit_code == 0 and target.read_bytes()[:4] == b"RIFF"
    assert "credits left" in result.stdout


def test_an_unknown_vehicle_exits_5_with_suggestions(carimg: Run) -> None:
    result = carimg("get", "toyota", "camryy", "2020", "--json")
    error = json_of(result)["error"]
    assert result.exit_code == 5 and error["status"] == 404
    assert error["suggestions"] and "Toyota Camry" in error["fix"]


def test_no_key_exits_3(carimg: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CAR_IMAGE_API_KEY")
    result = carimg("account", "--json")
    assert result.exit_code == 3 and "carimg login" in json_of(result)["error"]["detail"]


def test_url_mints_one_url_per_line_of_a_file(carimg: Run, tmp_path: Path) -> None:
    listing = tmp_path / "cars.csv"
    listing.write_text("make,model,year\ntoyota,camry,2020\nford,f-150,2021\n")
    minted = json_of(carimg("url", "--file", str(listing), "--size", "thumb", "--json"))
    assert len(minted["urls"]) == 2 and minted["credits_charged"] == 2
    assert all("/api/v1/delivery/" in record["url"] for record in minted["urls"])


def test_free_commands_answer_in_json(carimg: Run) -> None:
    resolved = json_of(carimg("resolve", "red", "2020", "toyota", "camry", "--json"))
    assert resolved["data"]["params"]["color"] == "red"
    found = json_of(carimg("search", "camry", "--limit", "2", "--json"))
    assert found["results"][0]["model_slug"] == "camry"
    assert len(json_of(carimg("options", "--json"))["data"]["colors"]) == 15


def test_whoami_and_account_name_the_key(carimg: Run, account: Account) -> None:
    me = json_of(carimg("whoami", "--json"))
    assert me["email"] == account.email and me["key_source"] == "environment"
    assert json_of(carimg("account", "--json"))["data"]["credits"] > 0


def test_describe_explains_an_endpoint_from_openapi(carimg: Run) -> None:
    result = carimg("describe", "create_image_urls")
    assert result.exit_code == 0 and "POST /api/v1/image-urls" in result.stdout
    described = json_of(carimg("describe", "GET /api/v1/images/car", "--json"))
    assert [op["operationId"] for op in described["operations"]] == ["get_car_image"]
    assert carimg("describe", "no_such_thing").exit_code == 5


def test_buy_prepares_a_hosted_checkout_without_charging(carimg: Run) -> None:
    # A dashboard key lacks billing:write; the 403 names the scope and exits 3.
    result = carimg("buy", "5000", "--no-browser", "--json")
    assert result.exit_code == 3
    assert json_of(result)["error"]["required_scope"] == "billing:write"
