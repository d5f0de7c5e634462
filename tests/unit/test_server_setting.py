"""CARIMG_SERVER and CARIMG_EVENT_LOOP: which HTTP server and event loop `carimg serve` runs."""

from __future__ import annotations

import importlib.util

import pytest
import typer
from pydantic import ValidationError

from carimg.config import Settings


def test_the_server_is_uvicorn_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CARIMG_SERVER", raising=False)
    assert Settings().server == "uvicorn"


def test_carimg_server_granian_selects_granian(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARIMG_SERVER", "granian")
    assert Settings().server == "granian"


@pytest.mark.parametrize("name", ["nginx", "Granian", "hypercorn", ""])
def test_an_unknown_server_is_rejected(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("CARIMG_SERVER", name)
    with pytest.raises(ValidationError, match="'uvicorn' or 'granian'"):
        Settings()


def _loop(monkeypatch: pytest.MonkeyPatch, value: str | None, server: str) -> str:
    from carimg.cli.serve import event_loop

    if value is None:
        monkeypatch.delenv("CARIMG_EVENT_LOOP", raising=False)
    else:
        monkeypatch.setenv("CARIMG_EVENT_LOOP", value)
    return event_loop(Settings(), server)


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_both_servers_run_on_uvloop_unless_set(
    monkeypatch: pytest.MonkeyPatch, server: str
) -> None:
    assert _loop(monkeypatch, None, server) == "uvloop"


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
@pytest.mark.parametrize("value", ["asyncio", "uvloop"])
def test_carimg_event_loop_picks_the_loop_under_either_server(
    monkeypatch: pytest.MonkeyPatch, value: str, server: str
) -> None:
    assert _loop(monkeypatch, value, server) == value


@pytest.fixture
def without_uvloop(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if uvloop were not installed."""
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name: None if name == "uvloop" else real(name)
    )


@pytest.mark.usefixtures("without_uvloop")
def test_auto_falls_back_to_asyncio_where_uvloop_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _loop(monkeypatch, None, "granian") == "asyncio"


@pytest.mark.usefixtures("without_uvloop")
def test_asking_for_uvloop_where_it_is_missing_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(typer.BadParameter, match="uvloop is not installed"):
        _loop(monkeypatch, "uvloop", "uvicorn")


def test_an_unknown_event_loop_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARIMG_EVENT_LOOP", "tokio")
    with pytest.raises(ValidationError, match="'auto', 'asyncio' or 'uvloop'"):
        Settings()
