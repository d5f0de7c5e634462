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

# Presets painted with a metallic flake look.
METALLIC_PRESETS: Final[frozenset[str]] = frozenset({"silver", "gold", "gray"})
