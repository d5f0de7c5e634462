"""Four-wheeled (and bus/truck) geometry: a lofted body shell, wheels, mirrors and style extras.

Shapes start from a per-body-style template in metres; the model seed moves proportions (wheelbase,
overhangs, roof and belt lines, ride height, wheel size), the make seed picks the family's grille
and
light language, and the model year moves the era look (1990s boxier and upright, 2020s rounder,
raked,
higher belt, bigger wheels).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from carimg.render import _materials as m
from carimg.render._appearance import Appearance, stable_seed
from carimg.render._mesh import F64, MeshBuilder, revolve_y, rounded_box, smooth1d
from carimg.render._model import PROFILE_SAMPLES, VehicleModel


@dataclass(frozen=True, slots=True)
class CarSpec:
    """Side-profile template. a/rf/rr/c are fractions of the length measured from the nose."""

    length: float
    width: float
    height: float
    clearance: float
    wheel_r: float
    front_oh: float
    rear_oh: float
    nose_z: float
    hood_z: float
    a: float
    rf: float
    rr: float
    c: float
    deck_z: float
    tail_z: float
    belt: float
    rear: str  # notch | fast | hatch | box | pickup | open
    doors: int  # 2, 4, or 5 for sliding doors
    tumble: float
    windows: str = "all"  # all | front | bus
    cladding: bool = False
    truck_box: bool = False


TEMPLATES: dict[str, CarSpec] = {
    "sedan": CarSpec(4.85, 1.86, 1.45, 0.14, 0.34, 0.92, 1.0, 0.74, 0.93,
                     0.325, 0.47, 0.675, 0.83, 0.96, 0.95, 0.95, "notch", 4, 0.2),
    "hatchback": CarSpec(4.25, 1.79, 1.48, 0.14, 0.32, 0.84, 0.72, 0.74, 0.94,
                         0.30, 0.45, 0.80, 0.965, 1.0, 0.98, 0.95, "hatch", 4, 0.18),
    "wagon": CarSpec(4.9, 1.85, 1.50, 0.14, 0.335, 0.93, 1.02, 0.76, 0.96,
                     0.29, 0.43, 0.93, 0.985, 1.04, 1.0, 0.97, "hatch", 4, 0.17),
    "coupe": CarSpec(4.65, 1.86, 1.36, 0.13, 0.35, 0.94, 0.98, 0.70, 0.88,
                     0.36, 0.51, 0.64, 0.85, 0.93, 0.92, 0.90, "notch", 2, 0.22),
    "convertible": CarSpec(4.55, 1.85, 1.30, 0.13, 0.34, 0.95, 0.98, 0.72, 0.90,
                           0.34, 0.44, 0.44, 0.80, 0.93, 0.94, 0.90, "open", 2, 0.2),
    "fastback": CarSpec(4.75, 1.88, 1.39, 0.13, 0.345, 0.96, 1.05, 0.74, 0.92,
                        0.33, 0.47, 0.57, 0.93, 0.98, 0.96, 0.93, "fast", 4, 0.22),
    "suv": CarSpec(4.85, 1.96, 1.80, 0.21, 0.39, 0.92, 0.98, 1.0, 1.13,
                   0.27, 0.40, 0.94, 0.985, 1.25, 1.2, 1.14, "box", 4, 0.13, cladding=True),
    "crossover": CarSpec(4.55, 1.87, 1.64, 0.19, 0.365, 0.90, 0.90, 0.90, 1.04,
                         0.285, 0.425, 0.83, 0.965, 1.12, 1.08, 1.05, "hatch", 4, 0.17,
                         cladding=True),
    "pickup": CarSpec(5.6, 1.99, 1.88, 0.24, 0.40, 0.97, 1.25, 1.12, 1.2,
                      0.235, 0.33, 0.50, 0.545, 1.25, 1.25, 1.2, "pickup", 4, 0.12,
                      cladding=True),
    "van": CarSpec(5.4, 2.02, 2.45, 0.18, 0.36, 0.90, 1.06, 0.95, 1.12,
                   0.14, 0.255, 0.985, 0.99, 2.3, 2.3, 1.18, "box", 5, 0.06, windows="front"),
    "minivan": CarSpec(5.1, 1.99, 1.77, 0.15, 0.36, 0.93, 1.05, 0.86, 1.0,
                       0.22, 0.365, 0.95, 0.99, 1.1, 1.05, 1.0, "box", 5, 0.14),
    "kei": CarSpec(3.39, 1.475, 1.72, 0.15, 0.285, 0.52, 0.45, 0.78, 0.9,
                   0.19, 0.34, 0.95, 0.99, 1.1, 1.05, 0.93, "box", 4, 0.08),
    "bus": CarSpec(12.0, 2.55, 3.15, 0.30, 0.50, 2.65, 3.3, 0.95, 1.0,
                   0.005, 0.03, 0.99, 0.995, 2.9, 2.9, 1.15, "box", 2, 0.03, windows="bus"),
    "truck": CarSpec(7.4, 2.35, 2.75, 0.25, 0.50, 1.3, 2.0, 1.25, 1.35,
                     0.06, 0.14, 0.27, 0.30, 1.5, 1.5, 1.45, "box", 2, 0.05, truck_box=True),
    "other": CarSpec(4.5, 1.85, 1.62, 0.18, 0.36, 0.90, 0.90, 0.88, 1.02,
                     0.29, 0.43, 0.82, 0.965, 1.1, 1.06, 1.03, "hatch", 4, 0.17),
}  # fmt: skip


def era(year: int) -> float:
    """0 for 1980 and older, 1 for 2025 and newer."""
    return float(np.clip((year - 1980) / 45.0, 0.0, 1.0))


def _vary(spec: CarSpec, rng: np.random.Generator, e: float) -> CarSpec:
    def j(scale: float) -> float:
        return float(rng.uniform(-scale, scale))

    big = spec.length > 6.0
    length = spec.length * (1 + j(0.05))
    height = spec.height * (1 + j(0.03))
    wheel_r = spec.wheel_r * (1 + j(0.04)) + (0.0 if big else 0.025 * (e - 0.5))
    rake = (e - 0.6) * 0.05 if not big else 0.0
    return replace(
        spec,
        length=length,
        width=spec.width * (1 + j(0.025)),
        height=height,
        clearance=spec.clearance * (1 + j(0.12)),
        wheel_r=wheel_r,
        front_oh=spec.front_oh * (1 + j(0.08)) * length / spec.length,
        rear_oh=spec.rear_oh * (1 + j(0.08)) * length / spec.length,
        nose_z=spec.nose_z * (1 + j(0.03)),
        hood_z=spec.hood_z * (1 + j(0.03)) + 0.02 * (e - 0.5),
        a=spec.a + j(0.012) - (rake * 0.4 if spec.rear != "box" else 0.0),
        rf=spec.rf + j(0.012) + rake,
        rr=spec.rr + j(0.015),
        c=spec.c + j(0.01),
        belt=spec.belt * (1 + j(0.025)) + (0.04 * (e - 0.5) if not big else 0.0),
        tumble=spec.tumble * (0.75 + 0.5 * e),
    )


def _top_profile(sp: CarSpec, s: F64, e: float) -> F64:
    length, height = sp.length, sp.height
    drop = 0.02 + 0.03 * e
    pts: list[tuple[float, float]] = [
        (0.0, sp.nose_z - 0.12),
        (0.12, sp.nose_z),
        (sp.a * length, sp.hood_z),
    ]
    if sp.rear == "open":
        pts += [
            (sp.a * length + 0.06, sp.belt + 0.01),
            (sp.c * length, sp.deck_z),
            (length - 0.12, sp.tail_z),
            (length, sp.tail_z - 0.1),
        ]
    elif sp.rear == "pickup":
        pts += [
            (sp.rf * length, height),
            (sp.rr * length, height - 0.02),
            (sp.c * length - 0.04, height - 0.06),
            (sp.c * length, sp.deck_z),
            (length, sp.deck_z),
        ]
    elif sp.truck_box:
        frame = sp.clearance + 0.72
        pts += [
            (sp.rf * length, height),
            (sp.rr * length, height - 0.02),
            (sp.c * length, height - 0.05),
            (sp.c * length + 0.06, frame),
            (length, frame),
        ]
    else:
        pts += [(sp.rf * length, height), (sp.rr * length, height - drop)]
        if sp.rear in ("notch", "fast"):
            pts += [
                (sp.c * length, sp.deck_z),
                (length - 0.12, sp.tail_z),
                (length, sp.tail_z - 0.1),
            ]
        elif sp.rear == "hatch":
            pts += [(sp.c * length, sp.deck_z), (length, sp.deck_z - 0.1)]
        else:
            pts += [(length, height - drop - 0.08)]
    px = np.array([p[0] for p in pts])
    pz = np.array([p[1] for p in pts])
    fine = np.linspace(0.0, length, 1200)
    z = np.interp(fine, px, pz)
    step = float(fine[1] - fine[0])
    sigma = (0.035 + 0.09 * e) if sp.rear not in ("pickup",) and not sp.truck_box else 0.025
    if sp.length > 9:
        sigma = 0.12
    return np.interp(s, fine, smooth1d(z, sigma / step))


def _stations(sp: CarSpec, wheels: list[float], arch_r: float) -> F64:
    n = int(np.clip(sp.length / 0.03, 140, 300))
    base = np.linspace(0.0, sp.length, n)
    extra: list[F64] = []
    for sw in wheels:
        extra.append(sw + arch_r * np.sin(np.linspace(-np.pi / 2, np.pi / 2, 25)))
        extra.append(np.array([sw - arch_r - 0.004, sw + arch_r + 0.004]))
    if sp.rear == "pickup" or sp.truck_box:
        # the cab's back wall drops ~0.7 m over a few cm: without dense stations it is spanned by
        # one or two rings and shades as horizontal stripes
        extra.append(np.linspace(sp.c * sp.length - 0.12, sp.c * sp.length + 0.1, 40))
    s = np.unique(np.concatenate([base, *extra]))
    return s[(s >= 0.0) & (s <= sp.length)]


def _half_section(
    zb: F64, zt: F64, w: F64, belt: F64, roof_z: float, tumble: float, e: float, open_top: F64
) -> F64:
    """Half cross-sections (y >= 0) for every station: (S, P, 2) of (y, z), bottom to top centre."""
    S = len(zb)
    rb = np.minimum(0.06, (zt - zb) * 0.3)
    rt_base = 0.05 + 0.09 * e
    rt = np.minimum(rt_base, (zt - zb) * 0.4)
    belt_eff = np.clip(belt, zb + rb + 0.01, np.maximum(zt - rt, zb + rb + 0.01))
    gh = np.clip((zt - rt - belt_eff) / max(roof_z - float(np.median(belt)), 0.2), 0.0, 1.2)
    inset = np.minimum(0.025, (zt - rt - belt_eff) * 0.5) * (1.0 - open_top)
    wb = w * 0.975
    wbelt = w * 0.995
    wtop = wbelt - inset - tumble * w * gh
    cols: list[tuple[F64, F64]] = []

    def add(y: F64, z: F64) -> None:
        cols.append((y, z))

    for t in np.linspace(0, 1, 3, endpoint=False):
        add(t * (wb - rb), zb)
    for a in np.linspace(-np.pi / 2, 0, 4, endpoint=False):
        add(wb - rb + rb * np.cos(a), zb + rb + rb * np.sin(a))
    for t in np.linspace(0, 1, 9, endpoint=False):
        bulge = 0.012 * w * np.sin(np.pi * t)
        add(wb + (wbelt - wb) * t + bulge, zb + rb + (belt_eff - zb - rb) * t)
    for t in np.linspace(0, 1, 9, endpoint=False):
        ease = t if t > 0 else 0.0
        y0 = wbelt - inset * min(1.0, ease * 4)
        add(y0 + (wtop - y0) * t + 0.008 * np.sin(np.pi * t), belt_eff + (zt - rt - belt_eff) * t)
    for a in np.linspace(0, np.pi / 2, 7, endpoint=False):
        add(wtop - rt + rt * np.cos(a), zt - rt + rt * np.sin(a))
    crown = 0.02 + 0.015 * e
    for t in np.linspace(0, 1, 6):
        y = (wtop - rt) * (1 - t)
        add(y, zt + crown * (1 - (1 - t) ** 2) * (1.0 - 0.0 * open_top))
    out = np.zeros((S, len(cols), 2))
    for k, (y, z) in enumerate(cols):
        out[:, k, 0] = y
        out[:, k, 1] = z
    for _ in range(3):
        out[:, 1:-1] = 0.25 * out[:, :-2] + 0.5 * out[:, 1:-1] + 0.25 * out[:, 2:]
    out[:, -1, 0] = 0.0
    out[:, -2, 1] = 0.5 * out[:, -2, 1] + 0.5 * out[:, -1, 1]
    return out


def _loft(s: F64, half: F64, length: float, r_front: float, r_rear: float) -> F64:
    """Close the half sections into loops, add end caps, return an (S', P, 3) grid with x
    forward."""
    full = np.concatenate([half, half[:, -2:0:-1] * np.array([-1.0, 1.0])], axis=1)
    centre_z = (half[:, 0, 1] + half[:, -1, 1]) / 2

    def cap(idx: int, r: float, front: bool) -> list[F64]:
        rings = []
        for phi in np.linspace(0, np.pi / 2, 7)[1:]:
            sc = np.cos(phi)
            if phi == np.pi / 2:
                sc = 0.0  # collapse to a point: the shell is closed (no pinhole at the ends)
            sec = full[idx].copy()
            sec[:, 0] *= sc
            sec[:, 1] = centre_z[idx] + (sec[:, 1] - centre_z[idx]) * sc
            ds = r * np.sin(phi)
            x_s = s[idx] - ds if front else s[idx] + ds
            rings.append(np.column_stack([np.full(len(sec), x_s), sec]))
        return rings

    rings = [np.column_stack([np.full(full.shape[1], s[i]), full[i]]) for i in range(len(s))]
    grid = [*cap(0, r_front, True)[::-1], *rings, *cap(len(s) - 1, r_rear, False)]
    g = np.stack(grid)  # (S', P, 3) with (s, y, z)
    out = np.empty_like(g)
    out[..., 0] = length / 2 - g[..., 0]
    out[..., 1] = g[..., 1]
    out[..., 2] = g[..., 2]
    return out


def add_wheel(
    b: MeshBuilder,
    x: float,
    y: float,
    r: float,
    width: float,
    rim_ratio: float,
    dual: bool = False,
    centred: bool = False,
) -> None:
    """A tyre (rounded torus) and a dished alloy rim facing +y, mirrored to -y."""
    rim_r = r * rim_ratio
    hw = width / 2
    k = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    # rounded-rectangle tyre cross-section in (radius, y)
    cr = 0.5 * (r - rim_r) * 0.9
    pr = []
    for a in k:
        c, sn = np.cos(a), np.sin(a)
        rr = (r + rim_r) / 2 + (r - rim_r) / 2 * np.sign(c) * abs(c) ** 0.45
        yy = hw * np.sign(sn) * abs(sn) ** 0.35
        pr.append((rr, yy))
    prof = np.array(pr)
    del cr
    pts, tattrs = revolve_y(prof, (x, y, r), 56)
    b.add_grid(pts, m.TIRE, wrap_u=True, wrap_v=True, attrs=tattrs / rim_r, mirror_y=not centred)
    rr_ = np.linspace(0.0, 1.0, 12)
    dish = 0.035 + 0.02 * (1 - rim_ratio)
    face_y = hw - 0.012
    rim_prof = np.column_stack(
        [
            rim_r * rr_ * 1.02,
            face_y - dish * (1 - rr_**2) * 0.6 - np.where(rr_ > 0.93, 0.01, 0.0),
        ]
    )
    rpts, rattrs = revolve_y(rim_prof, (x, y, r), 56)
    b.add_grid(rpts, m.RIM, wrap_v=True, attrs=rattrs / rim_r, orient="+y", mirror_y=True)
    if dual:
        pts2, tattrs2 = revolve_y(prof, (x, y - width * 1.02, r), 48)
        b.add_grid(pts2, m.TIRE, wrap_u=True, wrap_v=True, attrs=tattrs2 / rim_r, mirror_y=True)


def build_car(app: Appearance) -> VehicleModel:
    """The mesh and decal parameters for a car-like body style."""
    style = app.body_style
    e = era(app.year)
    rng = np.random.default_rng(stable_seed("model", app.make, app.model, app.variation))
    mk = np.random.default_rng(stable_seed("make", app.make))
    sp = _vary(TEMPLATES[style], rng, e)
    L, W = sp.length, sp.width
    R = sp.wheel_r
    s_front_wheel = sp.front_oh
    s_rear_wheel = L - sp.rear_oh
    wheels = [s_front_wheel, s_rear_wheel]
    if style == "truck":
        wheels = [s_front_wheel, s_rear_wheel]
    arch_r = R + 0.028 + 0.012 * (1 - e)
    s = _stations(sp, wheels, arch_r)

    zt = _top_profile(sp, s, e)
    # bottom: clearance, lifted at the overhang ends, arches over the wheels
    lift = np.maximum(
        0.12 * np.clip(1 - s / (0.7 * sp.front_oh), 0, 1) ** 2,
        0.14 * np.clip(1 - (L - s) / (0.6 * sp.rear_oh), 0, 1) ** 2,
    )
    zb = sp.clearance + lift
    for sw in wheels:
        ds = s - sw
        inside = np.abs(ds) <= arch_r
        arch = R + np.sqrt(np.clip(arch_r**2 - ds**2, 0.0, None))
        zb = np.where(inside, np.maximum(zb, arch), zb)
    zb = np.minimum(zb, zt - 0.08)
    # plan view: rounded corners front and back
    pr_f, pr_r = 0.55 + 0.25 * e, 0.45 + 0.2 * e
    taper_f = (0.07 + 0.08 * e) * np.clip(1 - s / pr_f, 0, 1) ** 2
    taper_r = (0.05 + 0.05 * e) * np.clip(1 - (L - s) / pr_r, 0, 1) ** 2
    if L > 6:
        taper_f *= 0.3
        taper_r *= 0.3
    w = W / 2 * (1 - taper_f - taper_r)
    belt_line = sp.belt + 0.035 * (s / L) * (0.5 + e)  # rising wedge towards the tail
    if style in ("van", "bus", "truck", "kei"):
        belt_line = np.full_like(s, sp.belt)
    open_top = np.zeros_like(s)
    half = _half_section(zb, zt, w, belt_line, sp.height, sp.tumble, e, open_top)
    r_end_f = 0.06 + 0.1 * e if L < 6 else 0.12
    r_end_r = 0.05 + 0.07 * e if L < 6 else 0.08
    body = _loft(s, half, L, r_end_f, r_end_r)
    b = MeshBuilder()
    b.add_grid(body, m.BODY, wrap_v=True)

    def x_of(s_: float) -> float:
        return L / 2 - s_

    x_fw, x_rw = x_of(s_front_wheel), x_of(s_rear_wheel)
    tire_w = 0.2 + 0.05 * (W - 1.5) + 0.03 * e
    if L > 6:
        tire_w = 0.3
    y_w = float(np.interp(s_front_wheel, s, w)) * 0.985 - tire_w / 2 - 0.004
    rim_ratio = 0.6 + 0.12 * e + float(rng.uniform(-0.03, 0.03))
    if L > 6:
        rim_ratio = 0.58
    add_wheel(b, x_fw, y_w, R, tire_w, rim_ratio)
    add_wheel(b, x_rw, y_w, R, tire_w, rim_ratio, dual=style == "truck")

    # mirrors
    s_a = sp.a * L
    w_mirror = float(np.interp(s_a, s, w))
    mz = float(np.interp(s_a, s, belt_line)) + 0.06
    mx = x_of(s_a + 0.16 + (0.1 if L > 6 else 0.0))
    ms = 1.0 if L < 6 else 1.5
    b.add_grid(
        rounded_box(
            (mx - 0.05 * ms, w_mirror - 0.12, mz - 0.05 * ms),
            (mx + 0.06 * ms, w_mirror + 0.13 * ms, mz + 0.05 * ms),
            0.45,
        ),
        m.PAINT if L < 6 else m.TRIM,
        mirror_y=True,
    )

    if style == "truck":
        s0 = sp.c * L + 0.12
        box_lo = (x_of(L) - 0.02, -W / 2 * 1.04, sp.clearance + 0.75)
        box_hi = (x_of(s0), W / 2 * 1.04, 3.45)
        b.add_grid(rounded_box(box_lo, box_hi, 0.08), m.PAINT)
        b.add_grid(
            rounded_box(
                (x_of(L - 0.05), -W / 2 * 0.9, sp.clearance + 0.35),
                (x_of(s0 + 0.1), W / 2 * 0.9, sp.clearance + 0.8),
                0.2,
            ),
            m.UNDER,
        )
    if style == "convertible":
        _add_open_cabin(b, sp, s, belt_line, w, x_of)
    if style in ("suv", "wagon") and e > 0.3:
        # roof rails
        s0, s1 = sp.rf * L + 0.15, sp.rr * L - 0.05
        yr = float(np.interp((s0 + s1) / 2, s, w)) * (1 - sp.tumble) - 0.2
        b.add_grid(
            rounded_box(
                (x_of(s1), yr - 0.025, sp.height - 0.05),
                (x_of(s0), yr + 0.025, sp.height + 0.03),
                0.3,
            ),
            m.TRIM,
            mirror_y=True,
        )

    decal = _decal_params(sp, style, e, rng, mk, s, w, belt_line, x_fw, x_rw, arch_r, R)
    decal[m.X_FRONT] = float(body[..., 0].max())
    decal[m.X_REAR] = float(body[..., 0].min())
    xs = np.linspace(decal[m.X_REAR], decal[m.X_FRONT], PROFILE_SAMPLES)
    sx = L / 2 - xs
    profile = np.stack(
        [
            np.interp(sx, s, zt),
            np.interp(sx, s, belt_line),
            np.interp(sx, s, w),
            np.interp(sx, s, zb),
        ]
    )
    return VehicleModel(mesh=b.build(), decal=decal, profile=profile)


def _add_open_cabin(
    b: MeshBuilder, sp: CarSpec, s: F64, belt: F64, w: F64, x_of: Callable[[float], float]
) -> None:
    L = sp.length
    xo = x_of
    s_a = sp.a * L
    wa = float(np.interp(s_a, s, w)) * 0.93
    zb = float(np.interp(s_a, s, belt))
    ws_h = sp.height - zb
    # windshield: a slanted, slightly curved pane with a dark frame
    u = np.linspace(0, 1, 8)[:, None]
    v = np.linspace(-1, 1, 16)[None, :]
    lean = ws_h * 1.25
    x = xo(s_a) - lean * u - 0.06 * (1 - v**2) * 0
    x = x + 0.08 * v**2
    y = wa * v * (1 - 0.12 * u)
    z = zb + ws_h * u + 0 * v
    pane = np.stack([x * np.ones_like(v), y * np.ones_like(u), z * np.ones_like(v)], -1)
    b.add_grid(pane, m.GLASS, orient="keep")
    top = pane[-1]
    frame = np.stack([top + np.array([0.0, 0.0, -0.01]), top + np.array([-0.03, 0.0, 0.03])])
    b.add_grid(frame, m.TRIM, orient="keep")
    # seats with headrests
    s_seat = s_a + 1.05
    zs = float(np.interp(s_seat, s, belt))
    ys = min(0.4, wa * 0.5)
    for yy in (ys, -ys):
        xs = xo(s_seat)
        # cushion, backrest (leaning back) and headrest
        b.add_grid(
            rounded_box((xs - 0.05, yy - 0.26, zs - 0.42), (xs + 0.45, yy + 0.26, zs - 0.2), 0.3),
            m.SEAT,
        )
        u = np.linspace(0, 1, 10)[:, None]
        back = rounded_box((-0.08, yy - 0.26, -0.5), (0.08, yy + 0.26, 0.22), 0.3)
        lean = 0.22
        bx = back[..., 0] - lean * (back[..., 2] + 0.5) + xs - 0.02
        bz = back[..., 2] + zs + 0.02
        b.add_grid(np.stack([bx, back[..., 1], bz], -1), m.SEAT)
        del u
        hx = xs - 0.02 - lean * 0.75 - 0.02
        b.add_grid(
            rounded_box((hx - 0.06, yy - 0.13, zs + 0.22), (hx + 0.06, yy + 0.13, zs + 0.37), 0.5),
            m.SEAT,
        )


def _decal_params(
    sp: CarSpec,
    style: str,
    e: float,
    rng: np.random.Generator,
    mk: np.random.Generator,
    s: F64,
    w: F64,
    belt: F64,
    x_fw: float,
    x_rw: float,
    arch_r: float,
    R: float,
) -> F64:
    L = sp.length
    p = np.zeros(m.N_PARAMS)

    def x_of(s_: float) -> float:
        return L / 2 - s_

    p[m.X_FRONT] = L / 2
    p[m.X_REAR] = -L / 2
    p[m.X_A] = x_of(sp.a * L)
    p[m.X_RF] = x_of(sp.rf * L)
    p[m.X_RR] = x_of(sp.rr * L)
    if sp.rear == "pickup":
        # the cab's rear glass sits on its back wall only, not on the flat roof in front of it
        p[m.X_RR] = x_of(sp.c * L - 0.07)
    gh_end = {"notch": sp.c, "fast": sp.c, "pickup": sp.c, "open": sp.c}.get(sp.rear, 1.0)
    if sp.truck_box:
        gh_end = sp.c
    p[m.X_GH_END] = x_of(gh_end * L)
    if gh_end >= 1.0:
        # the greenhouse runs onto the tail's end cap (box and hatch rears): include it, or the
        # rear window of an SUV, van or bus would be painted over
        p[m.X_GH_END] = x_of(L) - 0.25
    w_mid = float(np.interp(L / 2, s, w))
    belt_mid = float(np.interp(L / 2, s, belt))
    # make family traits
    gr_type = int(mk.integers(0, 4))
    hl_type = int(mk.integers(0, 4))
    p[m.GR_TYPE] = gr_type
    p[m.GR_BARS] = float(mk.integers(3, 8))
    p[m.HL_TYPE] = hl_type
    p[m.PILLAR_BLACK] = 1.0 if mk.uniform() < 0.35 + 0.5 * e else 0.0
    p[m.ROOF_BLACK] = (
        1.0 if (style in ("crossover", "hatchback", "suv") and mk.uniform() < 0.25) else 0.0
    )
    p[m.TL_BAR] = 1.0 if (e > 0.8 and mk.uniform() < 0.55) else 0.0
    p[m.DRL] = 1.0 if e > 0.6 else 0.0
    # windows
    s_a, s_rr = sp.a * L, sp.rr * L
    win_front_s = s_a + 0.02
    if sp.rear in ("notch", "fast"):
        win_rear_s = s_rr + (sp.c * L - s_rr) * (0.15 if sp.rear == "notch" else 0.45)
    elif sp.rear == "pickup":
        win_rear_s = sp.c * L - 0.1
    elif sp.rear == "open":
        win_rear_s = s_a
    else:
        win_rear_s = L - 0.14 - 0.1 * e
    p[m.WIN_FRONT] = x_of(win_front_s)
    p[m.WIN_REAR] = x_of(win_rear_s)
    p[m.PILLAR_W] = 0.075 if L < 6 else 0.12
    p[m.WIN_TOP_INSET] = 0.05 if L < 6 else 0.3
    p[m.WIN_BOTTOM] = 0.012
    pillars: list[float] = []
    span = win_rear_s - win_front_s
    if sp.windows == "bus":
        n = max(2, int(span / 1.25))
        pillars = [win_front_s + 1.4 + (span - 1.4) * k / n for k in range(n)]
    elif sp.windows == "front":
        p[m.WIN_REAR] = x_of(s_a + 0.95)
    elif sp.doors == 2:
        if sp.rear != "open":
            pillars = [win_front_s + span * 0.72]
    elif sp.rear == "pickup":
        pillars = [win_front_s + span * 0.52]
    else:
        b_pos = s_a + (0.45 * span if style != "kei" else 0.5 * span)
        b_pos = max(b_pos, s_a + 0.85)
        pillars = [b_pos]
        if sp.rear in ("box", "hatch") and win_rear_s - b_pos > 1.4:
            pillars.append(b_pos + (win_rear_s - b_pos) * (0.62 if style != "minivan" else 0.6))
    p[m.N_PILLARS] = len(pillars)
    for k, ps in enumerate(pillars[:12]):
        p[m.PILLAR0 + k] = x_of(ps)
    # doors: seam positions
    seams: list[float] = []
    if sp.windows == "bus":
        seams = [0.25, 1.3]
    elif sp.doors == 2:
        seams = [s_a + 0.05, s_a + 1.25 if L > 4.3 else s_a + 1.1]
    elif sp.doors == 5:
        seams = [s_a + 0.03, s_a + 1.0, s_a + 1.05 + 0.8 * 0 + 0.02, s_a + 1.95]
    else:
        b_pos = pillars[0] if pillars else s_a + 1.0
        seams = [s_a + 0.03, b_pos, min(b_pos + 1.0, L - sp.rear_oh - arch_r + 0.1)]
        if sp.rear == "pickup":
            seams[2] = min(seams[2], sp.c * L - 0.1)
    p[m.DOOR_N] = len(seams)
    for k, ss in enumerate(seams[:4]):
        p[m.DOOR0 + k] = x_of(ss)
    p[m.HANDLE_Z] = belt_mid - 0.09
    p[m.ROCKER_H] = sp.clearance + 0.09
    p[m.CLADDING] = 1.0 if sp.cladding else 0.0
    if sp.rear == "pickup":
        p[m.BED_FRONT] = x_of(sp.c * L + 0.06)
        p[m.BED_REAR] = x_of(L - 0.06)
    if sp.rear == "open":
        p[m.CABIN_FRONT] = x_of(s_a + 0.12)
        p[m.CABIN_REAR] = x_of(sp.c * L - 0.35)
    # lights (front view coordinates |y|, z)
    nose = sp.nose_z
    w_front = float(np.interp(0.2, s, w))
    hl_h = (
        {0: 0.075, 1: 0.05, 2: 0.085, 3: 0.035}[hl_type] * (1.25 - 0.35 * e) * (1.6 if L > 6 else 1)
    )
    hl_w = {0: 0.2, 1: 0.23, 2: 0.14, 3: 0.27}[hl_type] * (1 + float(mk.uniform(-0.1, 0.1)))
    if L > 6:
        hl_w = 0.22
    p[m.HL_W] = hl_w
    p[m.HL_H] = hl_h
    p[m.HL_Y] = w_front - hl_w - 0.01
    p[m.HL_Z] = nose - hl_h - 0.04 if L < 6 else sp.clearance + 0.55
    p[m.HL_SLANT] = {0: 0.0, 1: 0.35, 2: 0.1, 3: 0.2}[hl_type] * e
    p[m.HL_ROUND] = {0: 0.25, 1: 0.5, 2: 0.9, 3: 0.8}[hl_type] * (0.4 + 0.6 * e)
    gr_w = (0.28 + float(mk.uniform(0, 0.18))) * w_front / 0.8
    gr_h = (0.08 + float(mk.uniform(0, 0.09))) * (1.4 if style in ("suv", "pickup", "truck") else 1)
    p[m.GR_W] = min(gr_w, p[m.HL_Y] - hl_w - 0.02) if L < 6 else w_front * 0.55
    p[m.GR_H] = gr_h
    p[m.GR_Z] = p[m.HL_Z] - hl_h * 0.2 - gr_h * 0.4
    p[m.GR_ROUND] = float(mk.uniform(0.1, 0.9))
    p[m.GR_TAPER] = float(mk.uniform(-0.2, 0.35))
    if p[m.GR_W] < 1.8 * p[m.GR_H]:
        # a narrow nose (kei, small cars): a wide, shallow slot between the lamps, never an oval
        p[m.GR_H] = max(0.035, min(p[m.GR_H], p[m.GR_W] / 1.8))
        p[m.GR_ROUND] = min(p[m.GR_ROUND], 0.45)
        p[m.GR_TAPER] = min(p[m.GR_TAPER], 0.1)
    p[m.LI_Z] = sp.clearance + 0.16
    p[m.LI_W] = w_front * (0.45 + float(mk.uniform(0, 0.2)))
    p[m.LI_H] = 0.05 + float(mk.uniform(0, 0.04))
    w_rear = float(np.interp(L - 0.2, s, w))
    tl_w = (0.16 + float(mk.uniform(0, 0.1))) if L < 6 else 0.15
    tl_h = (0.05 + float(mk.uniform(0, 0.05))) * (1.3 - 0.3 * e)
    p[m.TL_W] = tl_w
    p[m.TL_H] = tl_h
    p[m.TL_Y] = w_rear - tl_w - 0.01
    top_rear = float(np.interp(L - 0.15, s, belt))
    if sp.rear in ("box", "pickup") or sp.truck_box:
        p[m.TL_Z] = sp.clearance + (0.55 if L < 6 else 0.5)
        if style in ("suv", "minivan", "kei", "van", "pickup"):
            p[m.TL_H] = tl_h * 1.6
            p[m.TL_W] = 0.1
            p[m.TL_Y] = w_rear - 0.1 - 0.01
            p[m.TL_Z] = top_rear - 0.12
    else:
        p[m.TL_Z] = sp.tail_z - tl_h - 0.06
    p[m.RIM_N] = float(rng.choice([5, 5, 6, 7, 10, 5]))
    p[m.RIM_STYLE] = float(rng.integers(0, 4))
    if p[m.RIM_STYLE] == 2:
        p[m.RIM_N] = 8.0
    p[m.RIM_W] = float(rng.uniform(0.1, 0.2))
    p[m.RIM_DARK] = 1.0 if rng.uniform() < 0.2 else 0.0
    if L > 6:
        p[m.RIM_STYLE], p[m.RIM_N], p[m.RIM_W] = 3.0, 8.0, 0.2
    p[m.IS_CAR] = 1.0
    p[m.WHEEL_F] = x_fw
    p[m.WHEEL_R] = x_rw
    p[m.ARCH_R] = arch_r
    p[m.AXLE_Z] = R
    p[m.ROOF_Z] = sp.height
    p[m.CLEARANCE] = sp.clearance
    del w_mid, rng
    return p
