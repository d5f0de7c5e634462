"""Two- and three-wheelers: motorcycle, scooter and auto-rickshaw, assembled from primitives.

They share nothing with the car body shell: frames and forks are tubes, tanks and panels are
superellipsoids, wheels are thin tyres with spoked rims.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from carimg.catalog import Generation, load_design_data
from carimg.render import _materials as m
from carimg.render._appearance import Appearance, stable_seed
from carimg.render._cars import add_wheel, era
from carimg.render._mesh import (
    F64,
    Mesh,
    MeshBuilder,
    outward_faces,
    rounded_box,
    superellipsoid,
    tube,
)
from carimg.render._model import PROFILE_SAMPLES, VehicleModel

P3 = tuple[float, float, float]


def _ell(b: MeshBuilder, c: P3, r: P3, mat: int, e1: float = 1.0, e2: float = 1.0) -> None:
    b.add_grid(superellipsoid(c, r, e1, e2, nu=16, nv=28), mat)


def _tube(b: MeshBuilder, p0: P3, p1: P3, r: float, mat: int, mirror: bool = False) -> None:
    b.add_grid(tube(p0, p1, r), mat, wrap_v=True, mirror_y=mirror)


def _fender(
    b: MeshBuilder, x: float, z: float, radius: float, a0: float, a1: float, width: float, mat: int
) -> None:
    """A curved mudguard band over a wheel, angles in degrees from the +x axis (xz plane)."""
    ang = np.radians(np.linspace(a0, a1, 24))[:, None]
    yy = np.linspace(-width / 2, width / 2, 7)[None, :]
    rr = radius + 0.03 * (1 - (2 * yy / width) ** 2)
    rr = rr - 0.02 * ((2 * yy / width) ** 4)
    pts = np.stack([x + rr * np.cos(ang), yy * np.ones_like(ang), z + rr * np.sin(ang)], axis=-1)
    b.add_grid(pts, mat, orient="auto")


def _motorcycle_style(record: Generation | None, rng: np.random.Generator) -> str:
    """The frame family: from the record's proportions where there is one, else by seed."""
    if record is None:
        return ["naked", "sport", "cruiser", "adventure"][int(rng.integers(0, 4))]
    if record.height >= 1330:
        return "adventure"
    if record.wheelbase >= 1560 and record.height <= 1250:
        return "cruiser"
    if record.headlamps in ("slim", "split", "swept", "stacked"):
        return "sport"
    return "naked"


