"""Numba set-up: a writable on-disk cache so a new process skips the JIT.

Import this module before `numba` anywhere in `carimg.render`. Numba caches compiled functions
next to
their source (`__pycache__`); when that folder is not writable (a read-only install, a
container), the
cache goes to `$NUMBA_CACHE_DIR`, or to a per-user folder that we choose here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _ensure_cache_dir() -> None:
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    here = Path(__file__).resolve().parent
    pycache = here / "__pycache__"
    try:
        pycache.mkdir(exist_ok=True)
        writable = os.access(pycache, os.W_OK)
    except OSError:
        writable = False
    if writable:
        return
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    candidate = Path(base) / "carimg" / "numba"
    try:
        candidate.mkdir(parents=True, exist_ok=True)
    except OSError:
        candidate = Path(tempfile.gettempdir()) / f"carimg-numba-{os.getuid()}"
        candidate.mkdir(parents=True, exist_ok=True)
    os.environ["NUMBA_CACHE_DIR"] = str(candidate)


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


__all__ = ["njit"]
