"""How each material answers the studio's light (numba).

Every material is lit by the same prefiltered studio (`_studio`): a diffuse term from its
irradiance level and a reflection looked up at the material's roughness, weighted by Fresnel.
Paint is a base coat under a clear coat: gloss (a mirror-sharp coat), metallic (flake and a tinted
glossy lobe under the coat), satin (a dulled coat) and matte (no coat, a broad sheen). Values are
linear radiance; `_shade` tone-maps them.
"""

from __future__ import annotations

import math

import numpy as np

from carimg.render import _materials as m
from carimg.render._cabin import GLASS_T, cabin
from carimg.render._jit import njit
from carimg.render._shapes import band, hash3, prof, smooth
from carimg.render._studio import env, irradiance

GLOSS, METALLIC, SATIN, MATTE = 0, 1, 2, 3  # FINISHES' order
EXPOSURE = 1.15  # irradiance → diffuse radiance of a white surface


@njit(cache=True, nogil=True)
def _schlick(f0: float, ndv: float) -> float:
    return f0 + (1.0 - f0) * (1.0 - ndv) ** 5


@njit(cache=True, nogil=True)
def _diffuse(smap: np.ndarray, nx: float, ny: float, nz: float, cfx: float, cfy: float) -> float:
    """Diffuse light on a surface; the overhead softbox is tamed so tops do not burn out."""
    return float(EXPOSURE * irradiance(smap, nx, ny, nz, cfx, cfy) ** 0.45)


@njit(cache=True, nogil=True)
def _occlusion(pz: float) -> float:
    """Less light low down, where the body faces the floor and the wheels' shadow."""
    return 0.45 + 0.55 * smooth(0.05, 0.85, pz)


@njit(cache=True, nogil=True)
def _paint(
    finish: int,
    px: float,
    py: float,
    pz: float,
    ndv: float,
    rx: float,
    ry: float,
    rz: float,
    diff: float,
    paint: np.ndarray,
    smap: np.ndarray,
    cfx: float,
    cfy: float,
) -> tuple[float, float, float]:
    if finish == MATTE:
        sheen = 0.5 * _schlick(0.04, ndv) * env(smap, rx, ry, rz, cfx, cfy, 0.6)
        k = diff * 1.05
        return paint[0] * k + sheen, paint[1] * k + sheen, paint[2] * k + sheen
    coat_rough = 0.22 if finish == SATIN else 0.0
    f = _schlick(0.04, ndv) * (0.75 if finish == SATIN else 1.0)
    coat = f * env(smap, rx, ry, rz, cfx, cfy, coat_rough)
    if finish == METALLIC:
        lobe = env(smap, rx, ry, rz, cfx, cfy, 0.3)
        # flakes lie far below a pixel: only their average shows, as a faint shimmer
        flake = hash3(px * 2600.0, py * 2600.0, pz * 2600.0)
        flop = 0.35 + 0.75 * ndv  # metallic paint darkens towards grazing angles
        k = (diff * 0.8 * flop + 0.45 * lobe * (0.4 + 0.6 * ndv)) * (0.97 + 0.06 * flake)
        return (
            paint[0] * k * (1 - f) + coat,
            paint[1] * k * (1 - f) + coat,
            paint[2] * k * (1 - f) + coat,
        )
    return (
        paint[0] * diff * (1 - f) + coat,
        paint[1] * diff * (1 - f) + coat,
        paint[2] * diff * (1 - f) + coat,
    )


