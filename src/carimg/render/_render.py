"""The render path: appearance → model → camera → visibility buffer → shading → shadow → RGBA."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from carimg.render._appearance import Appearance
from carimg.render._composite import composite, srgb_lut
from carimg.render._model import VehicleModel
from carimg.render._palette import FINISHES, resolve_paint
from carimg.render._raster import rasterize
from carimg.render._shade import resolve
from carimg.render._studio import studio_map
from carimg.render._views import VIEW_YAWS

SOURCE_SIZE = 1024
SUPERSAMPLE = 2
# a tripod at about headlamp height: the face fills the front view (at 8° the bonnet and screen
# took a third of it, and every front view read as a van)
ELEVATION_DEG = 5.0
_LUT = srgb_lut()


class ViewError(ValueError):
    """The view is not one of VIEW_YAWS, or the yaw is outside 0–359."""


@dataclass(frozen=True, slots=True)
class SourceRender:
    """A source render and its paint mask (fraction of each pixel covered by visible paint)."""

    rgba: NDArray[np.uint8]  # (H, W, 4) straight alpha
    paint_mask: NDArray[np.float32]  # (H, W) 0..1


@dataclass(frozen=True, slots=True)
class Camera:
    pos: NDArray[np.float64]
    right: NDArray[np.float64]
    up: NDArray[np.float64]
    fwd: NDArray[np.float64]
    facing: NDArray[np.float64]  # horizontal unit vector from the vehicle to the camera
    focal: float  # pixels (output resolution)
    cx: float
    cy: float


def build_model(app: Appearance) -> VehicleModel:
    """The vehicle geometry for an appearance."""
    if app.body_style in ("motorcycle", "scooter", "auto-rickshaw"):
        from carimg.render._bikes import build_small

        return build_small(app)
    from carimg.render._cars import build_car

    return build_car(app)


def yaw_for(view: str | None, yaw: int | None) -> float:
    if yaw is not None:
        if not 0 <= yaw <= 359:
            raise ViewError(f"yaw {yaw} out of range 0–359")
        return float(yaw)
    if view not in VIEW_YAWS:
        raise ViewError(f"unknown view {view!r}; expected one of {tuple(VIEW_YAWS)}")
    return float(VIEW_YAWS[view])


def make_camera(model: VehicleModel, yaw_deg: float, size: int = SOURCE_SIZE) -> Camera:
    """A slightly elevated, long-lens camera at `yaw_deg` that frames the vehicle."""
    lo, hi = model.bounds
    target = np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, hi[2] * 0.42])
    ext = float(np.max(hi - lo))
    dist = 3.0 * ext + 6.0
    el = math.radians(ELEVATION_DEG)
    yaw = math.radians(yaw_deg)
    facing = np.array([math.cos(yaw), math.sin(yaw)])
    pos = target + dist * np.array(
        [math.cos(el) * facing[0], math.cos(el) * facing[1], math.sin(el)]
    )
    fwd = target - pos
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, np.array([0.0, 0.0, 1.0]))
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    rel = model.mesh.verts - pos
    zc = rel @ fwd
    u = (rel @ right) / zc
    v = (rel @ up) / zc
    side = abs(math.sin(yaw))
    frac_w = 0.62 + 0.18 * min(1.0, side / 0.5)
    frac_h = 0.72
    focal = min(frac_w * size / float(np.ptp(u)), frac_h * size / float(np.ptp(v)))
    cx = size / 2 - focal * float(u.min() + u.max()) / 2
    cy = size * 0.5 + focal * float(v.min() + v.max()) / 2
    return Camera(pos, right, up, fwd, facing, focal, cx, cy)


def _box_blur(a: NDArray[np.float64], r: int, axis: int) -> NDArray[np.float64]:
    if r <= 0:
        return a
    pad = [(0, 0), (0, 0)]
    pad[axis] = (r + 1, r)
    c = np.cumsum(np.pad(a, pad), axis=axis)
    n = a.shape[axis]
    hi = np.take(c, np.arange(2 * r + 1, 2 * r + 1 + n), axis=axis)
    lo = np.take(c, np.arange(0, n), axis=axis)
    return np.asarray((hi - lo) / (2 * r + 1), dtype=np.float64)


def _blur(a: NDArray[np.float64], sigma_cells: float) -> NDArray[np.float64]:
    r = max(1, round(sigma_cells * 0.9))
    out = a
    for _ in range(3):
        out = _box_blur(_box_blur(out, r, 0), r, 1)
    return out


def ground_occlusion(model: VehicleModel) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Shadow opacity on the ground plane under the vehicle: tight contact plus soft ambient.

    Returns the map and (x0, y0, cell) of its grid.
    """
    lo, hi = model.bounds
    scale = max(1.0, float(hi[0] - lo[0]) / 5.0)
    cell = 0.025 * scale
    margin = 1.0 * scale
    gx0, gy0 = lo[0] - margin, lo[1] - margin
    nx = math.ceil((hi[0] - lo[0] + 2 * margin) / cell)
    ny = math.ceil((hi[1] - lo[1] + 2 * margin) / cell)
    v = model.mesh.verts
    depth, tid, _, _ = rasterize(
        (v[:, 0] - gx0) / cell, (v[:, 1] - gy0) / cell, v[:, 2] + 1.0, model.mesh.tris, nx, ny
    )
    h = np.where(tid >= 0, depth.astype(np.float64) - 1.0, np.inf)
    h = np.maximum(h, 0.0)
    # where the tyres meet the floor: a tight, dark line, then a contact shadow, then the broad
    # ambient occlusion under the body
    touch = _blur(np.exp(-h / 0.012), 0.012 / cell)
    contact = _blur(np.exp(-h / 0.06), 0.03 / cell)
    ambient = _blur(np.exp(-h / (0.45 * scale)), 0.30 * scale / cell)
    occ = 1.0 - (
        (1.0 - 0.95 * np.clip(touch * 2.0, 0, 1))
        * (1.0 - 0.9 * np.clip(contact * 1.6, 0, 1))
        * (1.0 - 0.62 * np.clip(ambient, 0, 1))
    )
    return np.ascontiguousarray(occ), np.array([gx0, gy0, cell])


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def render_model(
    model: VehicleModel, yaw_deg: float, paint: str, size: int = SOURCE_SIZE
) -> SourceRender:
    """Render a built model; see `render_source`."""
    rgb, finish = resolve_paint(paint)
    base = np.array([_linear(c) for c in rgb])
    cam = make_camera(model, yaw_deg, size)
    ss = SUPERSAMPLE
    mesh = model.mesh
    rel = mesh.verts - cam.pos
    zc = rel @ cam.fwd
    sx = (cam.cx + cam.focal * (rel @ cam.right) / zc) * ss
    sy = (cam.cy - cam.focal * (rel @ cam.up) / zc) * ss
    # back faces of closed surfaces can never be seen: drop them before rasterizing (about half
    # of the triangles, and most of the overdraw in front and rear views)
    p0 = mesh.verts[mesh.tris[:, 0]]
    away = mesh.closed & (np.einsum("ij,ij->i", mesh.outward, p0 - cam.pos) > 0.0)
    keep = np.flatnonzero(~away)
    tris = np.ascontiguousarray(mesh.tris[keep])
    mats = np.ascontiguousarray(mesh.mats[keep])
    parts = np.ascontiguousarray(mesh.parts[keep])
    _, tid, b0, b1 = rasterize(sx, sy, zc, tris, size * ss, size * ss)
    out_rgb = np.zeros((size, size, 3), dtype=np.float64)
    out_cov = np.zeros((size, size), dtype=np.float64)
    out_paint = np.zeros((size, size), dtype=np.float64)
    resolve(
        tid, b0, b1, ss, mesh.verts, mesh.normals, mesh.attrs, tris, mats, parts,
        cam.pos.astype(np.float64), cam.facing.astype(np.float64), cam.focal * ss, base,
        FINISHES.index(finish), model.decal, model.profile, studio_map(), out_rgb, out_cov,
        out_paint,
    )  # fmt: skip
    occ, grid = ground_occlusion(model)
    cam_vec = np.concatenate(
        [cam.pos, cam.fwd, cam.right, cam.up, np.array([cam.focal, cam.cx, cam.cy])]
    ).astype(np.float64)
    # screen box of the occlusion map's ground rectangle: the shadow ray test runs only there
    gx = grid[0] + np.array([0.0, occ.shape[1], 0.0, occ.shape[1]]) * grid[2]
    gy = grid[1] + np.array([0.0, 0.0, occ.shape[0], occ.shape[0]]) * grid[2]
    corners = np.stack([gx, gy, np.zeros(4)], axis=1) - cam.pos
    zc_g = corners @ cam.fwd
    if bool((zc_g > 1e-6).all()):
        px = cam.cx + cam.focal * (corners @ cam.right) / zc_g
        py = cam.cy - cam.focal * (corners @ cam.up) / zc_g
        box = np.array(
            [math.floor(px.min()) - 2, math.floor(py.min()) - 2,
             math.ceil(px.max()) + 2, math.ceil(py.max()) + 2], dtype=np.int64,
        )  # fmt: skip
    else:
        box = np.array([0, 0, size, size], dtype=np.int64)
    rgba = np.empty((size, size, 4), dtype=np.uint8)
    composite(out_rgb, out_cov, occ, grid, cam_vec, _LUT, rgba, box)
    return SourceRender(rgba=rgba, paint_mask=out_paint.astype(np.float32))


def render_source_layers(
    appearance: Appearance,
    view: str | None,
    paint: str,
    *,
    yaw: int | None = None,
    size: int = SOURCE_SIZE,
) -> SourceRender:
    """The source render plus its paint mask (for measuring paint colour).

    `size` renders a smaller square (previews, tests); the service always uses SOURCE_SIZE.
    """
    return render_model(build_model(appearance), yaw_for(view, yaw), paint, size)


def render_source(
    appearance: Appearance, view: str | None, paint: str, *, yaw: int | None = None
) -> NDArray[np.uint8]:
    """The 1024×1024 RGBA (straight alpha) studio render of a vehicle.

    `view` is a key of VIEW_YAWS; pass `view=None, yaw=<0–359>` for any other angle. `paint` is a
    preset
    name or `#RRGGBB`.
    """
    return render_source_layers(appearance, view, paint, yaw=yaw).rgba


def encode_source_png(rgba: NDArray[np.uint8]) -> bytes:
    """PNG bytes of a source render; equal arrays give equal bytes."""
    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba), "RGBA").save(buf, "PNG", compress_level=6)
    return buf.getvalue()
