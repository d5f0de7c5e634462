"""Paint colour: the mean Lab of visible paint pixels is within PAINT_DELTA_E_MAX of the preset."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from carimg.render import PRESET_COLORS, SourceRender


@pytest.mark.parametrize("name", sorted(PRESET_COLORS))
def test_preset_reads_as_its_hex(
    small_render: Callable[..., SourceRender],
    paint_distance: Callable[[SourceRender, str], float],
    paint_delta_e_max: float,
    name: str,
) -> None:
    render = small_render("sedan", "side", name)
    assert (render.paint_mask >= 0.999).sum() > 2000
    distance = paint_distance(render, PRESET_COLORS[name])
    assert distance <= paint_delta_e_max, f"{name}: ΔE2000 {distance:.1f}"


def test_custom_hex_paint_reads_as_its_hex(
    small_render: Callable[..., SourceRender],
    paint_distance: Callable[[SourceRender, str], float],
    paint_delta_e_max: float,
) -> None:
    render = small_render("sedan", "side", "#3A7D44")
    assert paint_distance(render, "#3A7D44") <= paint_delta_e_max
