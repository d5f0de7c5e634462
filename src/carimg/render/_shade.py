"""Shading (numba): studio environment, materials, body decals, supersample resolve.

Lighting is set relative to the camera, like a photographer who moves the lights with the camera: a
large overhead softbox, a horizontal strip behind the camera (the highlight band along the
shoulder),
two vertical strips at the sides, a dark horizon and a light floor. Paint is a diffuse base under a
clear coat (Fresnel-weighted reflection of that environment); metallic paint adds a tinted, blurred
reflection lobe and a fine flake sparkle. Values are linear; each shaded sample is tone-mapped to
0..1 before the samples of a pixel are averaged.
"""

from __future__ import annotations

import math

import numpy as np

from carimg.render import _materials as m
from carimg.render._jit import njit

PAINT_FLAG = 1.0


@njit(cache=True, nogil=True)
def _ss(e0: float, e1: float, x: float) -> float:
    t = (x - e0) / (e1 - e0)
    if t < 0.0:
        t = 0.0
    elif t > 1.0:
        t = 1.0
    return t * t * (3.0 - 2.0 * t)


@njit(cache=True, nogil=True)
def _band(x: float, lo: float, hi: float, soft: float) -> float:
    return _ss(lo - soft, lo + soft, x) * (1.0 - _ss(hi - soft, hi + soft, x))


@njit(cache=True, nogil=True)
def env(dx: float, dy: float, dz: float, cfx: float, cfy: float, blur: float) -> float:
    """Studio radiance in direction d; (cfx, cfy) points from the vehicle to the camera."""
    f = dx * cfx + dy * cfy
    r = -dx * cfy + dy * cfx
    u = dz
    if u < 0.0:
        c = 0.30 - 0.14 * _ss(0.0, 0.25, -u + blur * 0.3)
        # studio floor: darker just under the horizon (a crisp horizon line in the flanks)
        c = 0.10 + 0.18 * _ss(0.03, 0.6, -u)
    else:
        c = 0.05 + 0.30 * _ss(0.0, 1.0, u) ** 0.8
    s = 0.04 + blur
    # overhead softbox
    c += 2.6 * _band(r, -0.55, 0.55, s) * _band(f, -0.45, 0.75, s) * _ss(0.55 - s, 0.7 + s, u)
    # horizontal strip behind the camera: the shoulder line
    c += 2.4 * _band(u, 0.17, 0.27, 0.022 + blur * 0.6) * _ss(0.1 - s, 0.45, f)
    # two vertical strips
    az = math.atan2(r, f)
    vert = _band(u, 0.02, 0.75, 0.05 + blur)
    c += 1.3 * _band(az, 0.95, 1.12, 0.02 + blur) * vert
    c += 1.0 * _band(az, -1.12, -0.95, 0.02 + blur) * vert
    # faint rim light behind the vehicle
    c += 0.5 * _band(u, 0.05, 0.5, 0.1 + blur) * _ss(0.2, 0.8, -f)
    return c


@njit(cache=True, nogil=True)
def _tone(x: float) -> float:
    if x < 0.0:
        return 0.0
    if x < 0.75:
        return x
    return 0.75 + 0.25 * (1.0 - math.exp(-(x - 0.75) / 0.25))


@njit(cache=True, nogil=True)
def _hash3(x: float, y: float, z: float) -> float:
    ix = math.floor(x) & 0xFFFFF
    iy = math.floor(y) & 0xFFFFF
    iz = math.floor(z) & 0xFFFFF
    h = (ix * 73856093) ^ (iy * 19349663) ^ (iz * 83492791)
    h = (h ^ (h >> 13)) * 1274126177
    h = h ^ (h >> 16)
    return (h & 0xFFFF) / 65535.0


@njit(cache=True, nogil=True)
def _rrect(px: float, py: float, cx: float, cy: float, hw: float, hh: float, r: float) -> float:
    """Signed distance to a rounded rectangle (negative inside)."""
    rr = min(r, min(hw, hh))
    qx = abs(px - cx) - hw + rr
    qy = abs(py - cy) - hh + rr
    ox = max(qx, 0.0)
    oy = max(qy, 0.0)
    return math.sqrt(ox * ox + oy * oy) + min(max(qx, qy), 0.0) - rr


@njit(cache=True, nogil=True)
def _cov(sdf: float, aa: float) -> float:
    """Coverage of a shape with signed distance sdf over a pixel of width aa."""
    t = 0.5 - sdf / aa
    if t < 0.0:
        return 0.0
    if t > 1.0:
        return 1.0
    return t


@njit(cache=True, nogil=True)
def _prof(profile: np.ndarray, decal: np.ndarray, x: float, row: int) -> float:
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


