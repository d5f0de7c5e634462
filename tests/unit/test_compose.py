"""compose.yaml and the Dockerfile describe a fleet the code can run (they cannot be started
here: no image registry). Their structure is checked against Settings and the CLI."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.main import get_command

from carimg.cli import app as cli
from carimg.config import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return document


def test_the_fleet_has_servers_workers_postgres_redis_and_an_object_store(
    compose: dict[str, Any],
) -> None:
    assert {"server", "worker", "postgres", "redis", "minio"} <= set(compose["services"])


def test_every_long_running_service_has_a_health_check(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        if service.get("restart") != "no":
            assert service["healthcheck"]["test"], name


def test_every_carimg_variable_names_a_setting(compose: dict[str, Any]) -> None:
    fields = set(Settings.model_fields)
    names = set(compose["x-carimg-environment"]) | set(compose["services"]["server"]["environment"])
    carimg = {name for name in names if name.startswith("CARIMG_")}
    assert carimg, "the fleet is configured through CARIMG_* variables"
    unknown = {name for name in carimg if name.removeprefix("CARIMG_").lower() not in fields}
    assert unknown == set()


def test_servers_and_workers_share_the_database_redis_queue_and_bucket(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    server, worker = services["server"]["environment"], services["worker"]["environment"]
    for name in ("CARIMG_DATABASE_URL", "CARIMG_REDIS_URL", "CARIMG_S3_BUCKET",
                 "CARIMG_S3_ENDPOINT_URL", "CARIMG_SECRET_KEY"):  # fmt: skip
        assert server[name] == worker[name], name
    assert server["CARIMG_RENDER_QUEUE"] == "redis"
    assert server["CARIMG_DATABASE_URL"].startswith("postgresql+asyncpg://")
    for service in ("server", "worker"):
        depends = services[service]["depends_on"]
        assert depends["postgres"]["condition"] == "service_healthy"
        assert depends["redis"]["condition"] == "service_healthy"
        assert depends["bucket"]["condition"] == "service_completed_successfully"


def test_the_worker_health_check_reads_the_queue_settings_use(compose: dict[str, Any]) -> None:
    test = " ".join(compose["services"]["worker"]["healthcheck"]["test"])
    assert f"'{Settings().render_queue_name}:health-check'" in test


def test_the_commands_exist_in_the_cli(compose: dict[str, Any]) -> None:
    commands = get_command(cli).commands  # type: ignore[attr-defined]
    for service in ("server", "worker"):
        command = compose["services"][service]["command"]
        assert command[0] == "carimg" and command[1] in commands, service


def test_servers_stop_gracefully_within_their_grace_period(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    grace = int(server["stop_grace_period"].removesuffix("s"))
    assert grace > int(server["environment"]["CARIMG_SHUTDOWN_TIMEOUT"])


def test_the_dockerfile_builds_the_package_and_serves_with_a_health_check() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    # uv pinned by its hashes installs exactly uv.lock, without the development group.
    assert re.search(r"^RUN pip install --require-hashes .*uv-requirements\.txt", dockerfile, re.M)
    installs = re.findall(r"^RUN uv sync (.+)", dockerfile, re.M)
    assert installs and all("--locked" in i and "--no-dev" in i for i in installs), installs
    assert re.search(r"^HEALTHCHECK .*\n?.*/api/health", dockerfile, re.M)
    assert re.search(r'^CMD \["carimg", "serve"', dockerfile, re.M)
    copied = re.findall(r"^COPY (.+) \./", dockerfile, re.M)
    for line in copied:
        for path in line.split():
            assert (ROOT / path).exists(), path
