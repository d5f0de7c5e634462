"""The optional floor reflection: under the vehicle only, faint, and only on a background."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from carimg.render import OutputSpec, OutputSpecError, derive

GREY = (200, 200, 200)


@pytest.fixture(scope="module")
def source() -> np.ndarray:
    """A red opaque block standing on its bottom edge (row 599), transparent around it."""
    rgba = np.zeros((1024, 1024, 4), dtype=np.uint8)
    rgba[300:600, 200:800] = (200, 20, 20, 255)
    return rgba


def _pixels(source: np.ndarray, reflection: bool) -> np.ndarray:
    spec = OutputSpec(background="#c8c8c8", format="png", reflection=reflection)
    return np.asarray(Image.open(io.BytesIO(derive(source, spec).data)).convert("RGB"))


def test_reflection_tints_the_floor_just_below_the_vehicle(source: np.ndarray) -> None:
    below = _pixels(source, True)[605, 500].astype(int)
    assert below[0] > below[1] + 5, "the red of the block shows in the floor under it"


def test_reflection_is_faint(source: np.ndarray) -> None:
    below = _pixels(source, True)[601, 500].astype(int)
    assert np.abs(below - np.array(GREY)).max() < 0.3 * 255


def test_reflection_leaves_the_vehicle_and_the_space_above_it_alone(source: np.ndarray) -> None:
    with_it, without = _pixels(source, True), _pixels(source, False)
    assert (with_it[:600] == without[:600]).all()


def test_no_reflection_unless_asked(source: np.ndarray) -> None:
    assert (_pixels(source, False)[605, 500] == GREY).all()


def test_reflection_needs_a_background() -> None:
    with pytest.raises(OutputSpecError, match="reflection"):
        OutputSpec(format="webp", reflection=True)