@njit(cache=True, nogil=True)
def _head_lamp(ay: float, z: float, decal: np.ndarray) -> tuple[float, float]:
    """Signed distance to the head lamps (a main lamp, an optional second one, a light bar)."""
    zs = z - decal[m.HL_Z] - decal[m.HL_SLANT] * (ay - decal[m.HL_Y])
    hr = decal[m.HL_ROUND] * min(decal[m.HL_W], decal[m.HL_H])
    d = _rrect(ay, zs, decal[m.HL_Y], 0.0, decal[m.HL_W], decal[m.HL_H], hr)
    if decal[m.HL2_W] > 0.0:
        h2 = decal[m.HL2_H]
        r2 = decal[m.HL_ROUND] * min(decal[m.HL2_W], h2)
        y2 = decal[m.HL_Y] + decal[m.HL2_DY]
        d = min(d, _rrect(ay, zs, y2, decal[m.HL2_DZ], decal[m.HL2_W], h2, r2))
    if decal[m.HL_BAR] > 0.5:
        d = min(d, _rrect(ay, zs, 0.0, decal[m.HL_H] * 0.3, decal[m.HL_Y], 0.01, 0.008))
    return d, zs


@njit(cache=True, nogil=True)
def _grille(ay: float, z: float, decal: np.ndarray) -> float:
    """Signed distance to the grille outline: taper, spindle waist, kidney gap, slots, cross."""
    gh = decal[m.GR_H]
    if decal[m.GR_W] <= 0.0 or gh <= 0.0:
        return 1e9
    t = (decal[m.GR_Z] - z) / max(gh, 0.01)  # -1 top .. 1 bottom
    taper = 1.0 + decal[m.GR_TAPER] * t
    waist = 1.0 - decal[m.GR_WAIST] * max(0.0, 1.0 - abs(t + 0.1) * 2.2)
    gw = decal[m.GR_W] * max(taper * waist, 0.2)
    d = _rrect(ay, z, 0.0, decal[m.GR_Z], gw, gh, decal[m.GR_ROUND] * min(gh, gw))
    gap = decal[m.GR_GAP]
    if gap > 0.0:
        # two openings either side of a body-colour divide, each rounded on its own
        half = (gw - gap) * 0.5
        cy = gap + half
        r = decal[m.GR_ROUND] * min(gh, half)
        d = _rrect(ay, z, cy, decal[m.GR_Z], half, gh, r)
    n = decal[m.GR_SLOTS]
    if n > 0.0:
        pitch = 2.0 * gw / n
        u = (ay + gw) / pitch
        d = max(d, 0.22 * pitch - abs(u - math.floor(u) - 0.5) * pitch)
    if decal[m.GR_CROSS] > 0.5:
        d = max(d, 0.018 - min(ay, abs(z - decal[m.GR_Z])))
    return d


@njit(cache=True, nogil=True)
def _grille_pattern(ay: float, z: float, decal: np.ndarray) -> float:
    gt = int(decal[m.GR_TYPE])
    if gt == 0:
        ph = (z - decal[m.GR_Z] + decal[m.GR_H]) / (2 * decal[m.GR_H]) * decal[m.GR_BARS]
        return _ss(0.2, 0.35, abs(ph - math.floor(ph) - 0.5))
    if gt == 1:
        a1 = (ay * 40.0 + z * 40.0) % 1.0
        a2 = (ay * 40.0 - z * 40.0) % 1.0
        return max(_ss(0.3, 0.42, abs(a1 - 0.5)), _ss(0.3, 0.42, abs(a2 - 0.5)))
    if gt == 2:
        ph = ay * 30.0
        return _ss(0.25, 0.4, abs(ph - math.floor(ph) - 0.5))
    cx = ay * 28.0
    cy = z * 28.0 + 0.5 * (math.floor(cx) % 2.0)
    dx = cx - math.floor(cx) - 0.5
    dy = cy - math.floor(cy) - 0.5
    return _ss(0.25, 0.38, math.sqrt(dx * dx + dy * dy))


@njit(cache=True, nogil=True)
def _shut_lines(
    x: float,
    ay: float,
    z: float,
    nx: float,
    nz: float,
    belt: float,
    decal: np.ndarray,
    profile: np.ndarray,
) -> float:
    """Signed distance to the bonnet, boot-lid and tailgate shut lines (panel gaps)."""
    if decal[m.IS_CAR] < 0.5 or decal[m.CABIN_FRONT] != 0.0:
        return 1e9
    w = _prof(profile, decal, x, 2)
    d = 1e9
    lip = decal[m.X_FRONT] - 0.16
    if nz > 0.3 and decal[m.X_A] + 0.03 < x:
        # the bonnet: along the wings' tops, across the nose where it meets the fascia
        if x < lip:
            d = min(d, abs(ay - w * 0.8) - 0.002)
        if ay < w * 0.8:
            d = min(d, abs(x - lip) - 0.002)
    if decal[m.BED_FRONT] == 0.0 and nz > 0.3 and x < decal[m.X_GH_END] - 0.03:
        # a boot lid behind the rear glass
        d = min(d, abs(ay - w * 0.84) - 0.002)
    if nx < -0.55 and decal[m.X_GH_END] < decal[m.X_REAR] + 0.1 and z > decal[m.BUMPER_R_Z]:
        # a tailgate: its sides on the tail, up to the roof
        d = min(d, abs(ay - w * 0.8) - 0.002)
    return d