@njit(cache=True, nogil=True)
def _rim(
    a0: float,
    a1: float,
    ndv: float,
    rx: float,
    ry: float,
    rz: float,
    diff: float,
    decal: np.ndarray,
    smap: np.ndarray,
    cfx: float,
    cfy: float,
) -> float:
    """Brushed alloy spokes over a brake disc and caliper, from the in-plane attributes."""
    r = math.sqrt(a0 * a0 + a1 * a1)
    ang = math.atan2(a1, a0)
    n_sp = decal[m.RIM_N]
    style = int(decal[m.RIM_STYLE])
    solid = 1.0
    if 0.22 < r < 0.86:
        ph = ang / (2.0 * math.pi) * n_sp
        fr = ph - math.floor(ph)
        d = abs(fr - 0.5)  # 0.5 at the spoke centre
        wdt = decal[m.RIM_W] * (1.2 - 0.5 * r)
        if style == 1:
            d = abs(abs(fr - 0.5) - 0.12)
            solid = 1.0 - smooth(wdt * 0.55, wdt * 0.55 + 0.03, d)
        elif style == 2:
            ph2 = ang / (2.0 * math.pi) * n_sp * 2.0 + r * 3.0
            ph3 = ang / (2.0 * math.pi) * n_sp * 2.0 - r * 3.0
            d2 = abs(ph2 - math.floor(ph2) - 0.5)
            d3 = abs(ph3 - math.floor(ph3) - 0.5)
            solid = max(smooth(0.32, 0.26, d2), smooth(0.32, 0.26, d3))
        elif style == 3:
            rr = (r - 0.55) * n_sp * 0.9
            dd = math.sqrt((fr - 0.5) ** 2 * (r * 4.0) ** 2 + rr * rr * 0.08)
            solid = smooth(0.12, 0.16, dd)
        elif style == 4:
            # a closed aero cover: flat segments parted by narrow slots, open only at the rim
            slot = 1.0 - smooth(0.015, 0.03, 0.5 - d)
            solid = 1.0 - slot * (0.55 + 0.45 * smooth(0.7, 0.8, r))
        elif style == 5:
            # round holes in a disc, one between each pair of spoke positions (Avus)
            da = (fr - 0.5) * 2.0 * math.pi * r / n_sp
            dd = math.sqrt(da * da + (r - 0.56) ** 2)
            hole = 0.4 * decal[m.RIM_W]
            solid = smooth(hole, hole + 0.03, dd)
        else:
            solid = 1.0 - smooth(wdt, wdt + 0.03, 0.5 - d)
    dark = decal[m.RIM_DARK]
    refl = env(smap, rx, ry, rz, cfx, cfy, 0.14)
    base = 0.8 - 0.6 * dark
    c_metal = base * (0.4 * diff + 0.75 * refl) + 0.04 * _schlick(0.04, ndv) * refl
    # a polished lip, a dark groove inside it, a centre cap with a dark ring
    lip = band(r, 0.9, 1.1, 0.012)
    groove = band(r, 0.855, 0.885, 0.006)
    sharp = env(smap, rx, ry, rz, cfx, cfy, 0.03)
    c_metal = c_metal * (1.0 - 0.75 * groove) * (1.0 - 0.6 * band(r, 0.14, 0.17, 0.006))
    c_metal += 0.25 * lip * (1.0 - dark) * sharp
    # spoke edges fall away into the wheel: darker where a spoke meets its gap
    c_metal = c_metal * (0.5 + 0.5 * smooth(0.0, 0.6, solid))
    # behind the spokes: a brake disc with a dark hat, a caliper at the top rear
    disc_band = smooth(0.36, 0.42, r) * (1.0 - smooth(0.71, 0.74, r))
    disc = (0.1 + 0.15 * refl) * disc_band + 0.008
    cal = band(ang, 0.35, 1.05, 0.03) * band(r, 0.48, 0.8, 0.02)
    hole = disc * (1.0 - cal) + (0.05 + 0.08 * refl) * cal
    return float(c_metal * solid + hole * (1.0 - solid))


@njit(cache=True, nogil=True)
def _tyre(
    py: float,
    a0: float,
    a1: float,
    ny: float,
    ndv: float,
    rx: float,
    ry: float,
    rz: float,
    diff: float,
    smap: np.ndarray,
    cfx: float,
    cfy: float,
) -> float:
    """Rubber: a satin sidewall with a bead ring and lettering band, tread blocks on the face."""
    refl = env(smap, rx, ry, rz, cfx, cfy, 0.45)
    r = math.sqrt(a0 * a0 + a1 * a1)
    side = abs(ny)
    f = _schlick(0.04, ndv)
    c = (0.022 + 0.01 * side) * diff + (0.25 + 0.35 * side) * f * refl
    if r > 0.0:
        bead = band(r, 1.015, 1.06, 0.01) * side  # attrs: radius over rim radius
        c += 0.018 * bead * diff
        c += 0.006 * band(r, 1.2, 1.3, 0.01) * side * diff  # the moulded lettering band
        if side < 0.6:
            # the tread face: circumferential grooves and lateral sipes between blocks
            ang = math.atan2(a1, a0)
            sipe = abs((ang * 30.0 / math.pi) % 1.0 - 0.5)
            groove = abs((abs(py) * 14.0) % 1.0 - 0.5)
            block = smooth(0.36, 0.42, groove) + smooth(0.38, 0.46, sipe)
            c *= 1.0 - 0.55 * min(block, 1.0) * (1.0 - side)
    return c


