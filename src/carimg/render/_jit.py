"""Numba set-up: an on-disk kernel cache that a new process can trust.

Import this module before `numba` anywhere in `carimg.render`. Numba keys a cached kernel on its
own source file only, so a kernel that reads another module's constants (the decal layout in
`_materials`) or calls another module's kernel would be served stale after that module changed.
The cache therefore lives in a folder named after a digest of every module of the renderer: any
change to the renderer's source starts a fresh cache. The folder is under the package's
`__pycache__` when that is writable, else under `$NUMBA_CACHE_DIR` or a per-user cache folder.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def source_digest(package: Path) -> str:
    """A digest of the renderer's modules (names and bytes), stable across runs."""
    digest = hashlib.sha256()
    for path in sorted(package.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(folder, os.W_OK)


def _ensure_cache_dir() -> None:
    here = Path(__file__).resolve().parent
    leaf = f"numba-{source_digest(here)}"
    # CARIMG_NUMBA_BASE: the base folder chosen by the first process; its children inherit it
    given = os.environ.get("CARIMG_NUMBA_BASE") or os.environ.get("NUMBA_CACHE_DIR")
    if given:
        candidates = [Path(given)]
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        candidates = [here / "__pycache__", Path(base) / "carimg"]
    candidates.append(Path(tempfile.gettempdir()) / f"carimg-numba-{os.getuid()}")
    for folder in candidates:
        if _writable(folder / leaf):
            os.environ["CARIMG_NUMBA_BASE"] = str(folder)
            os.environ["NUMBA_CACHE_DIR"] = str(folder / leaf)
            return


_ensure_cache_dir()

from collections.abc import Callable  # noqa: E402
from typing import Any, TypeVar  # noqa: E402

import numba  # noqa: E402

F = TypeVar("F", bound=Callable[..., Any])


def njit(**options: Any) -> Callable[[F], F]:
    """`numba.njit(**options)` typed so decorated functions keep their signatures for mypy."""
    # numpy semantics for float division by zero (inf/nan, no exception check per division):
    # noticeably faster in the shading loops, and the kernels never divide by zero on purpose
    options.setdefault("error_model", "numpy")
    decorator: Callable[[F], F] = numba.njit(**options)
    return decorator


__all__ = ["njit", "source_digest"]
