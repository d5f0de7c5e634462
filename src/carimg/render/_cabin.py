"""What a ray through a window sees (numba): the cabin, and the studio through the far glass.

The cabin is a handful of analytic shapes placed from the body's hard points: a dashboard under
the windscreen, a steering wheel on the left, front seats with headrests, rear rows where the
roof is long enough, a headliner, door cards and the far side's glass. A ray that leaves through
glass on the other side sees the studio again, dimmed by a second pane; that is what makes a
window read as glass rather than as grey paint.
"""

from __future__ import annotations

import math

import numpy as np

from carimg.render import _materials as m
from carimg.render._jit import njit
from carimg.render._shapes import prof, smooth
from carimg.render._studio import env

_FAR = 1e9
GLASS_T = 0.38  # light a pane lets through (a tinted pane)
_ALBEDO = 0.035  # charcoal upholstery and plastics


@njit(cache=True, nogil=True)
def _box(
    ox: float,
    oy: float,
    oz: float,
    dx: float,
    dy: float,
    dz: float,
    x0: float,
    x1: float,
    y0: float,
    y1: float,
    z0: float,
    z1: float,
) -> tuple[float, int]:
    """Entry distance of a ray into an axis-aligned box, and the axis of the face it enters by."""
    tmin = -_FAR
    tmax = _FAR
    axis = -1
    for k in range(3):
        if k == 0:
            o, d, lo, hi = ox, dx, x0, x1
        elif k == 1:
            o, d, lo, hi = oy, dy, y0, y1
        else:
            o, d, lo, hi = oz, dz, z0, z1
        if abs(d) < 1e-12:
            if o < lo or o > hi:
                return _FAR, -1
            continue
        ta = (lo - o) / d
        tb = (hi - o) / d
        if ta > tb:
            ta, tb = tb, ta
        if ta > tmin:
            tmin = ta
            axis = k
        tmax = min(tmax, tb)
    if tmax < max(tmin, 0.0) or tmin < 0.0:
        return _FAR, -1
    return tmin, axis


@njit(cache=True, nogil=True)
def _ellipsoid(
    ox: float,
    oy: float,
    oz: float,
    dx: float,
    dy: float,
    dz: float,
    cx: float,
    cy: float,
    cz: float,
    ax: float,
    ay: float,
    az: float,
) -> tuple[float, float]:
    """Entry distance of a ray into an axis-aligned ellipsoid, and the z of its normal there."""
    qx = (ox - cx) / ax
    qy = (oy - cy) / ay
    qz = (oz - cz) / az
    ex = dx / ax
    ey = dy / ay
    ez = dz / az
    a = ex * ex + ey * ey + ez * ez
    b = qx * ex + qy * ey + qz * ez
    c = qx * qx + qy * qy + qz * qz - 1.0
    disc = b * b - a * c
    if disc < 0.0 or a < 1e-12:
        return _FAR, 0.0
    t = (-b - math.sqrt(disc)) / a
    if t < 1e-3:
        return _FAR, 0.0
    nx = (qx + t * ex) / ax
    ny = (qy + t * ey) / ay
    nz = (qz + t * ez) / az
    return t, nz / math.sqrt(nx * nx + ny * ny + nz * nz)


@njit(cache=True, nogil=True)
def _plane(
    ox: float, oz: float, dx: float, dz: float, ax: float, az: float, bx: float, bz: float
) -> float:
    """Distance along the ray (x, z only) to the line through (ax, az) and (bx, bz)."""
    nx = bz - az
    nz = -(bx - ax)
    den = nx * dx + nz * dz
    if abs(den) < 1e-9:
        return _FAR
    t = (nx * (ax - ox) + nz * (az - oz)) / den
    return t if t > 1e-4 else _FAR


@njit(cache=True, nogil=True)
def _lit(axis: int, sign: float, dz: float, albedo: float) -> float:
    """Radiance of a cabin surface: light from the windows above, the face's tilt to the ray."""
    up = 1.0 if axis == 2 and sign > 0.0 else 0.0
    facing = 0.55 if axis != 2 else 0.3
    return albedo * (0.35 + 0.9 * up + facing) * (1.0 + 0.3 * dz)


