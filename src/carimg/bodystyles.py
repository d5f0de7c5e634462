"""The body styles every layer shares: the catalog assigns them and the renderer draws them.

A module without dependencies, so both libraries can import it cheaply.
"""

from __future__ import annotations

from typing import Final

BODY_STYLES: Final[tuple[str, ...]] = (
    "sedan",
    "hatchback",
    "wagon",
    "coupe",
    "convertible",
    "fastback",
    "suv",
    "crossover",
    "pickup",
    "van",
    "minivan",
    "kei",
    "bus",
    "truck",
    "motorcycle",
    "scooter",
    "auto-rickshaw",
    "other",
)
