"""The renderer's version, part of every ETag and render-cache key.

`RENDER_CODE_VERSION` is bumped by hand with every change of the renderer's output bytes (and only
then): `tests/unit/render/test_golden.py` holds hashes of a few renders made with it and fails when
the output changes without a bump. The design data's digest is part of the version too, so an
edited record re-renders without anyone remembering to bump.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Final

RENDER_CODE_VERSION: Final = 102


def _design_data_digest() -> str:
    data = resources.files("carimg.catalog").joinpath("data/generations.jsonl").read_bytes()
    return hashlib.sha256(data).hexdigest()[:8]


RENDERER_VERSION: Final = f"r{RENDER_CODE_VERSION}-{_design_data_digest()}"
