"""A faint floor reflection under a render, for outputs flattened onto a background.

A source render is transparent around the vehicle, so a reflection cannot live in it; it is made
from the render itself at output time. The floor line runs through the lowest points of the
vehicle's silhouette (the tyres' contact patches: the lower hull of its opaque pixels), and each
column is mirrored about it, fading with the distance below the line as a polished studio floor
does.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from PIL import Image

OPACITY = 0.22  # the reflection's strength at the floor line
FADE = 0.4  # its length, as a fraction of the vehicle's height
_OPAQUE = 250  # alpha of vehicle pixels (the ground shadow stays below this)


def _floor_line(bottom: NDArray[np.int64], cols: NDArray[np.int64]) -> NDArray[np.float64]:
    """The lower hull (in image rows, down is larger) through each column's lowest pixel."""
    hull: list[int] = []
    for i in range(len(cols)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            cross = (cols[b] - cols[a]) * (bottom[i] - bottom[a]) - (bottom[b] - bottom[a]) * (
                cols[i] - cols[a]
            )
            if cross > 0:  # b lies above the chord a→i: not on the lower hull
                hull.pop()
            else:
                break
        hull.append(i)
    return np.interp(cols, cols[hull], bottom[hull].astype(np.float64))


def floor_reflection(img: Image.Image) -> Image.Image:
    """An RGBA layer, the size of `img`, holding the reflection to lay under it."""
    rgba = np.asarray(img.convert("RGBA"))
    opaque = rgba[..., 3] >= _OPAQUE
    layer = np.zeros_like(rgba)
    cols = np.flatnonzero(opaque.any(axis=0))
    if cols.size < 2:
        return Image.fromarray(layer, "RGBA")
    h = rgba.shape[0]
    rows_any = np.flatnonzero(opaque.any(axis=1))
    height = int(rows_any[-1] - rows_any[0] + 1)
    bottom = h - 1 - np.argmax(opaque[::-1, cols], axis=0)
    line = np.rint(_floor_line(bottom.astype(np.int64), cols)).astype(np.int64)
    depth = max(1, round(FADE * height))
    k = np.arange(1, depth + 1)
    dst = line[None, :] + k[:, None]
    src = line[None, :] - k[:, None] + 1
    ok = (dst < h) & (src >= 0)
    fade = OPACITY * (1.0 - k / (depth + 1.0)) ** 1.5
    di, dj = np.nonzero(ok)
    px = rgba[src[di, dj], cols[dj]].astype(np.float64)
    px[:, 3] *= fade[di] * (px[:, 3] >= _OPAQUE)
    layer[dst[di, dj], cols[dj]] = px.astype(np.uint8)
    return Image.fromarray(layer, "RGBA")