def _motorcycle(b: MeshBuilder, rng: np.random.Generator, e: float, style: str) -> None:
    wb = {"naked": 1.42, "sport": 1.4, "cruiser": 1.65, "adventure": 1.52}[style]
    wb *= 1 + float(rng.uniform(-0.03, 0.03))
    rf = {"naked": 0.305, "sport": 0.3, "cruiser": 0.33, "adventure": 0.345}[style]
    rr = 0.31 if style != "cruiser" else 0.32
    xf, xr = wb / 2, -wb / 2
    add_wheel(b, xf, 0.0, rf, 0.12, 0.78, centred=True)
    add_wheel(b, xr, 0.0, rr, 0.17 if style != "adventure" else 0.14, 0.78, centred=True)
    rake = {"naked": 0.42, "sport": 0.4, "cruiser": 0.62, "adventure": 0.45}[style]
    head_z = {"naked": 1.0, "sport": 0.95, "cruiser": 0.95, "adventure": 1.12}[style]
    head = (xf - rake * (head_z - rf) / 0.9 * 0.55, 0.0, head_z)
    fork_col = m.CHROME if style == "cruiser" else m.METAL
    for yy in (0.085, -0.085):
        _tube(b, (xf, yy, rf), (head[0], yy, head[2] + 0.04), 0.028, fork_col)
    _fender(b, xf, rf, rf + 0.02, 25, 140 if style != "adventure" else 110, 0.14, m.PAINT)
    # handlebar
    bar_z = head_z + {"naked": 0.12, "sport": 0.0, "cruiser": 0.22, "adventure": 0.2}[style]
    bar_x = head[0] - (0.08 if style != "cruiser" else 0.2)
    bar_w = {"naked": 0.38, "sport": 0.33, "cruiser": 0.45, "adventure": 0.44}[style]
    _tube(b, (head[0], 0.0, head[2] + 0.04), (bar_x, 0.0, bar_z), 0.02, m.TRIM)
    _tube(b, (bar_x, -bar_w, bar_z), (bar_x, bar_w, bar_z), 0.014, m.CHROME)
    for yy in (bar_w, -bar_w):
        _tube(b, (bar_x, yy * 0.85, bar_z), (bar_x, yy * 1.05, bar_z), 0.02, m.TRIM)
    # mirrors
    for yy in (0.26, -0.26):
        _tube(b, (bar_x + 0.02, yy, bar_z), (bar_x, yy * 1.2, bar_z + 0.2), 0.008, m.TRIM)
        _ell(b, (bar_x, yy * 1.2, bar_z + 0.22), (0.02, 0.06, 0.04), m.TRIM)
    # engine and frame
    _ell(b, (0.05, 0.0, 0.5), (0.26, 0.16, 0.2), m.METAL, 0.35, 0.35)
    _ell(b, (0.16, 0.0, 0.72), (0.11, 0.13, 0.12), m.METAL, 0.4, 0.4)
    for k in range(5):
        _ell(b, (0.16, 0.0, 0.66 + 0.035 * k), (0.13, 0.15, 0.008), m.METAL, 0.4, 0.4)
    _ell(b, (0.02, 0.0, 0.36), (0.22, 0.18, 0.08), m.TRIM, 0.4, 0.4)
    _tube(b, head, (-0.15, 0.0, 0.85), 0.03, m.TRIM)
    _tube(b, head, (0.3, 0.0, 0.4), 0.03, m.TRIM)
    for yy in (0.1, -0.1):
        _tube(b, (-0.18, yy, 0.42), (xr, yy, rr), 0.028, m.METAL)
        _tube(b, (xr + 0.28, yy * 1.2, rr + 0.1), (-0.3, yy * 1.2, 0.85), 0.022, m.CHROME)
    # tank, seat, tail
    tank_len = {"naked": 0.27, "sport": 0.28, "cruiser": 0.3, "adventure": 0.3}[style]
    tank_z = head_z - 0.08 if style != "cruiser" else 0.88
    _ell(b, (head[0] - tank_len - 0.02, 0.0, tank_z), (tank_len, 0.16, 0.12), m.PAINT, 0.8, 0.8)
    seat_z = {"naked": 0.86, "sport": 0.88, "cruiser": 0.72, "adventure": 0.92}[style]
    seat_x = head[0] - 2 * tank_len - 0.28
    _ell(b, (seat_x, 0.0, seat_z), (0.3, 0.145, 0.06), m.SEAT, 0.6, 0.6)
    _ell(b, (seat_x + 0.05, 0.0, seat_z - 0.12), (0.28, 0.13, 0.09), m.PAINT, 0.6, 0.6)
    tail_z = seat_z + (0.1 if style == "sport" else 0.02)
    _ell(b, (xr + 0.1, 0.0, tail_z), (0.24, 0.09, 0.06), m.PAINT, 0.7, 0.7)
    _ell(b, (xr - 0.12, 0.0, tail_z), (0.03, 0.06, 0.03), m.TAILLIGHT, 0.6, 0.6)
    cruiser = style == "cruiser"
    _fender(b, xr, rr, rr + 0.03, 40 if cruiser else 60, 150, 0.18, m.PAINT if cruiser else m.TRIM)
    # exhaust on the right
    _tube(b, (0.22, -0.1, 0.45), (-0.1, -0.18, 0.3), 0.03, m.CHROME)
    muffler_z = 0.42 + (0.2 if style == "sport" else 0.0)
    _tube(b, (-0.1, -0.18, 0.3), (xr + 0.05, -0.2, muffler_z), 0.05, m.CHROME)
    # front: headlight, fairing
    if style in ("sport", "adventure"):
        fx = head[0] + 0.05
        _ell(b, (fx, 0.0, head_z - 0.1), (0.26, 0.2, 0.2), m.PAINT, 0.8, 0.9)
        _ell(b, (fx + 0.2, 0.0, head_z - 0.12), (0.06, 0.11, 0.05), m.HEADLIGHT, 0.6, 0.6)
        _ell(b, (fx - 0.02, 0.0, head_z + 0.12), (0.12, 0.15, 0.09), m.GLASS, 0.9, 0.9)
        if style == "sport":
            _ell(b, (0.12, 0.0, 0.55), (0.34, 0.2, 0.2), m.PAINT, 0.8, 0.8)
    else:
        _ell(b, (head[0] + 0.12, 0.0, head_z - 0.04), (0.07, 0.095, 0.095), m.CHROME)
        _ell(b, (head[0] + 0.17, 0.0, head_z - 0.04), (0.035, 0.08, 0.08), m.HEADLIGHT)
    for yy in (0.16, -0.16):
        _tube(b, (0.0, yy * 0.6, 0.42), (0.0, yy * 1.5, 0.42), 0.015, m.TRIM)


