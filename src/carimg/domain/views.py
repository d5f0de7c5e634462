"""The enumerations clients send: the spec's views (with aliases), colors, formats and size
presets, and carimg's paint finishes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from carimg.formats import MEDIA_TYPES
from carimg.render import PRESET_COLORS, VIEW_YAWS


@dataclass(frozen=True, slots=True)
class ViewInfo:
    """A camera view as clients see it."""

    id: str
    label: str
    description: str
    aliases: tuple[str, ...]

    @property
    def yaw_degrees(self) -> int:
        return VIEW_YAWS[self.id]


VIEWS: Final[tuple[ViewInfo, ...]] = (
    ViewInfo("front", "Front", "Head-on from the front.", ()),
    ViewInfo(
        "front-3-4",
        "Front three-quarter",
        "The classic hero shot: front and left flank.",
        ("front34", "hero"),
    ),
    ViewInfo(
        "side", "Side (left)", "Profile of the left flank, facing left.", ("profile", "side-left")
    ),
    ViewInfo("rear-3-4", "Rear three-quarter", "Rear and left flank.", ("rear34",)),
    ViewInfo("rear", "Rear", "Straight from behind.", ("back",)),
    ViewInfo(
        "side-right", "Side (right)", "Profile of the right flank, facing right.", ("side-r",)
    ),
)
DEFAULT_VIEW: Final = "front-3-4"
VIEW_BY_NAME: Final[dict[str, str]] = {
    name: view.id for view in VIEWS for name in (view.id, *view.aliases)
}

COLORS: Final[dict[str, str]] = dict(PRESET_COLORS)
DEFAULT_COLOR: Final = "silver"

# carimg's own `finish` parameter (no leading service has one: they take OEM paint codes). Without
# it a preset keeps its own finish: silver, gold and gray metallic, the others and hex gloss.
FINISHES: Final[dict[str, str]] = {
    "gloss": "Solid colour under a clear coat: sharp, bright highlights.",
    "metallic": "Flake under the clear coat: a sparkling sheen that brightens toward the light.",
    "satin": "A dulled clear coat: soft, broad highlights.",
    "matte": "No clear coat: a flat, diffuse sheen.",
}


@dataclass(frozen=True, slots=True)
class FormatInfo:
    id: str
    mime: str
    transparent: bool


FORMATS: Final[tuple[FormatInfo, ...]] = (
    FormatInfo("png", MEDIA_TYPES["png"], True),
    FormatInfo("webp", MEDIA_TYPES["webp"], True),
    FormatInfo("jpg", MEDIA_TYPES["jpg"], False),
)
FORMAT_ALIASES: Final[dict[str, str]] = {"jpeg": "jpg"}
DEFAULT_FORMAT: Final = "png"

SIZE_PRESETS: Final[dict[str, int]] = {"thumb": 256, "small": 512, "medium": 768, "large": 1024}
MAX_SIZE: Final = 1024
SOURCE_SIZE: Final = 1024
