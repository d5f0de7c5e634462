"""Triangle meshes built from parametric grids: lofts, revolved profiles, superellipsoids, tubes.

Every part is a grid of points (u rows × v columns); the builder triangulates it, computes smooth
vertex
normals from the faces, orients them outwards and tags each triangle with a material id and a
part id.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from carimg.render._jit import njit

F64 = NDArray[np.float64]
I32 = NDArray[np.int32]


@dataclass(frozen=True, slots=True)
class Mesh:
    """An indexed triangle mesh with per-vertex normals and 2 free attributes, per-triangle ids."""

    verts: F64  # (n, 3)
    normals: F64  # (n, 3)
    attrs: F64  # (n, 2)
    tris: I32  # (m, 3)
    mats: I32  # (m,) material id
    parts: I32  # (m,) part index (a smooth surface)
    closed: NDArray[np.bool_]  # (m,) the triangle belongs to a closed surface (back-face culled)
    outward: F64  # (m, 3) face normal (unnormalised) pointing out of its surface


Orient = Literal["auto", "keep", "flip", "+y"]


@functools.lru_cache(maxsize=256)
def _grid_tris(nu: int, nv: int, wrap_u: bool, wrap_v: bool) -> I32:
    iu = np.arange(nu if wrap_u else nu - 1)
    iv = np.arange(nv if wrap_v else nv - 1)
    u0, v0 = np.meshgrid(iu, iv, indexing="ij")
    u1 = (u0 + 1) % nu
    v1 = (v0 + 1) % nv
    a = u0 * nv + v0
    b = u1 * nv + v0
    c = u1 * nv + v1
    d = u0 * nv + v1
    t = np.concatenate(
        [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    )
    out = t.astype(np.int32)
    out.setflags(write=False)  # shared between calls (cached)
    return out


@njit(cache=True, nogil=True)
def _face_normal(verts: F64, i0: int, i1: int, i2: int) -> tuple[float, float, float]:
    """Cross product of a triangle's edges (unnormalised: its length is twice the area)."""
    e1x = verts[i1, 0] - verts[i0, 0]
    e1y = verts[i1, 1] - verts[i0, 1]
    e1z = verts[i1, 2] - verts[i0, 2]
    e2x = verts[i2, 0] - verts[i0, 0]
    e2y = verts[i2, 1] - verts[i0, 1]
    e2z = verts[i2, 2] - verts[i0, 2]
    return e1y * e2z - e1z * e2y, e1z * e2x - e1x * e2z, e1x * e2y - e1y * e2x


@njit(cache=True, nogil=True)
def _vertex_normals(verts: F64, tris: I32, out: F64) -> None:
    for t in range(tris.shape[0]):
        i0 = tris[t, 0]
        i1 = tris[t, 1]
        i2 = tris[t, 2]
        fx, fy, fz = _face_normal(verts, i0, i1, i2)
        for i in (i0, i1, i2):
            out[i, 0] += fx
            out[i, 1] += fy
            out[i, 2] += fz
    for i in range(verts.shape[0]):
        ln = math.sqrt(out[i, 0] ** 2 + out[i, 1] ** 2 + out[i, 2] ** 2)
        if ln < 1e-12:
            ln = 1e-12
        out[i, 0] /= ln
        out[i, 1] /= ln
        out[i, 2] /= ln


@njit(cache=True, nogil=True)
def outward_faces(verts: F64, normals: F64, tris: I32, out: F64) -> None:
    """Face normals (unnormalised) flipped to agree with the part's vertex normals."""
    for t in range(tris.shape[0]):
        i0 = tris[t, 0]
        i1 = tris[t, 1]
        i2 = tris[t, 2]
        fx, fy, fz = _face_normal(verts, i0, i1, i2)
        d = 0.0
        for i in (i0, i1, i2):
            d += fx * normals[i, 0] + fy * normals[i, 1] + fz * normals[i, 2]
        sgn = 1.0 if d > 0.0 else (-1.0 if d < 0.0 else 0.0)
        out[t, 0] = fx * sgn
        out[t, 1] = fy * sgn
        out[t, 2] = fz * sgn


def face_normals_to_vertices(verts: F64, tris: I32) -> F64:
    """Area-weighted vertex normals (unnormalised faces summed, then normalised)."""
    out = np.zeros_like(verts)
    _vertex_normals(np.ascontiguousarray(verts), np.ascontiguousarray(tris), out)
    return out