def _scooter(b: MeshBuilder, rng: np.random.Generator, e: float) -> None:
    R = 0.21 + float(rng.uniform(0, 0.04))
    xf, xr = 0.64, -0.6
    add_wheel(b, xf, 0.0, R, 0.11, 0.72, centred=True)
    add_wheel(b, xr, 0.0, R, 0.12, 0.72, centred=True)
    _tube(b, (xf, 0.0, R), (0.5, 0.0, 1.0), 0.03, m.METAL)
    _fender(b, xf, R, R + 0.03, 30, 150, 0.14, m.PAINT)
    _ell(b, (0.46, 0.0, 0.68), (0.1, 0.23, 0.36), m.PAINT, 0.7, 0.7)
    _ell(b, (0.47, 0.0, 1.04), (0.12, 0.3, 0.065), m.PAINT, 0.6, 0.6)
    _ell(b, (0.57, 0.0, 1.03), (0.04, 0.1, 0.035), m.HEADLIGHT, 0.6, 0.6)
    _ell(b, (0.55, 0.0, 0.78), (0.03, 0.08, 0.06), m.HEADLIGHT, 0.6, 0.6)
    _tube(b, (0.47, -0.36, 1.05), (0.47, 0.36, 1.05), 0.018, m.TRIM)
    for yy in (0.22, -0.22):
        _tube(b, (0.47, yy, 1.06), (0.44, yy * 1.25, 1.28), 0.008, m.TRIM)
        _ell(b, (0.44, yy * 1.25, 1.3), (0.02, 0.055, 0.04), m.TRIM)
    b.add_grid(rounded_box((-0.15, -0.17, 0.26), (0.42, 0.17, 0.34), 0.25), m.TRIM)
    _ell(b, (-0.42, 0.0, 0.58), (0.42, 0.19, 0.25), m.PAINT, 0.55, 0.7)
    _ell(b, (-0.36, 0.0, 0.83), (0.34, 0.15, 0.06), m.SEAT, 0.55, 0.55)
    _ell(b, (-0.82, 0.0, 0.66), (0.03, 0.1, 0.035), m.TAILLIGHT, 0.6, 0.6)
    b.add_grid(rounded_box((-0.7, 0.04, 0.14), (-0.2, 0.17, 0.34), 0.3), m.METAL)
    _tube(b, (-0.3, -0.1, 0.3), (-0.78, -0.14, 0.36), 0.04, m.CHROME)


def _rickshaw(b: MeshBuilder, rng: np.random.Generator, e: float) -> None:
    R = 0.22
    xf, xr, yr = 0.98, -0.55, 0.58
    add_wheel(b, xf, 0.0, R, 0.12, 0.6, centred=True)
    add_wheel(b, xr, yr, R, 0.12, 0.6)
    _fender(b, xf, R, R + 0.04, 20, 160, 0.16, m.PAINT)
    _tube(b, (xf, 0.0, R), (0.82, 0.0, 0.85), 0.03, m.METAL)
    # rear tub and front cowl (paint)
    b.add_grid(rounded_box((-1.1, -0.68, 0.3), (0.3, 0.68, 0.82), 0.25), m.PAINT)
    b.add_grid(rounded_box((0.15, -0.42, 0.36), (0.95, 0.42, 0.82), 0.35), m.PAINT)
    _ell(b, (0.86, 0.0, 0.92), (0.14, 0.3, 0.14), m.PAINT, 0.6, 0.6)
    _ell(b, (0.99, 0.0, 0.93), (0.04, 0.09, 0.08), m.HEADLIGHT)
    # windshield
    u = np.linspace(0, 1, 6)[:, None]
    v = np.linspace(-1, 1, 10)[None, :]
    ws = np.stack(
        [(0.86 - 0.18 * u) * np.ones_like(v) + 0.04 * v**2, 0.52 * v * np.ones_like(u),
         (1.0 + 0.52 * u) * np.ones_like(v)], -1,
    )  # fmt: skip
    b.add_grid(ws, m.GLASS, orient="keep")
    # canopy on posts
    b.add_grid(rounded_box((-1.18, -0.74, 1.52), (0.78, 0.74, 1.72), 0.3), m.CANVAS)
    for x0, x1 in ((0.82, 0.66), (-1.08, -1.1)):
        _tube(b, (x0, 0.5, 0.9), (x1, 0.68, 1.55), 0.022, m.TRIM, mirror=True)
    # rear curtain: inset from the canopy's back and below its hem, so no two faces are coplanar
    b.add_grid(rounded_box((-1.13, -0.7, 0.84), (-1.03, 0.7, 1.5), 0.2), m.CANVAS)
    # seats
    b.add_grid(rounded_box((-0.95, -0.6, 0.78), (-0.45, 0.6, 0.9), 0.35), m.SEAT)
    b.add_grid(rounded_box((-1.0, -0.6, 0.88), (-0.88, 0.6, 1.3), 0.35), m.SEAT)
    b.add_grid(rounded_box((0.05, -0.25, 0.82), (0.38, 0.25, 0.92), 0.35), m.SEAT)
    _tube(b, (0.72, -0.34, 1.08), (0.72, 0.34, 1.08), 0.015, m.TRIM)
    for yy in (0.5, -0.5):
        _ell(b, (-1.11, yy, 0.7), (0.02, 0.07, 0.05), m.TAILLIGHT)
    b.add_grid(rounded_box((-1.12, -0.62, 0.26), (-0.9, 0.62, 0.34), 0.4), m.TRIM)