@njit(cache=True, nogil=True)
def body_decal(
    x: float,
    y: float,
    z: float,
    nx: float,
    ny: float,
    nz: float,
    aa: float,
    decal: np.ndarray,
    profile: np.ndarray,
) -> tuple[int, int, float, float]:
    """Material under a point of the body shell: (base, overlay, overlay coverage, pattern)."""
    ay = abs(y)
    any_ = abs(ny)
    top = _prof(profile, decal, x, 0)
    belt = _prof(profile, decal, x, 1)
    zb = _prof(profile, decal, x, 3)
    pattern = 0.0
    # underside and wheel wells
    if nz < -0.2 and z < zb + 0.12:
        # where the shell rolls under: a smooth blend on the normal, not a hard switch that
        # would follow the mesh facets (it made the arch lips ragged)
        return m.PAINT, m.UNDER, _ss(-0.2, -0.5, nz), 0.0
    if z < decal[m.AXLE_Z] * 2.0 + 0.1:
        w_here = _prof(profile, decal, x, 2)
        for wx in (decal[m.WHEEL_F], decal[m.WHEEL_R]):
            dx = x - wx
            dz = z - decal[m.AXLE_Z]
            near = abs(dx) < decal[m.ARCH_R] + 0.004 and ay < w_here * 0.975
            if near and (dx * dx + dz * dz < (decal[m.ARCH_R] + 0.006) ** 2 or dz < 0.02):
                # blend into the well over ~2 cm of the lip's roll-under (no faceted edge)
                t_well = _ss(w_here * 0.975, w_here * 0.95, ay)
                return m.PAINT, m.UNDER, t_well, 0.0
    # convertible cabin, pickup bed
    cabin = decal[m.CABIN_FRONT] != 0.0 and decal[m.CABIN_REAR] < x < decal[m.CABIN_FRONT]
    if cabin and nz > 0.5:
        w = _prof(profile, decal, x, 2)
        sd = max(ay - (w - 0.11), max(x - decal[m.CABIN_FRONT], decal[m.CABIN_REAR] - x))
        return m.PAINT, m.INTERIOR, _cov(sd, aa), 0.0
    if decal[m.BED_FRONT] != 0.0 and nz > 0.5 and x < decal[m.BED_FRONT] + 0.02:
        w = _prof(profile, decal, x, 2)
        sd = max(ay - (w - 0.06), max(x - decal[m.BED_FRONT], decal[m.BED_REAR] - x))
        edge = min(w - 0.06 - ay, min(decal[m.BED_FRONT] - x, x - decal[m.BED_REAR]))
        return m.PAINT, m.TRIM, _cov(sd, aa), 1.0 - _ss(0.0, 0.25, edge)
    in_gh_x = decal[m.X_GH_END] - 0.02 < x < decal[m.X_A] + 0.03
    if z > belt + 0.004 and in_gh_x and decal[m.CABIN_FRONT] == 0.0:
        pillar_mat = m.BLACKGLOSS if decal[m.PILLAR_BLACK] > 0.5 else m.PAINT
        if any_ > 0.5:
            zlo = belt + decal[m.WIN_BOTTOM]
            zhi = top - decal[m.WIN_TOP_INSET]
            # the rear edge leans forward with height (a hatch's C-pillar)
            rear_edge = decal[m.WIN_REAR] + decal[m.WIN_REAR_LEAN] * (z - zlo)
            inside = min(min(z - zlo, zhi - z), min(decal[m.WIN_FRONT] - x, x - rear_edge))
            # rounded corners: soften the distance where two edges meet
            a1 = z - zlo
            a2 = zhi - z
            a3 = decal[m.WIN_FRONT] - x
            a4 = x - rear_edge
            rc = 0.05
            if a3 < rc and a2 < rc:
                inside = min(inside, rc - math.sqrt((rc - a3) ** 2 + (rc - a2) ** 2))
            if a4 < rc and a2 < rc:
                inside = min(inside, rc - math.sqrt((rc - a4) ** 2 + (rc - a2) ** 2))
            if a4 < rc and a1 < rc:
                inside = min(inside, rc - math.sqrt((rc - a4) ** 2 + (rc - a1) ** 2))
            pill = 1e9
            for k in range(int(decal[m.N_PILLARS])):
                d = abs(x - decal[m.PILLAR0 + k]) - decal[m.PILLAR_W] * 0.5
                pill = min(pill, d)
            inside_glass = min(inside, pill)
            if inside_glass > -0.012:
                frame = m.BLACKGLOSS if decal[m.PILLAR_BLACK] > 0.5 or inside > 0.0 else m.TRIM
                if pill < 0.0 and inside > -0.012:
                    return pillar_mat, m.GLASS, _cov(-inside_glass, aa), 0.0
                return frame, m.GLASS, _cov(-inside_glass, aa), 0.0
            return m.PAINT, m.TRIM, _cov(-(inside_glass + 0.012), aa), 0.0
        # facing forward, backward or up: windshield, rear glass, roof
        corner = _ss(0.28, 0.5, any_)
        if x > decal[m.X_RF] - 0.015:
            d = min(z - (belt + 0.012), x - decal[m.X_RF] + 0.015)
            cov = _cov(-d, aa) * (1.0 - corner)
            if cov > 0.5 and decal[m.IS_CAR] > 0.5:
                # two wiper blades parked along the screen's base
                for y0 in (-0.5, 0.08):
                    t = y - y0
                    if 0.0 < t < 0.56:
                        d_w = abs(z - (belt + 0.03 + 0.07 * t)) - 0.006
                        if d_w < aa:
                            return m.GLASS, m.BLACKGLOSS, _cov(d_w, aa), 0.0
            return pillar_mat, m.GLASS, cov, 0.0
        if x < decal[m.X_RR] + 0.01:
            d = min(z - (belt + 0.04), decal[m.X_RR] + 0.01 - x)
            if decal[m.X_GH_END] > decal[m.X_REAR] + 0.1:
                d = min(d, x - decal[m.X_GH_END] - 0.02)
            cov = _cov(-d, aa) * (1.0 - corner)
            return pillar_mat, m.GLASS, cov, 0.0
        roof = m.BLACKGLOSS if decal[m.ROOF_BLACK] > 0.5 else m.PAINT
        return roof, roof, 0.0, 0.0
    # belt molding under the side glass
    if any_ > 0.55 and in_gh_x and decal[m.CABIN_FRONT] == 0.0 and z > belt - 0.012:  # noqa: SIM102
        if decal[m.WIN_REAR] < x < decal[m.WIN_FRONT]:
            return m.PAINT, m.TRIM, _cov(-(z - belt + 0.01), aa), 0.0
    seam_p = _shut_lines(x, ay, z, nx, nz, belt, decal, profile)
    if seam_p < aa:
        return m.PAINT, m.UNDER, _cov(seam_p, aa) * 0.85, 0.0
    front = nx > 0.3 or (x > decal[m.X_FRONT] - 0.3 and nx > -0.05)
    rear = nx < -0.3 or (x < decal[m.X_REAR] + 0.3 and nx < 0.05)
    if front and x > decal[m.X_FRONT] - 0.6:
        # headlights, grille, lower intake (front view coordinates)
        d_hl, zs = _head_lamp(ay, z, decal)
        if d_hl < aa + 0.006:
            pat = 0.0
            if decal[m.DRL] > 0.5:
                pat = 1.0 - _ss(0.004, 0.012, abs(zs - decal[m.HL_H] * 0.55))
            if d_hl > 0.0:
                return m.PAINT, m.BLACKGLOSS, _cov(d_hl - 0.006, aa), 0.0
            return m.BLACKGLOSS, m.HEADLIGHT, _cov(d_hl, aa), pat
        d_gr = _grille(ay, z, decal)
        if d_gr < aa + 0.012:
            pattern = _grille_pattern(ay, z, decal)
            if d_gr > 0.0:
                return (
                    m.PAINT,
                    m.CHROME if decal[m.GR_TYPE] == 0 else m.BLACKGLOSS,
                    _cov(d_gr - 0.012, aa),
                    0.0,
                )
            return m.BLACKGLOSS, m.TRIM, 1.0, pattern
        d_li = _rrect(ay, z, 0.0, decal[m.LI_Z], decal[m.LI_W], decal[m.LI_H], decal[m.LI_H] * 0.7)
        if d_li < aa:
            return m.PAINT, m.TRIM, _cov(d_li, aa), 0.6
        if z < decal[m.CLEARANCE] + 0.06 and decal[m.CLADDING] > 0.5:
            return m.PAINT, m.TRIM, _cov(z - decal[m.CLEARANCE] - 0.06, aa), 0.0
    if rear and x < decal[m.X_REAR] + 0.6:
        zt_ = z - decal[m.TL_Z]
        tr = decal[m.TL_ROUND] * min(decal[m.TL_W], decal[m.TL_H])
        d_tl = _rrect(ay, zt_, decal[m.TL_Y], 0.0, decal[m.TL_W], decal[m.TL_H], tr)
        if decal[m.TL2_DY] != 0.0:
            d_tl = min(
                d_tl,
                _rrect(ay, zt_, decal[m.TL_Y] + decal[m.TL2_DY], 0.0, decal[m.TL_W],
                       decal[m.TL_H], tr),
            )  # fmt: skip
        if decal[m.TL_BAR] > 0.5:
            d_bar = _rrect(ay, zt_ - decal[m.TL_H] * 0.4, 0.0, 0.0, decal[m.TL_Y], 0.012, 0.01)
            d_tl = min(d_tl, d_bar)
        if d_tl < aa + 0.006:
            inner = 1.0 - _ss(0.004, 0.014, abs(zt_ + decal[m.TL_H] * 0.2))
            if d_tl > 0.0:
                return m.PAINT, m.BLACKGLOSS, _cov(d_tl - 0.006, aa), 0.0
            return m.BLACKGLOSS, m.TAILLIGHT, _cov(d_tl, aa), inner
        if z < decal[m.CLEARANCE] + 0.16:
            return m.PAINT, m.TRIM, _cov(z - decal[m.CLEARANCE] - 0.16, aa), 0.0
    if decal[m.IS_CAR] > 0.5:
        bz = -1.0
        if x > decal[m.WHEEL_F] + decal[m.ARCH_R] * 0.9 and (front or any_ > 0.45):
            bz = decal[m.BUMPER_F_Z]
        elif x < decal[m.WHEEL_R] - decal[m.ARCH_R] * 0.9 and (rear or any_ > 0.45):
            bz = decal[m.BUMPER_R_Z]
        if bz > 0.0:
            if decal[m.BUMPER_BAND] > 0.5 and z < bz + aa:
                d_band = max(z - bz, bz - 0.13 - z)
                if d_band < aa:
                    return m.PAINT, m.TRIM, _cov(d_band, aa), 0.0
            seam_b = abs(z - bz) - 0.0025
            if seam_b < aa:
                return m.PAINT, m.UNDER, _cov(seam_b, aa) * 0.85, 0.0
    if any_ > 0.45 and decal[m.SIDE_INTAKE] != 0.0:
        # an intake scooped into the flank ahead of the rear wheel (mid-engined cars)
        xi = decal[m.SIDE_INTAKE]
        zi = decal[m.AXLE_Z] + decal[m.ARCH_R] * 0.55
        d_in = _rrect(x, z + 0.25 * (x - xi), xi, zi, 0.2, 0.08, 0.06)
        if d_in < aa:
            return m.PAINT, m.BLACKGLOSS, _cov(d_in, aa), 0.0
    if any_ > 0.45:
        # cladding over the arches and along the sill
        if decal[m.CLADDING] > 0.5:
            dmin = 1e9
            for wx in (decal[m.WHEEL_F], decal[m.WHEEL_R]):
                dx = x - wx
                dz = z - decal[m.AXLE_Z]
                dd = math.sqrt(dx * dx + dz * dz) - decal[m.ARCH_R] - 0.05
                if dz > -0.05:
                    dmin = min(dmin, dd)
            dmin = min(dmin, z - decal[m.ROCKER_H])
            if dmin < aa:
                return m.PAINT, m.TRIM, _cov(dmin, aa), 0.0
        # door seams and handles
        seam = 1e9
        nd = int(decal[m.DOOR_N])
        if decal[m.ROCKER_H] < z < belt - 0.01:
            for k in range(nd):
                seam = min(seam, abs(x - decal[m.DOOR0 + k]) - 0.0025)
            if seam < aa:
                return m.PAINT, m.UNDER, _cov(seam, aa) * 0.85, 0.0
            for k in range(nd - 1):
                hx = decal[m.DOOR0 + k + 1] + 0.14
                d_h = _rrect(x, z, hx, decal[m.HANDLE_Z], 0.065, 0.014, 0.012)
                if d_h < aa:
                    return (
                        m.PAINT,
                        m.BLACKGLOSS if decal[m.PILLAR_BLACK] > 0.5 else m.CHROME,
                        _cov(d_h, aa),
                        0.0,
                    )
    return m.PAINT, m.PAINT, 0.0, pattern


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
    metallic: float,
    decal: np.ndarray,
) -> tuple[float, float, float]:
    """Linear radiance of one material at one point."""
    ndv = nx * vx + ny * vy + nz * vz
    if ndv < 0.0:
        ndv = 0.0
    rx = 2.0 * ndv * nx - vx
    ry = 2.0 * ndv * ny - vy
    rz = 2.0 * ndv * nz - vz
    fres = (1.0 - ndv) ** 5
    # key light from above, a little to the camera's left and toward the camera
    lx = 0.45 * cfx + 0.30 * cfy
    ly = 0.45 * cfy - 0.30 * cfx
    lz = 0.84
    ln = math.sqrt(lx * lx + ly * ly + lz * lz)
    ndl = max((nx * lx + ny * ly + nz * lz) / ln, 0.0)
    hemi = 0.62 + 0.38 * nz
    ao = 0.72 + 0.28 * _ss(0.0, 0.6, pz)
    diff = (hemi * 0.78 + 0.42 * ndl) * ao
    if mat == m.PAINT:
        f = 0.035 + 0.965 * fres
        diff = diff * 1.25
        refl = env(rx, ry, rz, cfx, cfy, 0.0)
        if metallic > 0.5:
            lobe = env(rx, ry, rz, cfx, cfy, 0.25)
            flake = _hash3(px * 900.0, py * 900.0, pz * 900.0)
            fl = 0.85 + 0.3 * flake
            flop = 0.55 + 0.6 * ndv
            k = diff * 0.8 * flop * fl
            ml = 0.3 * lobe * fl
            r = paint[0] * (k + ml) * (1 - f) + f * refl
            g = paint[1] * (k + ml) * (1 - f) + f * refl
            b = paint[2] * (k + ml) * (1 - f) + f * refl
            return r, g, b
        return (
            paint[0] * diff * (1 - f) + f * refl,
            paint[1] * diff * (1 - f) + f * refl,
            paint[2] * diff * (1 - f) + f * refl,
        )
    if mat == m.GLASS:
        # tinted glass: a dark cabin behind a blue-grey tint, a vertical gradient (lighter where
        # the glass reflects the studio ceiling), and the softboxes mirrored in it
        f = 0.07 + 0.93 * fres
        refl = env(rx, ry, rz, cfx, cfy, 0.02)
        sky = 0.22 * _ss(-0.05, 0.55, rz)
        grad = 0.0
        if decal[m.IS_CAR] > 0.5 and decal[m.ROOF_Z] > 0.0:
            h = (pz - decal[m.HANDLE_Z]) / max(decal[m.ROOF_Z] - decal[m.HANDLE_Z], 0.1)
            grad = _ss(0.1, 1.0, h)
        cabin = 0.006 + 0.012 * (1.0 - grad)
        k = f * (refl + sky) + 0.035 * grad * (0.5 + 0.5 * ndv)
        return cabin * 0.8 + k * 0.92, cabin * 0.95 + k * 0.97, cabin * 1.15 + k * 1.04
    if mat == m.BLACKGLOSS:
        f = 0.04 + 0.96 * fres
        refl = env(rx, ry, rz, cfx, cfy, 0.0)
        c = 0.012 * diff + f * refl
        return c, c, c * 1.05
    if mat == m.TRIM:
        refl = env(rx, ry, rz, cfx, cfy, 0.35)
        base = 0.028 * (1.0 - 0.7 * pattern)
        c = base * diff + (0.03 + 0.2 * fres) * refl * (1.0 - 0.8 * pattern)
        return c, c, c
    if mat == m.CHROME:
        refl = env(rx, ry, rz, cfx, cfy, 0.02)
        c = 0.75 * refl + 0.03
        return c, c, c * 1.02
    if mat == m.TIRE:
        # rubber: satin sidewall with a raised bead ring next to the rim, matte tread
        refl = env(rx, ry, rz, cfx, cfy, 0.4)
        r = math.sqrt(a0 * a0 + a1 * a1)
        side = abs(ny)
        bead = 0.0
        if r > 0.0:
            bead = _band(r, 1.015, 1.06, 0.01) * side  # attrs: radius / rim radius
        c = (0.02 + 0.012 * side) * diff + (0.04 + 0.05 * side) * refl * (0.3 + fres)
        c += 0.02 * bead * diff
        return c, c, c
    if mat == m.RIM:
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
                wdt = wdt * 0.55
                solid = 1.0 - _ss(wdt, wdt + 0.03, d)
            elif style == 2:
                ph2 = ang / (2.0 * math.pi) * n_sp * 2.0 + r * 3.0
                ph3 = ang / (2.0 * math.pi) * n_sp * 2.0 - r * 3.0
                d2 = abs(ph2 - math.floor(ph2) - 0.5)
                d3 = abs(ph3 - math.floor(ph3) - 0.5)
                solid = max(_ss(0.32, 0.26, d2), _ss(0.32, 0.26, d3))
            elif style == 3:
                rr = (r - 0.55) * n_sp * 0.9
                dd = math.sqrt((fr - 0.5) ** 2 * (r * 4.0) ** 2 + rr * rr * 0.08)
                solid = _ss(0.12, 0.16, dd)
            else:
                solid = (
                    _ss(0.5 - wdt - 0.03, 0.5 - wdt, 0.5 - d)
                    if False
                    else (1.0 - _ss(wdt, wdt + 0.03, 0.5 - d))
                )
        if r < 0.22:
            solid = 1.0
        dark = decal[m.RIM_DARK]
        refl = env(rx, ry, rz, cfx, cfy, 0.08)
        base = 0.62 - 0.5 * dark
        c_metal = base * (0.28 * diff + 0.7 * refl) + 0.05 * fres * refl
        # machined lip, a dark groove inside it, a centre cap with a dark ring
        lip = _band(r, 0.9, 1.1, 0.012)
        groove = _band(r, 0.855, 0.885, 0.006)
        c_metal = c_metal * (1.0 - 0.75 * groove) * (1.0 + 0.35 * lip * (1.0 - dark))
        c_metal = c_metal * (1.0 - 0.6 * _band(r, 0.14, 0.17, 0.006))
        # spoke edges fall away into the wheel: darker where the spoke meets its gap
        c_metal = c_metal * (0.55 + 0.45 * _ss(0.0, 0.6, solid))
        # behind the spokes: a brake disc (grey, with a dark hat) and the dark wheel well
        disc = 0.05 * _ss(0.36, 0.42, r) * (1.0 - _ss(0.7, 0.74, r)) + 0.012
        cal = _band(ang, 0.35, 1.05, 0.03) * _band(r, 0.5, 0.8, 0.02)
        hole = disc * (1.0 - cal) + 0.02 * cal
        c = c_metal * solid + hole * (1.0 - solid)
        return c, c, c * 1.02
    if mat == m.HEADLIGHT:
        refl = env(rx, ry, rz, cfx, cfy, 0.05)
        lens = 0.0
        if decal[m.IS_CAR] > 0.5:
            ay = abs(py)
            zs = pz - decal[m.HL_Z] - decal[m.HL_SLANT] * (ay - decal[m.HL_Y])
            lr = min(decal[m.HL_H] * 0.5, decal[m.HL_W] * 0.25)
            for k in range(2):
                cy = decal[m.HL_Y] + decal[m.HL_W] * (0.45 - 0.65 * k)
                dd = math.sqrt((ay - cy) ** 2 + zs * zs)
                lens = max(lens, _band(dd, lr * 0.55, lr, 0.004))
                lens = max(lens, 0.6 * (1.0 - _ss(0.0, lr * 0.45, dd)))
        c = 0.05 + 0.6 * refl * (1.0 - 0.5 * lens) + 1.2 * pattern + 0.55 * lens
        return c, c * 1.0, c * 1.05
    if mat == m.TAILLIGHT:
        refl = env(rx, ry, rz, cfx, cfy, 0.0)
        f = 0.05 + 0.95 * fres
        glow = 0.09 + 1.6 * pattern
        return glow + f * refl, 0.004 + 0.08 * pattern + f * refl, 0.005 + 0.05 * pattern + f * refl
    if mat == m.UNDER:
        c = 0.012 * diff
        return c, c, c
    if mat == m.INTERIOR or mat == m.SEAT:
        refl = env(rx, ry, rz, cfx, cfy, 0.4)
        c = 0.03 * diff + 0.03 * refl * fres
        return c * 1.1, c, c * 0.95
    if mat == m.METAL:
        refl = env(rx, ry, rz, cfx, cfy, 0.25)
        c = 0.12 * diff + 0.3 * refl
        return c, c, c * 1.03
    if mat == m.CANVAS:
        c = 0.025 * diff
        return c, c, c
    return 1.0, 0.0, 1.0


