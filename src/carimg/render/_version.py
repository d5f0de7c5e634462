"""The renderer's version: a digest of its own source, so any change to it changes every ETag."""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import Final


def _source_digest() -> str:
    digest = hashlib.sha256()
    package = resources.files("carimg.render")
    for entry in sorted(package.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".py"):
            digest.update(entry.name.encode())
            digest.update(entry.read_bytes())
    return digest.hexdigest()[:12]


RENDERER_VERSION: Final = "r1-" + _source_digest()