def fit_to_record(mesh: Mesh, record: Generation) -> Mesh:
    """Stretch the frame to the record's length, height and wheelbase; wheels stay round.

    Wheels are moved and scaled as rigid parts to the record's axles and tyre diameter; the
    rest of the mesh is scaled along x (to the wheelbase) and z (to the height). Two passes: the
    wheels' new size changes the overall extents the first pass measured.
    """
    for _ in range(3):
        mesh = _fit_once(mesh, record)
    return mesh


def _fit_once(mesh: Mesh, record: Generation) -> Mesh:
    verts = mesh.verts.copy()
    normals = mesh.normals.copy()
    wheel_tris = np.isin(mesh.mats, (m.TIRE, m.RIM))
    wheel_verts = np.zeros(len(verts), dtype=bool)
    wheel_verts[mesh.tris[wheel_tris].ravel()] = True
    wheel_x = verts[wheel_verts, 0]
    middle = (wheel_x.min() + wheel_x.max()) / 2
    groups = [wheel_verts & (verts[:, 0] > middle), wheel_verts & (verts[:, 0] <= middle)]
    centres = [(verts[g, 0].min() + verts[g, 0].max()) / 2 for g in groups]
    radii = [(verts[g, 2].max() - verts[g, 2].min()) / 2 for g in groups]
    sx = record.wheelbase / 1000 / (centres[0] - centres[1])
    others = ~wheel_verts
    extent_z = float(verts[:, 2].max())
    new_r = [record.tyre.diameter / 2000, record.tyre_r.diameter / 2000]
    sz = record.height / 1000 / extent_z
    verts[others, 0] *= sx
    verts[others, 2] *= sz
    normals[others, 0] /= sx
    normals[others, 2] /= sz
    lengths = np.linalg.norm(normals[others], axis=1, keepdims=True)
    normals[others] /= np.maximum(lengths, 1e-12)
    for group, centre, radius, target in zip(groups, centres, radii, new_r, strict=True):
        k = target / radius
        verts[group, 0] = centre * sx + (verts[group, 0] - centre) * k
        verts[group, 1] *= k
        verts[group, 2] = target + (verts[group, 2] - radius) * k
    # the overall length: stretch the non-wheel parts once more so the ends meet the record
    length = float(np.ptp(verts[:, 0]))
    if abs(length * 1000 / record.length - 1) > 0.01:
        mid = (verts[:, 0].max() + verts[:, 0].min()) / 2
        far = np.abs(verts[:, 0] - mid) > (record.wheelbase / 2000)
        stretch = others & far
        verts[stretch, 0] = mid + (verts[stretch, 0] - mid) * (record.length / 1000 / length)
    verts = np.ascontiguousarray(verts)
    normals = np.ascontiguousarray(normals)
    outward = np.empty_like(mesh.outward)
    outward_faces(verts, normals, mesh.tris, outward)
    return replace(mesh, verts=verts, normals=normals, outward=outward)


def build_small(app: Appearance) -> VehicleModel:
    """Mesh for a motorcycle, scooter or auto-rickshaw."""
    rng = np.random.default_rng(stable_seed("model", app.make, app.model, app.variation))
    e = era(app.year)
    record = load_design_data().find(app.make, app.model, app.year, app.body_style)
    if record is not None and record.body != app.body_style:
        record = None
    b = MeshBuilder()
    if app.body_style == "motorcycle":
        _motorcycle(b, rng, e, _motorcycle_style(record, rng))
    elif app.body_style == "scooter":
        _scooter(b, rng, e)
    else:
        _rickshaw(b, rng, e)
    mesh = b.build()
    if record is not None:
        mesh = fit_to_record(mesh, record)
    decal: F64 = np.zeros(m.N_PARAMS)
    decal[m.X_FRONT] = float(mesh.verts[:, 0].max())
    decal[m.X_REAR] = float(mesh.verts[:, 0].min())
    spokes = 5.0 + float(rng.integers(0, 3))
    decal[m.RIM_N] = spokes
    decal[m.RIM_W] = 0.1
    decal[m.RIM_STYLE] = 0.0 if app.body_style != "auto-rickshaw" else 3.0
    decal[m.RIM_DARK] = 1.0 if rng.uniform() < 0.5 else 0.0
    profile: F64 = np.zeros((4, PROFILE_SAMPLES))
    return VehicleModel(mesh=mesh, decal=decal, profile=profile)