@njit(cache=True, nogil=True)
def _lamp(
    mat: int,
    px: float,
    py: float,
    pz: float,
    ndv: float,
    rx: float,
    ry: float,
    rz: float,
    pattern: float,
    decal: np.ndarray,
    smap: np.ndarray,
    cfx: float,
    cfy: float,
) -> tuple[float, float, float]:
    """A clear lens over the lamp's insides: a chrome reflector, projector lenses, LED lines."""
    f = _schlick(0.04, ndv)
    lens_refl = f * env(smap, rx, ry, rz, cfx, cfy, 0.0)
    if mat == m.TAILLIGHT:
        glow = 0.07 + 1.5 * pattern
        inner = 0.25 * env(smap, rx, ry, rz, cfx, cfy, 0.2)
        return (
            (glow + 0.12 * inner) * (1 - f) + lens_refl,
            (0.004 + 0.07 * pattern + 0.01 * inner) * (1 - f) + lens_refl,
            (0.005 + 0.05 * pattern + 0.012 * inner) * (1 - f) + lens_refl,
        )
    reflector = 0.5 * env(smap, rx, ry, rz, cfx, cfy, 0.12)
    lens = 0.0
    if decal[m.IS_CAR] > 0.5:
        ay = abs(py)
        zs = pz - decal[m.HL_Z] - decal[m.HL_SLANT] * (ay - decal[m.HL_Y])
        lr = min(decal[m.HL_H] * 0.5, decal[m.HL_W] * 0.25)
        for k in range(2):
            cy = decal[m.HL_Y] + decal[m.HL_W] * (0.45 - 0.65 * k)
            dd = math.sqrt((ay - cy) ** 2 + zs * zs)
            lens = max(lens, band(dd, lr * 0.55, lr, 0.004))
            lens = max(lens, 0.6 * (1.0 - smooth(0.0, lr * 0.45, dd)))
    # projector lenses: dark glass balls with a bright rim; the rest is the chrome reflector
    inside = reflector * (1.0 - 0.8 * lens) + 0.4 * lens * env(smap, rx, ry, rz, cfx, cfy, 0.0)
    c = (0.03 + inside + 1.2 * pattern) * (1 - f) + lens_refl
    return c, c, c * 1.04


@njit(cache=True, nogil=True)
def _pane_normal(
    px: float, nx: float, ny: float, nz: float, decal: np.ndarray, profile: np.ndarray
) -> tuple[float, float, float]:
    """The windscreen's or rear glass's normal from its flat plane through the hard points.

    The shell's interpolated normals wander over the coarse loft where the screen meets the roof;
    a pane is nearly flat, so its reflection follows the plane (the shell keeps the side wrap).
    """
    belt = prof(profile, decal, px, 1)
    rise = decal[m.ROOF_Z] - belt
    if decal[m.X_RF] - 0.03 < px < decal[m.X_A] + 0.05:
        ax, az = rise, decal[m.X_A] - decal[m.X_RF]
    elif decal[m.X_GH_END] - 0.03 < px < decal[m.X_RR] + 0.03:
        ax, az = -rise, decal[m.X_RR] - decal[m.X_GH_END]
    else:
        return nx, ny, nz
    la = math.sqrt(ax * ax + az * az)
    if la < 1e-6:
        return nx, ny, nz
    side = math.sqrt(max(1.0 - ny * ny, 0.0))
    return ax / la * side, ny, az / la * side


@njit(cache=True, nogil=True)
def luminance(paint: np.ndarray) -> float:
    """Relative luminance of a linear RGB paint (Rec. 709 weights)."""
    return float(0.2126 * paint[0] + 0.7152 * paint[1] + 0.0722 * paint[2])


@njit(cache=True, nogil=True)
def stripe_material(paint: np.ndarray) -> int:
    """What racing stripes are drawn in over a paint (linear RGB): white on a dark paint,
    near-black on a light one."""
    return m.BLACKGLOSS if luminance(paint) > 0.3 else m.WHITEGLOSS


@njit(cache=True, nogil=True)
def contrast_roof_material(paint: np.ndarray) -> int:
    """What a contrasting roof is drawn in over a paint (linear RGB): black over a white paint,
    where a white roof would not show (a MINI's), white over any other."""
    return m.BLACKGLOSS if luminance(paint) > 0.6 else m.WHITEGLOSS


