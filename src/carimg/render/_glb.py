"""glTF 2.0 binary (GLB) export of the same vehicle model the renderer draws.

The mesh is split into one primitive per material. The body shell's decals (windows, lights,
grille, trim) are drawn analytically by the shader; here each body triangle takes the decal
material under its centroid, so the model carries glass, lights and trim at mesh resolution.
Axes: ours are x forward, y left, z up; glTF's are +Z forward, +X left, +Y up, so (X, Y, Z) =
(y, z, x), a cyclic permutation that keeps handedness and winding. Units are metres. The bytes are
deterministic (sorted JSON, fixed float formats).
"""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np

from carimg.render import _materials as m
from carimg.render._appearance import Appearance
from carimg.render._model import VehicleModel
from carimg.render._palette import resolve_paint
from carimg.render._shade import body_decal
from carimg.render._surfaces import contrast_roof_material, stripe_material

GLB_MAGIC = 0x46546C67  # "glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

# (metallic, roughness) of the paint finishes in glTF's metal-rough model
PAINT_PBR: dict[str, tuple[float, float]] = {
    "gloss": (0.0, 0.3),
    "metallic": (0.6, 0.35),
    "satin": (0.0, 0.5),
    "matte": (0.0, 0.8),
}
# (base colour linear RGBA, metallic, roughness); PAINT/BODY take the paint colour.
_MATERIALS: dict[int, tuple[str, tuple[float, float, float, float], float, float]] = {
    m.PAINT: ("paint", (1.0, 1.0, 1.0, 1.0), 0.0, 0.3),
    m.GLASS: ("glass", (0.02, 0.025, 0.03, 0.55), 0.0, 0.05),
    m.TRIM: ("trim", (0.03, 0.03, 0.03, 1.0), 0.0, 0.7),
    m.CHROME: ("chrome", (0.9, 0.9, 0.9, 1.0), 1.0, 0.08),
    m.TIRE: ("tyre", (0.025, 0.025, 0.025, 1.0), 0.0, 0.85),
    m.RIM: ("rim", (0.6, 0.6, 0.62, 1.0), 1.0, 0.3),
    m.HEADLIGHT: ("headlight", (0.8, 0.8, 0.82, 1.0), 0.5, 0.1),
    m.TAILLIGHT: ("taillight", (0.45, 0.01, 0.01, 1.0), 0.0, 0.15),
    m.UNDER: ("underbody", (0.01, 0.01, 0.01, 1.0), 0.0, 0.9),
    m.INTERIOR: ("interior", (0.03, 0.028, 0.026, 1.0), 0.0, 0.8),
    m.METAL: ("metal", (0.35, 0.35, 0.36, 1.0), 1.0, 0.4),
    m.CANVAS: ("canvas", (0.025, 0.025, 0.025, 1.0), 0.0, 0.95),
    m.SEAT: ("seat", (0.035, 0.03, 0.028, 1.0), 0.0, 0.75),
    m.BLACKGLOSS: ("black gloss", (0.01, 0.01, 0.01, 1.0), 0.0, 0.1),
    m.WHITEGLOSS: ("white gloss", (0.8, 0.8, 0.78, 1.0), 0.0, 0.1),
    m.SIGN: ("sign", (0.95, 0.6, 0.1, 1.0), 0.0, 0.3),
}


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def triangle_materials(model: VehicleModel) -> np.ndarray:
    """Material id per triangle, with body triangles resolved to their decal material."""
    mesh = model.mesh
    mats = mesh.mats.copy()
    body = np.flatnonzero(mats == m.BODY)
    if body.size == 0:
        return mats
    tri = mesh.tris[body]
    cen = mesh.verts[tri].mean(axis=1)
    nrm = mesh.normals[tri].sum(axis=1)
    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-12)
    decal, profile = model.decal, model.profile
    out = np.empty(body.size, dtype=np.int32)
    for k in range(body.size):
        c, n = cen[k], nrm[k]
        base, over, t, _ = body_decal(
            float(c[0]), float(c[1]), float(c[2]), float(n[0]), float(n[1]), float(n[2]),
            0.01, decal, profile,
        )  # fmt: skip
        out[k] = over if t >= 0.5 else base
    mats[body] = out
    return mats


def _pad(data: bytes, fill: bytes) -> bytes:
    return data + fill * ((4 - len(data) % 4) % 4)


