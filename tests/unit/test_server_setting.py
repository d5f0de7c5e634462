"""CARIMG_SERVER: which HTTP server `carimg serve` runs."""

from __future__ import annotations

import pytest
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
