"""The command line takes the paint finish where it takes a color (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from carimg.cli import app
from carimg.cli.bulk import file_name, read_rows
from tests.cli.conftest import Run, json_of

CAMRY = {"make": "toyota", "model": "camry", "year": 2020, "color": "red"}


def test_a_bulk_file_name_names_the_finish_after_the_color() -> None:
    assert file_name(CAMRY | {"finish": "matte"}) == "toyota-camry-2020-front-3-4-red-matte.png"


def test_a_bulk_file_name_without_a_finish_is_the_one_from_before_finishes() -> None:
    assert file_name(CAMRY) == "toyota-camry-2020-front-3-4-red.png"


def test_a_bulk_row_reads_the_finish_column(tmp_path: Path) -> None:
    listing = tmp_path / "cars.csv"
    listing.write_text("make,model,year,color,finish\ntoyota,camry,2020,red,satin\n")
    [row] = read_rows(listing)
    assert row.params["finish"] == "satin"


def test_render_with_an_unknown_finish_is_a_usage_error(tmp_path: Path) -> None:
    args = ["render", "--make", "toyota", "--model", "camry", "--year", "2020"]
    out = ["--finish", "chrome", "--out", str(tmp_path / "camry.png")]
    result = CliRunner().invoke(app, [*args, *out])
    assert result.exit_code == 2 and "unknown finish 'chrome'" in result.output
    assert not (tmp_path / "camry.png").exists()


@pytest.mark.e2e
def test_get_with_a_finish_names_the_file_after_it(carimg: Run, tmp_path: Path) -> None:
    result = carimg("get", "toyota", "camry", "2020", "--color", "red", "--finish", "matte",
                    "--size", "thumb", "-o", f"{tmp_path}/", "--json")  # fmt: skip
    saved = json_of(result)
    assert Path(saved["path"]).name == "toyota-camry-2020-red-matte.png"
    assert saved["credits_charged"] == 1
