"""Prompts for a generative image model, from catalog names, year, body style, view and paint.

`PROMPT_VERSION` is part of the backend's render version (so of every cache key and ETag): bump
it with every change of the text below, and every image made with the old text is made anew.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from carimg.catalog import Vehicle
from carimg.render import PRESET_COLORS, VIEW_YAWS, resolve_paint

PROMPT_VERSION: Final = "p1"

# The view the reference generation shows; every other view is an edit of the reference.
REFERENCE_VIEW: Final = "front-3-4"

# What each view shows, as the procedural renderer frames it (VIEW_YAWS: `side` faces left).
_SHOTS: Final[dict[str, str]] = {
    "front": "a straight-on front view: the whole front face, symmetrical, both headlights "
    "equally visible",
    "front-3-4": "a front three-quarter view: the front and the left flank, the nose toward "
    "the viewer's left",
    "side": "a side profile of the left flank, square to the camera, the nose pointing left",
    "rear-3-4": "a rear three-quarter view: the rear and the left flank, the nose pointing away "
    "toward the viewer's right",
    "rear": "a straight-on rear view: the whole rear face, symmetrical, both tail lights equally "
    "visible",
    "side-right": "a side profile of the right flank, square to the camera, the nose pointing "
    "right",
}

_STUDIO: Final = (
    "The whole vehicle in frame and centred, nothing cropped, the camera slightly above the "
    "vehicle's mid-height (about 5 degrees down), long lens, soft even studio lighting. "
    "Transparent background; if transparency is unavailable, a plain pure white seamless "
    "background. No ground, no floor reflection, no shadow, no people, no other objects. No "
    "logos, badges, emblems, text, watermarks or licence plates (plate areas blank)."
)

# A flagged render (feedback) is made again at the next variation, with different words.
_TAKES: Final = (
    "",
    "Render it afresh with extra care for the exact proportions of this model year.",
    "A new take: accurate body lines, wheel design and glasshouse of this generation.",
    "Another take: true-to-life proportions, stance and lights of this exact model year.",
)


@dataclass(frozen=True, slots=True)
class Subject:
    """The vehicle and paint of one reference, as words."""

    vehicle: Vehicle
    paint: str  # a paint key: a preset name or "#rrggbb", optionally ":finish"
    variation: int = 0

    @property
    def vehicle_words(self) -> str:
        v = self.vehicle
        style = v.model.body_style.replace("-", " ")
        return f"a {v.year} {v.make.name} {v.model.name} ({style}), factory stock"

    @property
    def paint_words(self) -> str:
        finish = resolve_paint(self.paint)[1]
        name = self.paint.lower().partition(":")[0]
        words = "" if finish == "gloss" else f"{finish} "
        if name in PRESET_COLORS:
            return f"{words}{name} paint ({PRESET_COLORS[name]})"
        return f"{words or 'solid '}paint of the colour {name.upper()}"

    @property
    def take(self) -> str:
        if self.variation == 0:
            return ""
        words = _TAKES[1 + (self.variation - 1) % (len(_TAKES) - 1)]
        return f" {words} (take {self.variation + 1})"


def shot(view: str) -> str:
    """What the camera shows for a view, with its yaw."""
    return f"{_SHOTS[view]} (yaw {VIEW_YAWS[view]} degrees)"


def reference_prompt(subject: Subject) -> str:
    """The generation prompt of a vehicle and paint's reference view."""
    return (
        f"Studio product photograph of {subject.vehicle_words}, in {subject.paint_words}, "
        f"shown in {shot(REFERENCE_VIEW)}. {_STUDIO}{subject.take}"
    )


def view_prompt(subject: Subject, view: str) -> str:
    """The edit prompt that turns the reference image into another view of the same vehicle."""
    return (
        f"The same vehicle as in the input image, {subject.vehicle_words}, identical in every "
        f"detail (body, wheels, lights, trim and {subject.paint_words}), now shown in "
        f"{shot(view)}. Change only the camera angle. {_STUDIO}{subject.take}"
    )
