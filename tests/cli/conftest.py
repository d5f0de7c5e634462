"""CLI tests: the `carimg` Typer app (and its process) against a real `carimg serve`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from carimg.cli import app
from tests.e2e.conftest import Server, server

__all__ = ["server"]  # the session's real server process, shared with tests/e2e's fixture code


@dataclass(frozen=True)
class Account:
    email: str
    key: str


@pytest.fixture(scope="session")
def account(server: Server) -> Account:
    """One account with credits to spare and a key, made with the operator's commands."""
    email = f"cli-{uuid.uuid4().hex[:8]}@example.com"
    server.admin("create-account", "--email", email, "--credits", "1000")
    created = server.admin("create-key", "--email", email)
    return Account(email, str(created["key"]))


@pytest.fixture
def env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, server: Server, account: Account
) -> dict[str, str]:
    """The client's environment: this server, this key, a config directory of the test's own."""
    values = {
        "CAR_IMAGE_API_URL": server.url,
        "CAR_IMAGE_API_KEY": account.key,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "COLUMNS": "200",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


Run = Callable[..., Result]


@pytest.fixture
def carimg(env: dict[str, str]) -> Run:
    """Run `carimg ARGS…` through the Typer app, as the console script does."""

    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)

    return run


def json_of(result: Result) -> Any:
    return json.loads(result.stdout)
