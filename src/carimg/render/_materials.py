"""Material ids (per triangle) and the layout of the per-vehicle decal parameters.

The body shell is one smooth mesh tagged BODY; its windows, lights, grille, seams and trim are
drawn by
the shader from the surface position (`_shade.py`), so their edges are crisp and anti-aliased at any
mesh resolution. Other parts carry one material each.
"""

from __future__ import annotations

from typing import Final

NONE: Final = 0
BODY: Final = 1  # paint shell with decals
PAINT: Final = 2  # plain paint
GLASS: Final = 3
TRIM: Final = 4  # dark satin plastic
CHROME: Final = 5
TIRE: Final = 6
RIM: Final = 7  # alloy, spoke pattern from the in-plane attributes
HEADLIGHT: Final = 8
TAILLIGHT: Final = 9
UNDER: Final = 10  # underbody, wheel wells
INTERIOR: Final = 11
METAL: Final = 12  # engine, forks (brushed grey metal)
CANVAS: Final = 13  # matte black fabric
SEAT: Final = 14
BLACKGLOSS: Final = 15

# Indices into the body decal parameter vector (float64). x is forward, the body spans [X_REAR,
# X_FRONT].
X_FRONT: Final = 0
X_REAR: Final = 1
X_A: Final = 2  # windshield base
X_RF: Final = 3  # roof front (windshield top)
X_RR: Final = 4  # roof rear
X_GH_END: Final = 5  # greenhouse ends (rear glass base or tail)
WIN_FRONT: Final = 6  # side glass x range
WIN_REAR: Final = 7
PILLAR_W: Final = 8
PILLAR_BLACK: Final = 9
N_PILLARS: Final = 10
PILLAR0: Final = 11  # up to 12 pillar x positions: 11..22
HL_Y: Final = 23
HL_Z: Final = 24
HL_W: Final = 25
HL_H: Final = 26
HL_SLANT: Final = 27
HL_ROUND: Final = 28
HL_TYPE: Final = 29
GR_W: Final = 30
GR_Z: Final = 31
GR_H: Final = 32
GR_TYPE: Final = 33
GR_ROUND: Final = 34
GR_TAPER: Final = 35
TL_Y: Final = 36
TL_Z: Final = 37
TL_W: Final = 38
TL_H: Final = 39
TL_BAR: Final = 40
LI_Z: Final = 41
LI_W: Final = 42
LI_H: Final = 43
DOOR_N: Final = 44
DOOR0: Final = 45  # up to 4 seam x positions: 45..48
ROCKER_H: Final = 49
CLADDING: Final = 50
ROOF_BLACK: Final = 51
BED_FRONT: Final = 52  # pickup bed x range (bed_front > bed_rear), 0 if none
BED_REAR: Final = 53
CABIN_FRONT: Final = 54  # convertible open cabin x range
CABIN_REAR: Final = 55
WHEEL_F: Final = 56
WHEEL_R: Final = 57
ARCH_R: Final = 58
AXLE_Z: Final = 59
ROOF_Z: Final = 60
CLEARANCE: Final = 61
WIN_TOP_INSET: Final = 62
WIN_BOTTOM: Final = 63  # extra height of window bottom above belt
HANDLE_Z: Final = 64
GR_BARS: Final = 65
DRL: Final = 66
N_PARAMS: Final = 80
RIM_N: Final = 70  # spokes
RIM_W: Final = 71  # spoke width (fraction of the gap)
RIM_STYLE: Final = 72  # 0 spokes, 1 twin spokes, 2 mesh, 3 holes in a disc
RIM_DARK: Final = 73  # 1 = dark grey alloy
IS_CAR: Final = 74