@njit(cache=True, nogil=True)
def cabin(
    ox: float,
    oy: float,
    oz: float,
    dx: float,
    dy: float,
    dz: float,
    decal: np.ndarray,
    profile: np.ndarray,
    smap: np.ndarray,
    cfx: float,
    cfy: float,
) -> float:
    """Radiance seen from a point on a window along d (pointing into the vehicle)."""
    belt = prof(profile, decal, ox, 1)
    roof = decal[m.ROOF_Z] - 0.05
    g = max(roof - belt, 0.2)
    half = prof(profile, decal, ox, 2) * 0.9
    x_a = decal[m.X_A]
    x_fs = max(decal[m.X_RF] - 0.55, decal[m.X_GH_END] + 0.35)
    ys = max(0.26, min(0.42, half * 0.45))
    best = _FAR
    lum = 0.0
    # the far side's door card and glass, the windscreen and the rear glass
    if abs(dy) > 1e-6:
        t = ((-half if dy < 0.0 else half) - oy) / dy
        if 1e-3 < t < best:
            best = t
            hx = ox + t * dx
            hz = oz + t * dz
            b = prof(profile, decal, hx, 1)
            top = prof(profile, decal, hx, 0) - decal[m.WIN_TOP_INSET]
            window = b + decal[m.WIN_BOTTOM] < hz < top
            window = window and decal[m.WIN_REAR] < hx < decal[m.WIN_FRONT]
            for k in range(int(decal[m.N_PILLARS])):
                if abs(hx - decal[m.PILLAR0 + k]) < decal[m.PILLAR_W0 + k] * 0.5:
                    window = False
            if window:
                lum = GLASS_T * env(smap, dx, dy, dz, cfx, cfy, 0.02)
            else:
                lum = _lit(1, 1.0, dz, _ALBEDO) * (0.6 + 0.4 * smooth(b - 0.5, b, hz))
    t = _plane(ox, oz, dx, dz, x_a, belt + 0.01, decal[m.X_RF], roof)
    if dx > 0.0 and t < best:
        best = t
        lum = GLASS_T * env(smap, dx, dy, dz, cfx, cfy, 0.02)
    t = _plane(ox, oz, dx, dz, decal[m.X_RR], roof, decal[m.X_GH_END], belt + 0.04)
    if dx < 0.0 and t < best:
        best = t
        lum = GLASS_T * env(smap, dx, dy, dz, cfx, cfy, 0.02)
    if dz > 0.0:
        t = (roof - oz) / dz
        if 1e-3 < t < best:
            best = t
            lum = 0.09  # a light headliner, lit through the glass
    if dz < 0.0:
        t = (belt - 0.45 - oz) / dz
        if 1e-3 < t < best:
            best = t
            lum = 0.2 * _ALBEDO
    # the dashboard and the steering wheel
    t, ax = _box(
        ox, oy, oz, dx, dy, dz, x_a - 0.55, x_a + 0.3, -half, half, belt - 0.5, belt + 0.03
    )  # fmt: skip
    if t < best:
        best = t
        lum = _lit(ax, 1.0 if ax != 0 else -1.0, dz, _ALBEDO * 0.8)
    wx = x_a - 0.62
    wz = belt - 0.02
    # the wheel's plane leans back 25° from upright; its normal faces the driver
    nx, nz = -0.906, 0.423
    den = dx * nx + dz * nz
    if abs(den) > 1e-6:
        t = ((wx - ox) * nx + (wz - oz) * nz) / den
        if 1e-3 < t < best:
            px = ox + t * dx - wx
            py = oy + t * dy - ys
            pz = oz + t * dz - wz
            r = math.sqrt(px * px + py * py + pz * pz)
            spoke = abs(py) < 0.02 or (pz < 0.0 and abs(px * nz - pz * nx) < 0.02)
            if 0.145 < r < 0.185 or r < 0.055 or (r < 0.15 and spoke):
                best = t
                lum = 0.6 * _ALBEDO
    # seats: rows of a backrest and two headrests, from the front row back while the roof lasts
    x_row = x_fs
    for row in range(4):
        if x_row < decal[m.X_GH_END] + 0.25 or x_row < decal[m.X_RR] - 0.35:
            break
        back_top = belt + (0.16 if row == 0 else 0.1) * g
        for side in (-1.0, 1.0):
            yc = side * ys
            # a backrest with a rounded top and a headrest: ellipsoids, so no box edges show
            zb = belt - 0.5
            t, nz_hit = _ellipsoid(
                ox, oy, oz, dx, dy, dz, x_row, yc, zb, 0.1, 0.25, back_top - zb
            )  # fmt: skip
            if t < best:
                best = t
                lum = _ALBEDO * (0.45 + 0.8 * max(nz_hit, 0.0))
            hz = back_top + 0.22 * g
            t, nz_hit = _ellipsoid(
                ox, oy, oz, dx, dy, dz, x_row - 0.054, yc, hz, 0.06, 0.13, 0.16 * g
            )  # fmt: skip
            if t < best:
                best = t
                lum = _ALBEDO * 1.15 * (0.45 + 0.8 * max(nz_hit, 0.0))
        x_row -= 0.88
    return lum
