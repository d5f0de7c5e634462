"""GLB export: a valid glTF 2.0 binary (parsed here by hand), deterministic, same model."""

from __future__ import annotations

import json
import struct
from typing import Any

import numpy as np
import pytest

from carimg.render import Appearance, export_glb

COMPONENT = {5125: ("<u4", 1), 5126: ("<f4", 1)}
WIDTH = {"SCALAR": 1, "VEC3": 3}


def parse_glb(data: bytes) -> tuple[dict[str, Any], bytes]:
    """Check the GLB container (header, JSON chunk, BIN chunk) and return (json, bin)."""
    magic, version, length = struct.unpack_from("<III", data, 0)
    assert magic == 0x46546C67 and version == 2 and length == len(data)
    jlen, jtype = struct.unpack_from("<II", data, 12)
    assert jtype == 0x4E4F534A and jlen % 4 == 0
    doc = json.loads(data[20 : 20 + jlen])
    blen, btype = struct.unpack_from("<II", data, 20 + jlen)
    assert btype == 0x004E4942 and blen % 4 == 0
    assert 20 + jlen + 8 + blen == len(data)
    return doc, data[28 + jlen : 28 + jlen + blen]


def accessor_array(doc: dict[str, Any], blob: bytes, index: int) -> np.ndarray:
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    dtype, _ = COMPONENT[acc["componentType"]]
    n = acc["count"] * WIDTH[acc["type"]]
    start = view["byteOffset"] + acc.get("byteOffset", 0)
    assert start % 4 == 0 and start + n * 4 <= view["byteOffset"] + view["byteLength"]
    arr = np.frombuffer(blob, dtype=dtype, count=n, offset=start)
    return arr.reshape(acc["count"], WIDTH[acc["type"]])


@pytest.mark.parametrize("style", ["sedan", "pickup", "motorcycle"])
def test_glb_is_valid_gltf_2(style: str) -> None:
    data = export_glb(Appearance("testmake", f"test-{style}", 2020, style), "red")
    doc, blob = parse_glb(data)
    assert doc["asset"]["version"] == "2.0"
    assert doc["buffers"][0]["byteLength"] <= len(blob)
    pos = accessor_array(doc, blob, 0)
    acc0 = doc["accessors"][0]
    assert np.allclose(pos.min(axis=0), acc0["min"]) and np.allclose(pos.max(axis=0), acc0["max"])
    assert pos[:, 1].min() >= -1e-3  # +Y up, standing on the ground
    nrm = accessor_array(doc, blob, 1)
    assert np.allclose(np.linalg.norm(nrm, axis=1), 1.0, atol=1e-3)
    prims = doc["meshes"][0]["primitives"]
    assert len(prims) >= 3
    for prim in prims:
        idx = accessor_array(doc, blob, prim["indices"])
        assert idx.size % 3 == 0 and int(idx.max()) < len(pos)
        assert 0 <= prim["material"] < len(doc["materials"])
    names = " ".join(mat["name"] for mat in doc["materials"])
    assert "paint" in names and "tyre" in names


def test_car_glb_carries_glass_and_lights_from_the_decals() -> None:
    doc, _ = parse_glb(export_glb(Appearance("toyota", "camry", 2020, "sedan"), "silver"))
    names = " ".join(mat["name"] for mat in doc["materials"])
    for part in ("glass", "headlight", "taillight"):
        assert part in names


def test_glb_is_deterministic() -> None:
    app = Appearance("toyota", "camry", 2020, "sedan")
    assert export_glb(app, "blue") == export_glb(app, "blue")


@pytest.mark.parametrize("paint", ["red", "silver"])
def test_a_contrasting_roof_is_exported_white_over_a_coloured_paint(paint: str) -> None:
    doc, _ = parse_glb(export_glb(Appearance("mini", "cooper", 2015, "hatchback"), paint))
    assert any(material["name"].startswith("white gloss") for material in doc["materials"])


@pytest.mark.parametrize(("paint", "stripe"), [("red", "white gloss"), ("white", "black gloss")])
def test_racing_stripes_take_the_renderers_contrast_to_the_paint(paint: str, stripe: str) -> None:
    doc, _ = parse_glb(export_glb(Appearance("ford", "gt", 2006, "coupe"), paint))
    names = [material["name"] for material in doc["materials"]]
    assert any(name.startswith(stripe) for name in names)
    assert not any(name.startswith("stripe") for name in names)
