"""OpenAPI schemas of the image parameters (query and JSON spellings) as `parse_image_request`
reads them; the schemas only document, the domain validates."""

from __future__ import annotations

from typing import Any, Final

from carimg.domain.imagerequest import BACKGROUNDS, FITS, FORMATS_ACCEPTED, MAX_NAME_LENGTH
from carimg.domain.views import COLORS, FINISHES, SIZE_PRESETS, VIEW_BY_NAME
from carimg.formats import MEDIA_TYPES

_HEX = "#?([0-9a-fA-F]{6}|[0-9a-fA-F]{3})"


def _one_of(*choices: str) -> str:
    return "^(" + "|".join([*choices[:-1], choices[-1]]) + ")$"


NAME: Final[dict[str, Any]] = {"pattern": r"\S", "maxLength": MAX_NAME_LENGTH}
VIEW: Final[dict[str, Any]] = {"enum": sorted(VIEW_BY_NAME)}
COLOR: Final[dict[str, Any]] = {"pattern": _one_of(*COLORS, _HEX)}
FINISH: Final[dict[str, Any]] = {"enum": list(FINISHES)}
BACKGROUND: Final[dict[str, Any]] = {"pattern": _one_of(*BACKGROUNDS, _HEX)}
SIZE: Final[dict[str, Any]] = {"enum": list(SIZE_PRESETS)}
FIT: Final[dict[str, Any]] = {"enum": list(FITS)}
FORMAT: Final[dict[str, Any]] = {"enum": list(FORMATS_ACCEPTED)}
FLAG: Final[dict[str, Any]] = {"enum": ["true", "false", "1", "0", "yes", "no", "on", "off"]}

_FORMAT_NOTES = {
    "png": "PNG with a transparent background",
    "webp": "WebP with a transparent background",
    "jpg": "JPEG flattened on white (or the background)",
}
# The body of an image response, per media type. The schema (`format: binary`) tells client
# generators the body is bytes; a media type object itself may carry no description.
IMAGE_CONTENT: Final[dict[str, Any]] = {
    MEDIA_TYPES[name]: {"schema": {"type": "string", "format": "binary", "description": note}}
    for name, note in _FORMAT_NOTES.items()
}
