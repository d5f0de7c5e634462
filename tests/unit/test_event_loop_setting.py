"""CARIMG_EVENT_LOOP: which event loop `carimg serve` runs granian on."""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
import typer
from pydantic import ValidationError

from carimg.config import Settings


def _loop(monkeypatch: pytest.MonkeyPatch, value: str | None) -> str:
    from carimg.cli.serve import event_loop

    if value is None:
        monkeypatch.delenv("CARIMG_EVENT_LOOP", raising=False)
    else:
        monkeypatch.setenv("CARIMG_EVENT_LOOP", value)
    return event_loop(Settings())


def test_the_server_runs_on_uvloop_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _loop(monkeypatch, None) == "uvloop"


@pytest.mark.parametrize("value", ["asyncio", "uvloop"])
def test_carimg_event_loop_picks_the_loop(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    assert _loop(monkeypatch, value) == value


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
    assert _loop(monkeypatch, None) == "asyncio"


@pytest.mark.usefixtures("without_uvloop")
def test_asking_for_uvloop_where_it_is_missing_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(typer.BadParameter, match="uvloop is not installed"):
        _loop(monkeypatch, "uvloop")


def test_granian_runs_the_chosen_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    import granian.server
    from granian.constants import Loops

    from carimg.cli.serve import run_granian

    given: dict[str, Any] = {}

    class Recorder:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            given.update(kwargs)

        def serve(self) -> None:
            pass

    monkeypatch.setattr(granian.server, "Server", Recorder)
    monkeypatch.setenv("CARIMG_EVENT_LOOP", "asyncio")
    run_granian(Settings(), "127.0.0.1", 8000, 1)
    assert given["loop"] == Loops.asyncio


def test_an_unknown_event_loop_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARIMG_EVENT_LOOP", "tokio")
    with pytest.raises(ValidationError, match="'auto', 'asyncio' or 'uvloop'"):
        Settings()
