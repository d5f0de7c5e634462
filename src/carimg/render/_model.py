"""The renderable vehicle: a mesh plus what the shader needs to draw the body's decals."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from carimg.render._mesh import F64, Mesh

PROFILE_SAMPLES = 512


@dataclass(frozen=True, slots=True)
class VehicleModel:
    """Geometry in metres: x forward, y left, z up, ground at z = 0, centred on x = y = 0.

    `decal` is the parameter vector laid out in `_materials`; `profile` holds (top, belt, half
    width,
    bottom) of the body shell sampled at PROFILE_SAMPLES points from decal[X_REAR] to
    decal[X_FRONT].
    """

    mesh: Mesh
    decal: F64
    profile: F64

    @property
    def bounds(self) -> tuple[F64, F64]:
        v = self.mesh.verts
        return np.asarray(v.min(axis=0)), np.asarray(v.max(axis=0))