@njit(cache=True, nogil=True)
def _crease(
    px: float,
    py: float,
    pz: float,
    nx: float,
    ny: float,
    nz: float,
    decal: np.ndarray,
    profile: np.ndarray,
) -> tuple[float, float, float]:
    """A shoulder character line along the flanks, drawn by bending the normal: a narrow strip
    tilted up (it catches the ceiling softbox) over a wider strip tilted down (shadowed), fading
    out towards the nose and tail. The geometry stays smooth; the highlight follows the body."""
    span = decal[m.X_FRONT] - decal[m.X_REAR]
    fade = _ss(0.0, 0.12 * span, px - decal[m.X_REAR]) * _ss(
        0.0, 0.14 * span, decal[m.X_FRONT] - px
    )
    if fade <= 0.0:
        return nx, ny, nz
    belt = _prof(profile, decal, px, 1)
    d = pz - (belt - 0.13 - 0.02 * (px - decal[m.X_REAR]) / span)
    tilt = 0.0
    if 0.0 <= d < 0.04:
        tilt = 0.16 * _ss(0.04, 0.0, d)
    elif -0.08 < d < 0.0:
        tilt = -0.1 * _ss(-0.08, 0.0, d) * _ss(0.0, -0.012, d) - 0.16 * _ss(-0.012, 0.0, d)
    if tilt == 0.0:
        return nx, ny, nz
    tilt *= fade
    nz2 = nz + tilt
    ln = math.sqrt(nx * nx + ny * ny + nz2 * nz2)
    return nx / ln, ny / ln, nz2 / ln


