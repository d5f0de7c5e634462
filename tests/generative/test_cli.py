"""`carimg render --backend openai` against the local images server."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image
from typer.testing import CliRunner

from carimg.cli import app
from tests.generative.fakeimages import API_KEY, FakeImages

ARGS = ["render", "--backend", "openai", "--make", "toyota", "--model", "camry", "--year", "2020"]


@pytest.fixture
def env(images_server: FakeImages, tmp_path: Path) -> dict[str, str]:
    return {
        "CARIMG_DATA_DIR": str(tmp_path / "var"),
        "CARIMG_OPENAI_API_KEY": API_KEY,
        "CARIMG_OPENAI_BASE_URL": images_server.url,
    }


def test_render_with_the_openai_backend_writes_the_generated_source(
    env: dict[str, str], images_server: FakeImages, tmp_path: Path
) -> None:
    out = tmp_path / "camry.png"
    result = CliRunner().invoke(app, [*ARGS, "--view", "side", "--out", str(out)], env=env)
    assert result.exit_code == 0, result.output
    with Image.open(out) as image:
        assert image.size == (1024, 1024) and image.mode == "RGBA"
    assert images_server.calls == {"generations": 1, "edits": 1}


def test_a_failed_generation_exits_1_without_the_providers_words(
    env: dict[str, str], images_server: FakeImages, tmp_path: Path
) -> None:
    images_server.script = ["500"]
    out = tmp_path / "camry.png"
    result = CliRunner().invoke(app, [*ARGS, "--out", str(out)], env=env)
    assert result.exit_code == 1
    assert "gave no image" in result.output and API_KEY not in result.output
    assert not out.exists()