@njit(cache=True, nogil=True)
def shade_material(
    mat: int,
    px: float,
    py: float,
    pz: float,
    nx: float,
    ny: float,
    nz: float,
    vx: float,
    vy: float,
    vz: float,
    a0: float,
    a1: float,
    pattern: float,
    cfx: float,
    cfy: float,
    paint: np.ndarray,
    finish: int,
    decal: np.ndarray,
    profile: np.ndarray,
    smap: np.ndarray,
) -> tuple[float, float, float]:
    """Linear radiance of one material at one point (n the normal, v towards the camera)."""
    if mat == m.STRIPE:
        mat = stripe_material(paint)
    elif mat == m.CONTRAST_ROOF:
        mat = contrast_roof_material(paint)
    ndv = nx * vx + ny * vy + nz * vz
    if ndv < 0.0:
        ndv = 0.0
    rx = 2.0 * ndv * nx - vx
    ry = 2.0 * ndv * ny - vy
    rz = 2.0 * ndv * nz - vz
    diff = _diffuse(smap, nx, ny, nz, cfx, cfy) * _occlusion(pz)
    if mat == m.PAINT:
        return _paint(finish, px, py, pz, ndv, rx, ry, rz, diff, paint, smap, cfx, cfy)
    if mat == m.GLASS:
        if decal[m.IS_CAR] > 0.5 and abs(ny) < 0.6:
            nx, ny, nz = _pane_normal(px, nx, ny, nz, decal, profile)
            ndv = max(nx * vx + ny * vy + nz * vz, 0.0)
            rx = 2.0 * ndv * nx - vx
            ry = 2.0 * ndv * ny - vy
            rz = 2.0 * ndv * nz - vz
        f = _schlick(0.04, ndv)
        # a touch of roughness: the panes' curvature comes from facets, and a mirror-sharp
        # reflection would band along them like blinds
        refl = f * env(smap, rx, ry, rz, cfx, cfy, 0.07)
        if decal[m.IS_CAR] > 0.5:
            inside = GLASS_T * cabin(px, py, pz, -vx, -vy, -vz, decal, profile, smap, cfx, cfy)
        else:
            inside = GLASS_T * env(smap, -vx, -vy, -vz, cfx, cfy, 0.05)
        k = (1.0 - f) * inside
        # a faint green-grey tint
        return k * 0.9 + refl, k * 0.97 + refl, k * 0.96 + refl * 1.02
    if mat == m.BLACKGLOSS:
        c = 0.01 * diff + _schlick(0.045, ndv) * env(smap, rx, ry, rz, cfx, cfy, 0.0)
        return c, c, c * 1.04
    if mat == m.SIGN:
        # a lit amber lens: its glow plus a little of the studio in its gloss
        f = _schlick(0.04, ndv)
        refl = f * env(smap, rx, ry, rz, cfx, cfy, 0.05)
        return 0.9 * (1 - f) + refl, 0.42 * (1 - f) + refl, 0.04 * (1 - f) + refl
    if mat == m.WHITEGLOSS:
        c = 0.8 * diff + _schlick(0.045, ndv) * env(smap, rx, ry, rz, cfx, cfy, 0.02)
        return c, c, c * 0.98
    if mat == m.TRIM:
        # textured black plastic: a grain that breaks up its broad, weak sheen
        grain = hash3(px * 700.0, py * 700.0, pz * 700.0)
        refl = env(smap, rx, ry, rz, cfx, cfy, 0.5)
        base = 0.028 * (1.0 - 0.7 * pattern) * (0.9 + 0.2 * grain)
        c = base * diff + (0.12 + 0.5 * _schlick(0.04, ndv)) * 0.25 * refl * (1 - 0.8 * pattern)
        return c, c, c
    if mat == m.CHROME:
        c = 0.85 * env(smap, rx, ry, rz, cfx, cfy, 0.02) + 0.02 * diff
        return c, c, c * 1.02
    if mat == m.TIRE:
        c = _tyre(py, a0, a1, ny, ndv, rx, ry, rz, diff, smap, cfx, cfy)
        return c, c, c
    if mat == m.RIM:
        c = _rim(a0, a1, ndv, rx, ry, rz, diff, decal, smap, cfx, cfy)
        return c, c, c * 1.02
    if mat == m.HEADLIGHT or mat == m.TAILLIGHT:
        return _lamp(mat, px, py, pz, ndv, rx, ry, rz, pattern, decal, smap, cfx, cfy)
    if mat == m.UNDER:
        c = 0.01 * diff
        return c, c, c
    if mat == m.INTERIOR or mat == m.SEAT:
        c = 0.035 * diff + 0.04 * _schlick(0.04, ndv) * env(smap, rx, ry, rz, cfx, cfy, 0.45)
        return c * 1.1, c, c * 0.95
    if mat == m.METAL:
        c = 0.1 * diff + 0.35 * env(smap, rx, ry, rz, cfx, cfy, 0.2)
        return c, c, c * 1.03
    if mat == m.CANVAS:
        c = 0.025 * diff
        return c, c, c
    return 1.0, 0.0, 1.0
