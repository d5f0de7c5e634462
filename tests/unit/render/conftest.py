"""Shared helpers for the renderer tests: colour science and small cached renders."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import NDArray

from carimg.render import Appearance, SourceRender, render_source_layers

# The documented paint rule (docs/RENDERER.md): the mean CIELAB colour of fully covered, opaque
# paint
# pixels of a side view lies within this CIEDE2000 distance of the preset's hex.
PAINT_DELTA_E_MAX = 10.0


def srgb_to_lab(rgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """sRGB in 0..1, shape (..., 3) → CIELAB (D65)."""
    c = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    m = np.array(
        [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
         [0.0193339, 0.1191920, 0.9503041]]
    )  # fmt: skip
    xyz = c @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1
    )


def delta_e_2000(lab1: NDArray[np.float64], lab2: NDArray[np.float64]) -> float:
    """CIEDE2000 colour difference of two Lab colours."""
    L1, a1, b1 = (float(v) for v in lab1)
    L2, a2, b2 = (float(v) for v in lab2)
    c1, c2 = np.hypot(a1, b1), np.hypot(a2, b2)
    cm = (c1 + c2) / 2
    g = 0.5 * (1 - np.sqrt(cm**7 / (cm**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dlp, dcp = L2 - L1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dhp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    lpm, cpm = (L1 + L2) / 2, (c1p + c2p) / 2
    hsum = h1p + h2p
    if c1p * c2p == 0:
        hpm = hsum
    elif abs(h1p - h2p) <= 180:
        hpm = hsum / 2
    else:
        hpm = (hsum + 360) / 2 if hsum < 360 else (hsum - 360) / 2
    t = (
        1 - 0.17 * np.cos(np.radians(hpm - 30)) + 0.24 * np.cos(np.radians(2 * hpm))
        + 0.32 * np.cos(np.radians(3 * hpm + 6)) - 0.20 * np.cos(np.radians(4 * hpm - 63))
    )  # fmt: skip
    dtheta = 30 * np.exp(-(((hpm - 275) / 25) ** 2))
    rc = 2 * np.sqrt(cpm**7 / (cpm**7 + 25.0**7))
    sl = 1 + 0.015 * (lpm - 50) ** 2 / np.sqrt(20 + (lpm - 50) ** 2)
    sc = 1 + 0.045 * cpm
    sh = 1 + 0.015 * cpm * t
    rt = -np.sin(np.radians(2 * dtheta)) * rc
    return float(
        np.sqrt((dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh))
    )


def mean_paint_lab(render: SourceRender) -> NDArray[np.float64]:
    """Mean Lab of pixels fully covered by paint (mask 1, alpha 255)."""
    sel = (render.paint_mask >= 0.999) & (render.rgba[..., 3] == 255)
    rgb = render.rgba[..., :3][sel].astype(np.float64) / 255.0
    return np.asarray(srgb_to_lab(rgb).mean(axis=0))


def hex_lab(hex_value: str) -> NDArray[np.float64]:
    rgb = np.array([int(hex_value[i : i + 2], 16) / 255.0 for i in (1, 3, 5)])
    return np.asarray(srgb_to_lab(rgb))


SmallRender = Callable[..., SourceRender]


@pytest.fixture(scope="session")
def small_render() -> SmallRender:
    """Render at 256 px (fast) with a per-session cache."""
    cache: dict[tuple[object, ...], SourceRender] = {}

    def render(style: str, view: str, paint: str = "red", size: int = 256) -> SourceRender:
        key = (style, view, paint, size)
        if key not in cache:
            app = Appearance("testmake", f"test-{style}", 2020, style)
            cache[key] = render_source_layers(app, view, paint, size=size)
        return cache[key]

    return render


PaintDistance = Callable[[SourceRender, str], float]


@pytest.fixture(scope="session")
def paint_distance() -> PaintDistance:
    """CIEDE2000 between a render's mean paint Lab and a hex colour."""

    def distance(render: SourceRender, hex_value: str) -> float:
        return delta_e_2000(mean_paint_lab(render), hex_lab(hex_value))

    return distance


@pytest.fixture(scope="session")
def paint_delta_e_max() -> float:
    return PAINT_DELTA_E_MAX
