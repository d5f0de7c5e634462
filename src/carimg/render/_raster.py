"""The z-buffer rasterizer (numba): a visibility buffer of triangle id and barycentrics per
sample."""

from __future__ import annotations

import numpy as np

from carimg.render._jit import njit
from carimg.render._mesh import F64, I32

F32 = np.float32


@njit(cache=True, nogil=True)
def _raster(
    sx: F64,
    sy: F64,
    sz: F64,
    tris: I32,
    depth: np.ndarray,
    tid: np.ndarray,
    bar0: np.ndarray,
    bar1: np.ndarray,
) -> None:
    h, w = depth.shape
    for t in range(tris.shape[0]):
        i0 = tris[t, 0]
        i1 = tris[t, 1]
        i2 = tris[t, 2]
        z0 = sz[i0]
        z1 = sz[i1]
        z2 = sz[i2]
        if z0 <= 1e-6 or z1 <= 1e-6 or z2 <= 1e-6:
            continue
        x0 = sx[i0]
        y0 = sy[i0]
        x1 = sx[i1]
        y1 = sy[i1]
        x2 = sx[i2]
        y2 = sy[i2]
        area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
        if abs(area) < 1e-12:
            continue
        inv = 1.0 / area
        xmin = max(int(np.floor(min(x0, min(x1, x2)) - 0.5)), 0)
        xmax = min(int(np.ceil(max(x0, max(x1, x2)) - 0.5)), w - 1)
        ymin = max(int(np.floor(min(y0, min(y1, y2)) - 0.5)), 0)
        ymax = min(int(np.ceil(max(y0, max(y1, y2)) - 0.5)), h - 1)
        if xmin > xmax or ymin > ymax:
            continue
        iz0 = 1.0 / z0
        iz1 = 1.0 / z1
        iz2 = 1.0 / z2
        # edge functions are linear in x along a row: w = a * x + c
        a0 = (y1 - y2) * inv
        a1 = (y2 - y0) * inv
        a2 = -(a0 + a1)
        for py in range(ymin, ymax + 1):
            yc = py + 0.5
            c0 = (x1 * (y2 - yc) - x2 * (y1 - yc)) * inv
            c1 = (x2 * (y0 - yc) - x0 * (y2 - yc)) * inv
            c2 = 1.0 - c0 - c1
            lo = xmin + 0.5
            hi = xmax + 0.5
            empty = False
            for k in range(3):
                if k == 0:
                    a, c = a0, c0
                elif k == 1:
                    a, c = a1, c1
                else:
                    a, c = a2, c2
                if a > 1e-15:
                    lo = max(lo, (-1e-9 - c) / a)
                elif a < -1e-15:
                    hi = min(hi, (-1e-9 - c) / a)
                elif c < -1e-9:
                    empty = True
            if empty or lo > hi:
                continue
            pxa = max(xmin, int(np.ceil(lo - 0.5)))
            pxb = min(xmax, int(np.floor(hi - 0.5)))
            for px in range(pxa, pxb + 1):
                xc = px + 0.5
                w0 = a0 * xc + c0
                w1 = a1 * xc + c1
                w2 = 1.0 - w0 - w1
                if w0 < -1e-7 or w1 < -1e-7 or w2 < -1e-7:
                    continue
                izz = w0 * iz0 + w1 * iz1 + w2 * iz2
                z = 1.0 / izz
                if z < depth[py, px]:
                    depth[py, px] = z
                    tid[py, px] = t
                    bar0[py, px] = w0 * iz0 * z
                    bar1[py, px] = w1 * iz1 * z


def rasterize(
    sx: F64, sy: F64, sz: F64, tris: I32, width: int, height: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rasterize screen-space triangles (pixel units, sz = view depth > 0).

    Returns depth (float32, inf where empty), triangle id (int32, -1 where empty) and the
    perspective-correct barycentrics of vertices 0 and 1.
    """
    depth = np.full((height, width), np.inf, dtype=F32)
    tid = np.full((height, width), -1, dtype=np.int32)
    b0 = np.empty((height, width), dtype=F32)  # read only where tid >= 0
    b1 = np.empty((height, width), dtype=F32)
    _raster(
        np.ascontiguousarray(sx, dtype=np.float64),
        np.ascontiguousarray(sy, dtype=np.float64),
        np.ascontiguousarray(sz, dtype=np.float64),
        np.ascontiguousarray(tris, dtype=np.int32),
        depth,
        tid,
        b0,
        b1,
    )
    return depth, tid, b0, b1