def _is_closed(points: F64, wrap_u: bool, wrap_v: bool) -> bool:
    """Whether a grid encloses a volume: wrapped (or seamed) around v, and wrapped around u or
    collapsed to a point at both u ends (poles of ellipsoids, capsule and loft caps)."""
    tol = 1e-4 * max(float(np.ptp(points.reshape(-1, 3), axis=0).max()), 1e-9)
    seam_v = wrap_v or bool(np.abs(points[:, 0] - points[:, -1]).max() <= tol)
    if not seam_v:
        return False
    if wrap_u:
        return True
    first = float(np.ptp(points[0], axis=0).max())
    last = float(np.ptp(points[-1], axis=0).max())
    return first <= tol and last <= tol


class MeshBuilder:
    """Collects parts and builds one `Mesh`."""

    def __init__(self) -> None:
        self._verts: list[F64] = []
        self._normals: list[F64] = []
        self._attrs: list[F64] = []
        self._tris: list[I32] = []
        self._mats: list[I32] = []
        self._parts: list[I32] = []
        self._closed: list[NDArray[np.bool_]] = []
        self._outward: list[F64] = []
        self._count = 0
        self._part = 0

    def add_grid(
        self,
        points: F64,
        mat: int,
        *,
        wrap_u: bool = False,
        wrap_v: bool = False,
        attrs: F64 | None = None,
        orient: Orient = "auto",
        mirror_y: bool = False,
        closed: bool = False,
    ) -> None:
        """Add a (nu, nv, 3) grid of points as one smooth part (and its y-mirror if asked).

        `closed` says the surface encloses a volume (wrapped both ways, or closed by collapsed
        ends), so its back faces are never seen and the rasterizer may skip them.
        """
        closed = closed or _is_closed(points, wrap_u, wrap_v)
        nu, nv, _ = points.shape
        verts = points.reshape(-1, 3).astype(np.float64)
        tris = _grid_tris(nu, nv, wrap_u, wrap_v)
        normals = face_normals_to_vertices(verts, tris)
        if orient == "auto":
            centre = verts.mean(axis=0)
            if float(np.sum(normals * (verts - centre))) < 0.0:
                normals = -normals
        elif orient == "flip" or (orient == "+y" and float(normals[:, 1].sum()) < 0.0):
            normals = -normals
        at = np.zeros((len(verts), 2)) if attrs is None else attrs.reshape(-1, 2).astype(np.float64)
        self._append(verts, normals, at, tris, mat, closed)
        if mirror_y:
            mv = verts * np.array([1.0, -1.0, 1.0])
            mn = normals * np.array([1.0, -1.0, 1.0])
            self._append(mv, mn, at.copy(), tris[:, ::-1].copy(), mat, closed)

    def _append(
        self, verts: F64, normals: F64, attrs: F64, tris: I32, mat: int, closed: bool
    ) -> None:
        self._verts.append(verts)
        self._normals.append(normals)
        self._attrs.append(attrs)
        self._tris.append((tris + self._count).astype(np.int32))
        self._mats.append(np.full(len(tris), mat, dtype=np.int32))
        self._parts.append(np.full(len(tris), self._part, dtype=np.int32))
        self._closed.append(np.full(len(tris), closed, dtype=np.bool_))
        outward = np.empty((len(tris), 3))
        outward_faces(
            np.ascontiguousarray(verts), np.ascontiguousarray(normals), np.ascontiguousarray(tris),
            outward,
        )  # fmt: skip
        self._outward.append(outward)
        self._count += len(verts)
        self._part += 1

    def build(self) -> Mesh:
        return Mesh(
            verts=np.ascontiguousarray(np.concatenate(self._verts)),
            normals=np.ascontiguousarray(np.concatenate(self._normals)),
            attrs=np.ascontiguousarray(np.concatenate(self._attrs)),
            tris=np.ascontiguousarray(np.concatenate(self._tris)),
            mats=np.ascontiguousarray(np.concatenate(self._mats)),
            parts=np.ascontiguousarray(np.concatenate(self._parts)),
            closed=np.ascontiguousarray(np.concatenate(self._closed)),
            outward=np.ascontiguousarray(np.concatenate(self._outward)),
        )


# ---------------------------------------------------------------- primitives (return point grids)


def _spow(x: F64, e: float) -> F64:
    return np.asarray(np.sign(x) * np.abs(x) ** e, dtype=np.float64)


