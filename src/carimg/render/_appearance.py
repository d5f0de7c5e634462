"""What a render shows: the vehicle's appearance inputs and the body styles the renderer knows."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from carimg.bodystyles import BODY_STYLES


@dataclass(frozen=True, slots=True)
class Appearance:
    """The inputs that decide a vehicle's shape: catalog slugs, model year and body style.

    `variation` changes the seed (used when feedback flags a render); 0 is the default look.
    """

    make: str
    model: str
    year: int
    body_style: str
    variation: int = 0

    def __post_init__(self) -> None:
        if self.body_style not in BODY_STYLES:
            raise ValueError(
                f"unknown body style {self.body_style!r}; expected one of {BODY_STYLES}"
            )
        if not 1885 <= self.year <= 2100:
            raise ValueError(f"year {self.year} out of range")
        if self.variation < 0:
            raise ValueError("variation must be >= 0")


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from text parts, equal on every run and platform (unlike `hash()`)."""
    text = "\x1f".join(str(p).lower() for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