@njit(cache=True, nogil=True)
def shade_point(
    mat: int,
    px: float,
    py: float,
    pz: float,
    nx: float,
    ny: float,
    nz: float,
    a0: float,
    a1: float,
    camx: float,
    camy: float,
    camz: float,
    aa: float,
    cfx: float,
    cfy: float,
    paint: np.ndarray,
    metallic: float,
    decal: np.ndarray,
    profile: np.ndarray,
) -> tuple[float, float, float, float]:
    """Tone-mapped colour and paint weight of one surface point."""
    vx = camx - px
    vy = camy - py
    vz = camz - pz
    vl = math.sqrt(vx * vx + vy * vy + vz * vz)
    vx /= vl
    vy /= vl
    vz /= vl
    nl = math.sqrt(nx * nx + ny * ny + nz * nz)
    if nl < 1e-12:
        nx, ny, nz = vx, vy, vz
    else:
        nx /= nl
        ny /= nl
        nz /= nl
    if nx * vx + ny * vy + nz * vz < -0.25:
        nx, ny, nz = -nx, -ny, -nz
    if mat == m.BODY:
        base, over, t, pat = body_decal(px, py, pz, nx, ny, nz, aa, decal, profile)
        if decal[m.IS_CAR] > 0.5 and abs(ny) > 0.4:
            nx, ny, nz = _crease(px, py, pz, nx, ny, nz, decal, profile)
        r0, g0, b0 = 0.0, 0.0, 0.0
        r1, g1, b1 = 0.0, 0.0, 0.0
        if t < 1.0:
            r0, g0, b0 = shade_material(
                base,
                px,
                py,
                pz,
                nx,
                ny,
                nz,
                vx,
                vy,
                vz,
                a0,
                a1,
                pat,
                cfx,
                cfy,
                paint,
                metallic,
                decal,
            )
        if t > 0.0:
            r1, g1, b1 = shade_material(
                over,
                px,
                py,
                pz,
                nx,
                ny,
                nz,
                vx,
                vy,
                vz,
                a0,
                a1,
                pat,
                cfx,
                cfy,
                paint,
                metallic,
                decal,
            )
        pw = 0.0
        if base == m.PAINT:
            pw += 1.0 - t
        if over == m.PAINT:
            pw += t
        return (
            _tone(r0 * (1 - t) + r1 * t),
            _tone(g0 * (1 - t) + g1 * t),
            _tone(b0 * (1 - t) + b1 * t),
            pw,
        )
    r, g, b = shade_material(
        mat, px, py, pz, nx, ny, nz, vx, vy, vz, a0, a1, 0.0, cfx, cfy, paint, metallic, decal
    )
    return _tone(r), _tone(g), _tone(b), 1.0 if mat == m.PAINT else 0.0


