"""numba keeps its kernels in a folder named after the renderer's source: never served stale."""

from __future__ import annotations

import os
from pathlib import Path

import carimg.render
from carimg.render._jit import source_digest


def _package(folder: Path, layout: str) -> Path:
    folder.mkdir()
    (folder / "_shade.py").write_text("def shade(p): return p[LAYOUT.HL_Y]\n")
    (folder / "_materials.py").write_text(layout)
    return folder


def test_a_change_to_any_module_changes_the_cache_folder(tmp_path: Path) -> None:
    before = source_digest(_package(tmp_path / "a", "HL_Y = 23\n"))
    after = source_digest(_package(tmp_path / "b", "HL_Y = 24\n"))  # the shader file is the same
    assert before != after


def test_the_same_source_keeps_its_cache_folder(tmp_path: Path) -> None:
    assert source_digest(_package(tmp_path / "a", "HL_Y = 23\n")) == source_digest(
        _package(tmp_path / "b", "HL_Y = 23\n")
    )


def test_numba_caches_in_the_folder_of_this_source() -> None:
    package = Path(carimg.render.__file__).resolve().parent
    assert Path(os.environ["NUMBA_CACHE_DIR"]).name == f"numba-{source_digest(package)}"
