"""Small shape and noise helpers shared by the shaders (numba): smoothstep, bands, signed
distances, pixel coverage, hashing and the body's side profile."""

from __future__ import annotations

import math

import numpy as np

from carimg.render import _materials as m
from carimg.render._jit import njit


@njit(cache=True, nogil=True)
def smooth(e0: float, e1: float, x: float) -> float:
    t = (x - e0) / (e1 - e0)
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return t * t * (3.0 - 2.0 * t)


@njit(cache=True, nogil=True)
def band(x: float, lo: float, hi: float, soft: float) -> float:
    return smooth(lo - soft, lo + soft, x) * (1.0 - smooth(hi - soft, hi + soft, x))


@njit(cache=True, nogil=True)
def hash3(x: float, y: float, z: float) -> float:
    ix = math.floor(x) & 0xFFFFF
    iy = math.floor(y) & 0xFFFFF
    iz = math.floor(z) & 0xFFFFF
    h = (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791)
    h = (h ^ (h >> 13)) * 1274126177
    h = h ^ (h >> 16)
    return (h & 0xFFFF) / 65535.0


@njit(cache=True, nogil=True)
def rrect(px: float, py: float, cx: float, cy: float, hw: float, hh: float, r: float) -> float:
    """Signed distance to a rounded rectangle (negative inside)."""
    rr = min(r, min(hw, hh))
    qx = abs(px - cx) - hw + rr
    qy = abs(py - cy) - hh + rr
    ox = max(qx, 0.0)
    oy = max(qy, 0.0)
    return math.sqrt(ox * ox + oy * oy) + min(max(qx, qy), 0.0) - rr


@njit(cache=True, nogil=True)
def coverage(sdf: float, aa: float) -> float:
    """Coverage of a shape with signed distance sdf over a pixel of width aa."""
    t = 0.5 - sdf / aa
    if t < 0.0:
        return 0.0
    if t > 1.0:
        return 1.0
    return t


@njit(cache=True, nogil=True)
def prof(profile: np.ndarray, decal: np.ndarray, x: float, row: int) -> float:
    x0 = decal[m.X_REAR]
    x1 = decal[m.X_FRONT]
    n = profile.shape[1]
    f = (x - x0) / (x1 - x0) * (n - 1)
    if f <= 0.0:
        return float(profile[row, 0])
    if f >= n - 1:
        return float(profile[row, n - 1])
    i = int(f)
    t = f - i
    return float(profile[row, i] * (1.0 - t) + profile[row, i + 1] * t)
