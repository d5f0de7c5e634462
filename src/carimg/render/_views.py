"""The six camera views of the spec with their yaw angles in degrees."""

from __future__ import annotations

from typing import Final

# side faces left and side-right faces right; front-3-4, side and rear-3-4 show the same flank.
VIEW_YAWS: Final[dict[str, int]] = {
    "front": 0,
    "front-3-4": 35,
    "side": 90,
    "rear-3-4": 145,
    "rear": 180,
    "side-right": 270,
}
