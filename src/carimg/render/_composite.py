"""Final pass (numba): ground shadow through each pixel, alpha, un-premultiply, sRGB encode."""

from __future__ import annotations

import math

import numpy as np

from carimg.render._jit import njit

LUT_SIZE = 4096


def srgb_lut() -> np.ndarray:
    """uint8 sRGB codes for LUT_SIZE evenly spaced linear values in 0..1."""
    c = np.linspace(0.0, 1.0, LUT_SIZE)
    s = np.where(c <= 0.0031308, 12.92 * c, 1.055 * np.power(c, 1 / 2.4) - 0.055)
    return np.round(s * 255.0).astype(np.uint8)


@njit(cache=True, nogil=True)
def composite(
    rgb: np.ndarray,
    cov: np.ndarray,
    occ: np.ndarray,
    grid: np.ndarray,
    cam: np.ndarray,
    lut: np.ndarray,
    out: np.ndarray,
    box: np.ndarray,
) -> None:
    """rgb premultiplied (h, w, 3), cov (h, w); occ is the ground occlusion map (ny, nx).

    grid = (gx0, gy0, cell); cam = (pos 3, fwd 3, right 3, up 3, focal, cx, cy); box = (x0, y0,
    x1, y1), the pixels where the occlusion map's ground rectangle can appear (no shadow outside).
    """
    h, w = cov.shape
    ny, nx = occ.shape
    gx0 = grid[0]
    gy0 = grid[1]
    cell = grid[2]
    n = lut.shape[0] - 1
    for y in range(h):
        dv = -(y + 0.5 - cam[14]) / cam[12]
        for x in range(w):
            du = (x + 0.5 - cam[13]) / cam[12]
            dz = cam[5] + du * cam[8] + dv * cam[11]
            sh = 0.0
            inside = box[0] <= x <= box[2] and box[1] <= y <= box[3]
            if inside and dz < -1e-6:
                t = -cam[2] / dz
                gx = cam[0] + t * (cam[3] + du * cam[6] + dv * cam[9])
                gy = cam[1] + t * (cam[4] + du * cam[7] + dv * cam[10])
                fx = (gx - gx0) / cell - 0.5
                fy = (gy - gy0) / cell - 0.5
                ix = math.floor(fx)
                iy = math.floor(fy)
                if 0 <= ix < nx - 1 and 0 <= iy < ny - 1:
                    tx = fx - ix
                    ty = fy - iy
                    sh = (
                        occ[iy, ix] * (1 - tx) * (1 - ty)
                        + occ[iy, ix + 1] * tx * (1 - ty)
                        + occ[iy + 1, ix] * (1 - tx) * ty
                        + occ[iy + 1, ix + 1] * tx * ty
                    )
            c = cov[y, x]
            a = c + (1.0 - c) * sh
            if a <= 0.0:
                out[y, x, 0] = 0
                out[y, x, 1] = 0
                out[y, x, 2] = 0
                out[y, x, 3] = 0
                continue
            for k in range(3):
                v = rgb[y, x, k] / a
                if v > 1.0:
                    v = 1.0
                elif v < 0.0:
                    v = 0.0
                out[y, x, k] = lut[int(v * n + 0.5)]
            av = a * 255.0 + 0.5
            out[y, x, 3] = 255 if av >= 255.0 else int(av)