def model_to_glb(model: VehicleModel, paint: str, name: str = "vehicle") -> bytes:
    """GLB bytes of a built model painted `paint` (preset name or #RRGGBB)."""
    rgb, finish = resolve_paint(paint)
    mesh = model.mesh
    mats = triangle_materials(model)
    # stripes take the renderer's contrast to this paint
    linear = np.array([_linear(c) for c in rgb])
    mats[mats == m.STRIPE] = stripe_material(linear)
    mats[mats == m.CONTRAST_ROOF] = contrast_roof_material(linear)
    # our (x, y, z) → glTF (y, z, x)
    pos = np.ascontiguousarray(mesh.verts[:, [1, 2, 0]], dtype="<f4")
    normals = mesh.normals.copy()
    # glTF wants unit normals; a vertex whose faces are all degenerate (a collapsed pole) has none
    bad = np.linalg.norm(normals, axis=1) < 0.5
    if bad.any():
        away = mesh.verts[bad] - mesh.verts.mean(axis=0)
        normals[bad] = away / np.maximum(np.linalg.norm(away, axis=1, keepdims=True), 1e-9)
    nrm = np.ascontiguousarray(normals[:, [1, 2, 0]], dtype="<f4")
    # counter-clockwise seen from outside: flip triangles whose winding disagrees with `outward`
    tris = mesh.tris.copy()
    p0, p1, p2 = (mesh.verts[tris[:, k]] for k in range(3))
    wind = np.einsum("ij,ij->i", np.cross(p1 - p0, p2 - p0), mesh.outward)
    flip = wind < 0.0
    tris[flip] = tris[flip][:, ::-1]

    blob = bytearray()
    views: list[dict[str, Any]] = []
    accessors: list[dict[str, Any]] = []

    def add_view(data: bytes, target: int) -> int:
        offset = len(blob)
        blob.extend(data)
        while len(blob) % 4:
            blob.append(0)
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(data), "target": target})
        return len(views) - 1

    v_pos = add_view(pos.tobytes(), 34962)
    accessors.append(
        {
            "bufferView": v_pos, "componentType": 5126, "count": len(pos), "type": "VEC3",
            "min": [float(x) for x in pos.min(axis=0)], "max": [float(x) for x in pos.max(axis=0)],
        }
    )  # fmt: skip
    v_nrm = add_view(nrm.tobytes(), 34962)
    accessors.append(
        {"bufferView": v_nrm, "componentType": 5126, "count": len(nrm), "type": "VEC3"}
    )
    materials: list[dict[str, Any]] = []
    primitives: list[dict[str, Any]] = []
    for mat_id in sorted(int(x) for x in np.unique(mats)):
        key = m.PAINT if mat_id in (m.BODY, m.PAINT) else mat_id
        if key not in _MATERIALS:
            continue
        label, color, metal, rough = _MATERIALS[key]
        if key == m.PAINT:
            color = (_linear(rgb[0]), _linear(rgb[1]), _linear(rgb[2]), 1.0)
            metal, rough = PAINT_PBR[finish]
        idx = np.ascontiguousarray(tris[mats == mat_id].reshape(-1), dtype="<u4")
        v_idx = add_view(idx.tobytes(), 34963)
        accessors.append(
            {"bufferView": v_idx, "componentType": 5125, "count": int(idx.size), "type": "SCALAR"}
        )
        material: dict[str, Any] = {
            "name": f"{label} ({mat_id})",
            "doubleSided": True,
            "pbrMetallicRoughness": {
                "baseColorFactor": [round(c, 6) for c in color],
                "metallicFactor": metal,
                "roughnessFactor": rough,
            },
        }
        if color[3] < 1.0:
            material["alphaMode"] = "BLEND"
        if key in (m.HEADLIGHT, m.TAILLIGHT):
            material["emissiveFactor"] = [0.6, 0.6, 0.6] if key == m.HEADLIGHT else [0.6, 0.0, 0.0]
        materials.append(material)
        primitives.append(
            {
                "attributes": {"POSITION": 0, "NORMAL": 1},
                "indices": len(accessors) - 1,
                "material": len(materials) - 1,
                "mode": 4,
            }
        )
    doc = {
        "asset": {"version": "2.0", "generator": "carimg.render"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": name}],
        "meshes": [{"name": name, "primitives": primitives}],
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob)}],
    }
    js = _pad(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode(), b" ")
    bin_ = _pad(bytes(blob), b"\x00")
    total = 12 + 8 + len(js) + 8 + len(bin_)
    return b"".join(
        [
            struct.pack("<III", GLB_MAGIC, 2, total),
            struct.pack("<II", len(js), CHUNK_JSON),
            js,
            struct.pack("<II", len(bin_), CHUNK_BIN),
            bin_,
        ]
    )


def export_glb(appearance: Appearance, paint: str) -> bytes:
    """The vehicle the renderer draws for `appearance`, as glTF 2.0 binary (metres, +Y up,
    front towards +Z)."""
    from carimg.render._render import build_model

    name = f"{appearance.make} {appearance.model} {appearance.year}"
    return model_to_glb(build_model(appearance), paint, name)
