"""`carimg serve --host H --port P` mints links on the address it serves unless told otherwise."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from carimg.cli import serve as serve_module
from carimg.cli._app import app
from carimg.cli.serve import served_base_url
from carimg.config import Settings


@pytest.mark.parametrize(
    ("host", "port", "url"),
    [
        ("127.0.0.1", 8123, "http://127.0.0.1:8123"),
        ("localhost", 8000, "http://localhost:8000"),
        ("0.0.0.0", 9000, "http://127.0.0.1:9000"),
        ("::", 9000, "http://[::1]:9000"),
        ("::1", 8001, "http://[::1]:8001"),
    ],
)
def test_the_base_url_is_the_address_served(host: str, port: int, url: str) -> None:
    assert served_base_url(host, port) == url


def _served_settings(monkeypatch: pytest.MonkeyPatch, *args: str) -> Settings:
    seen: list[Settings] = []
    monkeypatch.setattr(serve_module, "run_granian", lambda settings, *_: seen.append(settings))
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 0, result.output
    return seen[0]


def test_serve_on_another_port_mints_links_on_that_port(monkeypatch: pytest.MonkeyPatch) -> None:
    # set, then removed: monkeypatch then removes what `serve` sets when the test ends
    monkeypatch.setenv("CARIMG_BASE_URL", "unset")
    monkeypatch.delenv("CARIMG_BASE_URL")
    settings = _served_settings(monkeypatch, "--port", "8123")
    assert settings.base_url == "http://127.0.0.1:8123"


def test_a_configured_base_url_wins_over_the_address_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CARIMG_BASE_URL", "https://images.example.com")
    settings = _served_settings(monkeypatch, "--port", "8123")
    assert settings.base_url == "https://images.example.com"