def superellipsoid(
    centre: tuple[float, float, float],
    radii: tuple[float, float, float],
    e_vert: float = 1.0,
    e_horiz: float = 1.0,
    nu: int = 16,
    nv: int = 24,
) -> F64:
    """A superellipsoid grid; exponents < 1 give rounded boxes, 1 an ellipsoid."""
    eta = np.linspace(-np.pi / 2, np.pi / 2, nu)[:, None]
    # endpoint included: the last column repeats the first, so the surface closes at the back
    # (x = -r) without the caller having to wrap it
    om = np.linspace(-np.pi, np.pi, nv + 1)[None, :]
    ce, se = np.cos(eta), np.sin(eta)
    x = radii[0] * _spow(ce, e_vert) * _spow(np.cos(om), e_horiz)
    y = radii[1] * _spow(ce, e_vert) * _spow(np.sin(om), e_horiz)
    z = radii[2] * _spow(se, e_vert) * np.ones_like(om)
    pts = np.stack([x + centre[0], y + centre[1], z + centre[2]], axis=-1)
    pts[:, -1] = pts[:, 0]  # sin(±pi) is ±1e-16, which small exponents would blow up into a gap
    return pts


def rounded_box(
    lo: tuple[float, float, float], hi: tuple[float, float, float], roundness: float = 0.25
) -> F64:
    """A box with rounded edges between two corners (a superellipsoid)."""
    c = tuple((a + b) / 2 for a, b in zip(lo, hi, strict=True))
    r = tuple((b - a) / 2 for a, b in zip(lo, hi, strict=True))
    return superellipsoid(
        (c[0], c[1], c[2]), (r[0], r[1], r[2]), roundness, roundness, nu=14, nv=28
    )


def tube(
    p0: tuple[float, float, float],
    p1: tuple[float, float, float],
    radius: float,
    n_around: int = 12,
    r1: float | None = None,
) -> F64:
    """A capsule from p0 to p1 (rounded ends), radius tapering to r1."""
    a = np.asarray(p0, dtype=np.float64)
    b = np.asarray(p1, dtype=np.float64)
    axis = b - a
    length = float(np.linalg.norm(axis))
    d = axis / max(length, 1e-9)
    helper = np.array([0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    e1 = np.cross(d, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(d, e1)
    r_end = radius if r1 is None else r1
    cap = 4
    ang = np.linspace(0, np.pi / 2, cap)
    # rings: (offset along axis, radius)
    rings: list[tuple[float, float]] = []
    for t in ang:
        rings.append((-radius * np.cos(t), radius * np.sin(t)))
    rings.append((length, r_end))
    for t in ang[::-1]:
        rings.append((length + r_end * np.cos(t), r_end * np.sin(t)))
    off = np.array([r[0] for r in rings])[:, None, None]
    rad = np.array([r[1] for r in rings])[:, None, None]
    th = np.linspace(0, 2 * np.pi, n_around, endpoint=False)[None, :, None]
    ring = np.cos(th) * e1 + np.sin(th) * e2
    return np.asarray(a + off * d + rad * ring, dtype=np.float64)


def revolve_y(
    profile: F64, centre: tuple[float, float, float], n_around: int = 48
) -> tuple[F64, F64]:
    """Revolve a (k, 2) profile of (radius, y offset) about an axis parallel to y through centre.

    Returns the (k, n, 3) grid and (k, n, 2) attributes = in-plane coordinates (x, z) relative to
    the axis, for spoke patterns.
    """
    th = np.linspace(0, 2 * np.pi, n_around, endpoint=False)[None, :]
    r = profile[:, 0:1]
    y = profile[:, 1:2]
    px = r * np.cos(th)
    pz = r * np.sin(th)
    py = y * np.ones_like(th)
    pts = np.stack([px + centre[0], py + centre[1], pz + centre[2]], axis=-1)
    attrs = np.stack([px, pz], axis=-1)
    return pts, attrs


def smooth1d(values: F64, sigma: float) -> F64:
    """Gaussian smoothing with edge padding (sigma in samples)."""
    if sigma <= 0.0:
        return values.copy()
    half = max(1, int(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-half, half + 1) / sigma) ** 2)
    k /= k.sum()
    padded = np.pad(values, half, mode="edge")
    return np.asarray(np.convolve(padded, k, mode="valid"), dtype=np.float64)
