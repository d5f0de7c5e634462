"""The output formats' media types, shared by every layer: the renderer encodes them, the
domain and the API answer with them, the blob store labels the files it keeps.

A module without dependencies (as `bodystyles`), so the libraries can import it cheaply.
"""

from __future__ import annotations

from typing import Final

MEDIA_TYPES: Final[dict[str, str]] = {"png": "image/png", "webp": "image/webp", "jpg": "image/jpeg"}
