"""The 15 paint presets of the spec and their reference colours (sRGB hex)."""

from __future__ import annotations

from typing import Final

# Chosen to read as their names in a studio render; the paint-distance test measures against these.
PRESET_COLORS: Final[dict[str, str]] = {
    "white": "#F2F3EF",
    "black": "#0E0F12",
    "gray": "#5F6368",
    "silver": "#A9ADB2",
    "blue": "#1F4E9A",
    "red": "#B3141C",
    "green": "#1F5C3B",
    "brown": "#5B3B25",
    "beige": "#CFBD98",
    "tan": "#B08B5E",
    "orange": "#E0661C",
    "yellow": "#F0BF1F",
    "gold": "#B8953F",
    "burgundy": "#6B1527",
    "purple": "#4C2E84",
}

# Presets painted with a metallic flake look unless another finish is asked for.
METALLIC_PRESETS: Final[frozenset[str]] = frozenset({"silver", "gold", "gray"})

# Paint finishes: solid gloss (clear coat over a flat colour), metallic (flake under the clear
# coat), satin (a dulled clear coat) and matte (no clear coat, a broad sheen). A render's paint key
# is `COLOUR` or `COLOUR:FINISH`; without a finish, a preset's own finish is used.
FINISHES: Final[tuple[str, ...]] = ("gloss", "metallic", "satin", "matte")


class PaintError(ValueError):
    """The paint is neither a preset name nor a `#RRGGBB` hex colour."""


def paint_key(color: str, finish: str | None = None) -> str:
    """The render paint key of a colour and an optional finish (`red`, `red:matte`)."""
    return color if finish is None else f"{color}:{finish}"


def resolve_paint(paint: str) -> tuple[tuple[float, float, float], str]:
    """Turn a paint key (`NAME`, `#RRGGBB`, either with `:FINISH`) into (sRGB 0–1, finish)."""
    key, _, finish = paint.strip().lower().partition(":")
    if finish and finish not in FINISHES:
        raise PaintError(f"unknown finish {finish!r}: use one of {', '.join(FINISHES)}")
    if key in PRESET_COLORS:
        hex_value = PRESET_COLORS[key]
        default = "metallic" if key in METALLIC_PRESETS else "gloss"
    else:
        hex_value, default = key, "gloss"
    if len(hex_value) != 7 or hex_value[0] != "#":
        raise PaintError(f"unknown paint {paint!r}: use a preset name or #RRGGBB")
    try:
        rgb = tuple(int(hex_value[i : i + 2], 16) / 255.0 for i in (1, 3, 5))
    except ValueError:
        raise PaintError(f"unknown paint {paint!r}: use a preset name or #RRGGBB") from None
    return (rgb[0], rgb[1], rgb[2]), finish or default