@njit(cache=True, nogil=True)
def resolve(
    tid: np.ndarray,
    bar0: np.ndarray,
    bar1: np.ndarray,
    ss: int,
    verts: np.ndarray,
    normals: np.ndarray,
    attrs: np.ndarray,
    tris: np.ndarray,
    mats: np.ndarray,
    parts: np.ndarray,
    cam: np.ndarray,
    cf: np.ndarray,
    focal: float,
    paint: np.ndarray,
    metallic: float,
    decal: np.ndarray,
    profile: np.ndarray,
    out_rgb: np.ndarray,
    out_cov: np.ndarray,
    out_paint: np.ndarray,
) -> None:
    """Shade the visibility buffer and average each ss×ss block into one pixel (premultiplied).

    A pixel whose samples all hit the same smooth part is shaded once at the mean of its samples;
    other pixels (silhouettes, part boundaries) shade every sample.
    """
    h, w = out_cov.shape
    n = ss * ss
    P = np.zeros((n, 8))
    mat0 = 0
    q = np.zeros(8)
    for oy in range(h):
        for ox in range(w):
            # pass 1: which triangles, parts and materials do the samples hit?
            cnt = 0
            same = True
            part0 = -1
            for j in range(ss):
                for i in range(ss):
                    t = tid[oy * ss + j, ox * ss + i]
                    if t < 0:
                        same = False
                        continue
                    if cnt == 0:
                        part0 = parts[t]
                        mat0 = mats[t]
                    elif parts[t] != part0 or mats[t] != mat0:
                        same = False
                    cnt += 1
            if cnt == 0:
                continue
            # pass 2: interpolate the samples; one smooth part needs only the two diagonal
            # samples, whose mean is the pixel centre on a planar triangle
            k = 0
            for j in range(ss):
                for i in range(ss):
                    if same and not ((j == 0 and i == 0) or (j == ss - 1 and i == ss - 1)):
                        continue
                    t = tid[oy * ss + j, ox * ss + i]
                    if t < 0:
                        continue
                    b0 = bar0[oy * ss + j, ox * ss + i]
                    b1 = bar1[oy * ss + j, ox * ss + i]
                    b2 = 1.0 - b0 - b1
                    i0 = tris[t, 0]
                    i1 = tris[t, 1]
                    i2 = tris[t, 2]
                    for c in range(3):
                        P[k, c] = b0 * verts[i0, c] + b1 * verts[i1, c] + b2 * verts[i2, c]
                        P[k, 3 + c] = (
                            b0 * normals[i0, c] + b1 * normals[i1, c] + b2 * normals[i2, c]
                        )
                    for c in range(2):
                        P[k, 6 + c] = b0 * attrs[i0, c] + b1 * attrs[i1, c] + b2 * attrs[i2, c]
                    k += 1
            if same:
                cnt_g = k
                for c in range(8):
                    q[c] = 0.0
                for kk in range(cnt_g):
                    for c in range(8):
                        q[c] += P[kk, c]
                for c in range(8):
                    q[c] /= cnt_g
                dx = cam[0] - q[0]
                dy = cam[1] - q[1]
                dz = cam[2] - q[2]
                aa = math.sqrt(dx * dx + dy * dy + dz * dz) / focal * ss
                r, g, b, pw = shade_point(
                    mat0,
                    q[0],
                    q[1],
                    q[2],
                    q[3],
                    q[4],
                    q[5],
                    q[6],
                    q[7],
                    cam[0],
                    cam[1],
                    cam[2],
                    aa,
                    cf[0],
                    cf[1],
                    paint,
                    metallic,
                    decal,
                    profile,
                )
                out_rgb[oy, ox, 0] = r
                out_rgb[oy, ox, 1] = g
                out_rgb[oy, ox, 2] = b
                out_cov[oy, ox] = 1.0
                out_paint[oy, ox] = pw
                continue
            sr = 0.0
            sg = 0.0
            sb = 0.0
            sp = 0.0
            k = 0
            for j in range(ss):
                for i in range(ss):
                    t = tid[oy * ss + j, ox * ss + i]
                    if t < 0:
                        continue
                    dx = cam[0] - P[k, 0]
                    dy = cam[1] - P[k, 1]
                    dz = cam[2] - P[k, 2]
                    aa = math.sqrt(dx * dx + dy * dy + dz * dz) / focal
                    r, g, b, pw = shade_point(
                        mats[t],
                        P[k, 0],
                        P[k, 1],
                        P[k, 2],
                        P[k, 3],
                        P[k, 4],
                        P[k, 5],
                        P[k, 6],
                        P[k, 7],
                        cam[0],
                        cam[1],
                        cam[2],
                        aa,
                        cf[0],
                        cf[1],
                        paint,
                        metallic,
                        decal,
                        profile,
                    )
                    sr += r
                    sg += g
                    sb += b
                    sp += pw
                    k += 1
            out_rgb[oy, ox, 0] = sr / n
            out_rgb[oy, ox, 1] = sg / n
            out_rgb[oy, ox, 2] = sb / n
            out_cov[oy, ox] = cnt / n
            out_paint[oy, ox] = sp / n
