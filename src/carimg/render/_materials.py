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
WHITEGLOSS: Final = 16  # a contrasting white roof
STRIPE: Final = 17  # racing stripes: white on a dark paint, near-black on a light one
SIGN: Final = 18  # a lit amber roof sign (a taxi's, blank: never text)
CONTRAST_ROOF: Final = 19  # a contrasting roof: white, or black over a white paint


class _Layout:
    """Declares the decal vector's slots in order: each name gets the next free index."""

    def __init__(self) -> None:
        self.size = 0
        self.names: list[str] = []

    def slot(self, name: str, count: int = 1) -> int:
        index = self.size
        self.names.extend([name] if count == 1 else [f"{name}[{k}]" for k in range(count)])
        self.size += count
        return index


# The per-vehicle decal parameter vector (float64) that geometry writes and the shader reads. x is
# forward, the body spans [X_REAR, X_FRONT]; lengths in metres. A new parameter is one line here.
_layout = _Layout()
X_FRONT: Final = _layout.slot("x_front")
X_REAR: Final = _layout.slot("x_rear")
X_A: Final = _layout.slot("x_a")  # windshield base
X_RF: Final = _layout.slot("x_rf")  # roof front (windshield top)
X_RR: Final = _layout.slot("x_rr")  # roof rear
X_GH_END: Final = _layout.slot("x_gh_end")  # greenhouse ends (rear glass base or tail)
WIN_FRONT: Final = _layout.slot("win_front")  # side glass x range
WIN_REAR: Final = _layout.slot("win_rear")
WIN_REAR_LEAN: Final = _layout.slot("win_rear_lean")  # forward shift of the rear edge per metre up
PILLAR_BLACK: Final = _layout.slot("pillar_black")
MAX_PILLARS: Final = 12
N_PILLARS: Final = _layout.slot("n_pillars")
PILLAR0: Final = _layout.slot("pillar", MAX_PILLARS)  # pillar x positions
PILLAR_W0: Final = _layout.slot("pillar_w", MAX_PILLARS)  # their widths
HL_Y: Final = _layout.slot("hl_y")  # head lamp centre |y|, z (front view), half sizes
HL_Z: Final = _layout.slot("hl_z")
HL_W: Final = _layout.slot("hl_w")
HL_H: Final = _layout.slot("hl_h")
HL_SLANT: Final = _layout.slot("hl_slant")
HL_ROUND: Final = _layout.slot("hl_round")  # corner radius over the smaller half size
HL2_DY: Final = _layout.slot("hl2_dy")  # a second lamp per side (twin, stacked, split): offset
HL2_DZ: Final = _layout.slot("hl2_dz")
HL2_W: Final = _layout.slot("hl2_w")  # its half sizes; 0 = none
HL2_H: Final = _layout.slot("hl2_h")
HL_BAR: Final = _layout.slot("hl_bar")  # 1 = a light bar joins the lamps across the nose
GR_W: Final = _layout.slot("gr_w")  # grille half width, centre z, half height
GR_Z: Final = _layout.slot("gr_z")
GR_H: Final = _layout.slot("gr_h")
GR_TYPE: Final = _layout.slot("gr_type")  # infill: 0 bars, 1 mesh, 2 vertical bars, 3 honeycomb,
# 4 chrome bars (GR_CHROME_BARS), 5 closed by a smooth panel (GR_CLOSED), 6 chrome vanes, upright
# (GR_CHROME_VANES)
GR_CHROME_BARS: Final = 4.0
GR_CLOSED: Final = 5.0
GR_CHROME_VANES: Final = 6.0
GR_ROUND: Final = _layout.slot("gr_round")
GR_TAPER: Final = _layout.slot("gr_taper")  # width change towards the bottom
GR_WAIST: Final = _layout.slot("gr_waist")  # width pinched at mid height (spindle)
GR_GAP: Final = _layout.slot("gr_gap")  # half width of a body-colour divide at the centre (kidney)
GR_SLOTS: Final = _layout.slot("gr_slots")  # n body-colour-separated vertical slots (0 = none)
GR_CROSS: Final = _layout.slot("gr_cross")  # 1 = a body-colour cross divides the grille
GR_BARS: Final = _layout.slot("gr_bars")
GR_V: Final = _layout.slot("gr_v")  # 1 = a chrome U hugs the tapering mouth (V-motion)
GRILLE_BAR: Final = _layout.slot("grille_bar")  # 1 = a chrome bar joins the lamps over the grille
GRILLE_BAR_H: Final = _layout.slot("grille_bar_h")  # its half height
HL_HALO: Final = _layout.slot("hl_halo")  # two light rings in each head lamp: 1 whole rings,
HALO_FLAT: Final = 2.0  # or big rings cut flat by the lamp's top under a light eyebrow (2012 on)
SLIDE_RAIL: Final = _layout.slot("slide_rail")  # x where a sliding door's rail starts, 0 none
HL_RING: Final = _layout.slot("hl_ring")  # 1 = a light ring tracing each head lamp's rim
HL_DOTS: Final = _layout.slot("hl_dots")  # 1 = four light points in each head lamp
HL_YSIGN: Final = _layout.slot("hl_ysign")  # 1 = a Y-shaped light in each head lamp
HL_CLAMP: Final = _layout.slot("hl_clamp")  # 1 = a light C round each lamp, open to the grille
HL_BOOMERANG: Final = _layout.slot("hl_boomerang")  # 1 = a light along the foot, up the outer end
HL_FANG: Final = _layout.slot("hl_fang")  # 1 = a day-time light drops from each lamp's outer end
HL_WRAP: Final = _layout.slot("hl_wrap")  # how far (m) each head lamp runs back along the wing
HL_WRAP_TAPER: Final = _layout.slot("hl_wrap_taper")  # share of its height lost by its rear end
TL_TRI: Final = _layout.slot("tl_tri")  # 1 = each tail lamp is three upright bars
TL_L: Final = _layout.slot("tl_l")  # 1 = each tail lamp is an L: up the pillar, a leg inwards
TL_C: Final = _layout.slot("tl_c")  # 1 = each tail lamp is a C opening towards the centre
TL_WRAP: Final = _layout.slot("tl_wrap")  # how far (m) each tail lamp runs along the flank, 0 none
BELT_DROP_X: Final = _layout.slot("belt_drop_x")  # x behind which the side glass steps down
BELT_DROP: Final = _layout.slot("belt_drop")  # how far it steps down (0 = none, < 0 up)
BELT_STEP_RUN: Final = _layout.slot("belt_step_run")  # over how long a run (m) it steps
SILL_DIP_X: Final = _layout.slot("sill_dip_x")  # x ahead of which the front door's glass dips
SILL_DIP: Final = _layout.slot("sill_dip")  # how far it dips (m; 0 = none)
TRIDION_X: Final = _layout.slot("tridion_x")  # x of the contrast band behind the doors, 0 none
FLOAT_ROOF: Final = _layout.slot("float_roof")  # 1 = black behind the last side window
KAMM_Z: Final = _layout.slot("kamm_z")  # top of an upright pane in a Kamm tail, 0 none
WRAP_GLASS: Final = _layout.slot("wrap_glass")  # glass wrapping round the rear corners, 0 none
WRAP_ONE: Final = 1.0  # round the left rear corner only (Nissan Cube)
WRAP_BOTH: Final = 2.0  # round both (FJ Cruiser)
SAFARI: Final = _layout.slot("safari")  # 1 = alpine windows in the roof side over the rear seats
LOUVRES: Final = _layout.slot("louvres")  # 1 = a slatted engine lid behind the rear glass
SPLIT_SCREEN: Final = _layout.slot("split_screen")  # 1 = a bar down the windscreen's middle
CLAMSHELL: Final = _layout.slot("clamshell")  # 1 = the bonnet's seams run down the wings' sides
SIDE_VENT: Final = _layout.slot("side_vent")  # behind the front wheel: 0 none, VENT_* below
VENT_FINNED: Final = 1.0  # a long dark vent with a bright fin (Range Rover)
VENT_GILLS: Final = 2.0  # three slanted gills (Viper)
BLACK_BONNET: Final = _layout.slot("black_bonnet")  # 1 = the bonnet is black
STRIPES: Final = _layout.slot("stripes")  # 1 = two stripes along the centreline, over the top
REAR_MESH: Final = _layout.slot("rear_mesh")  # 1 = black mesh under the tail lamps (diffuser)
REAR_MESH_BELOW: Final = 2.0  # or the mesh below alone, body colour between the lamps
SCREEN_TOP: Final = _layout.slot("screen_top")  # z where glass ends under a high roof, 0 = none
TL_Y: Final = _layout.slot("tl_y")
TL_Z: Final = _layout.slot("tl_z")
TL_W: Final = _layout.slot("tl_w")
TL_H: Final = _layout.slot("tl_h")
TL_ROUND: Final = _layout.slot("tl_round")
TL2_DY: Final = _layout.slot("tl2_dy")  # a second tail lamp per side (twin round)
TL_BAR: Final = _layout.slot("tl_bar")
TAIL_BAND: Final = _layout.slot("tail_band")  # 1 = a gloss-black band across the tail, lamps in it
LI_Z: Final = _layout.slot("li_z")  # lower intake
LI_W: Final = _layout.slot("li_w")
LI_H: Final = _layout.slot("li_h")
LI_SPLIT: Final = _layout.slot("li_split")  # half width (m) of a triple intake's middle, 0 = one
MAX_DOORS: Final = 4
DOOR_N: Final = _layout.slot("door_n")
DOOR0: Final = _layout.slot("door", MAX_DOORS)  # door seam x positions
ROCKER_H: Final = _layout.slot("rocker_h")
CLADDING: Final = _layout.slot("cladding")
CLADDING_W: Final = _layout.slot("cladding_w")  # width of the band round the wheel arches
SQUARE_ARCHES: Final = _layout.slot("square_arches")  # 1 = the arch band is flat-topped
ROOF_BLACK: Final = _layout.slot("roof_black")
ROOF_WHITE: Final = _layout.slot("roof_white")
ROOF_CONTRAST: Final = _layout.slot("roof_contrast")
STEP_X: Final = _layout.slot("step_x")  # x of a stepped nose's upper lamps (0 none), |y|, z
STEP_Y: Final = _layout.slot("step_y")
STEP_Z: Final = _layout.slot("step_z")
EXHAUST: Final = _layout.slot("exhaust")  # tips at the tail: 0 unseen, EXHAUST_* below
EXHAUST_TRIPLE: Final = 1.0  # three round tips in a triangle at the centre (458)
EXHAUST_CENTRE: Final = 2.0  # one big hexagonal outlet at the centre (Aventador)
EXHAUST_QUAD: Final = 3.0  # four square tips, a pair at each corner (Corvette C8)
UPPER_WHITE: Final = _layout.slot("upper_white")  # 1 = white above the belt and the nose's lamps
BED_FRONT: Final = _layout.slot("bed_front")  # pickup bed x range (bed_front > bed_rear), 0 if none
BED_REAR: Final = _layout.slot("bed_rear")
CABIN_FRONT: Final = _layout.slot("cabin_front")  # convertible open cabin x range
CABIN_REAR: Final = _layout.slot("cabin_rear")
WHEEL_F: Final = _layout.slot("wheel_f")
WHEEL_R: Final = _layout.slot("wheel_r")
ARCH_R: Final = _layout.slot("arch_r")
AXLE_Z: Final = _layout.slot("axle_z")
ROOF_Z: Final = _layout.slot("roof_z")
CLEARANCE: Final = _layout.slot("clearance")
WIN_TOP_INSET: Final = _layout.slot("win_top_inset")
WIN_BOTTOM: Final = _layout.slot("win_bottom")  # extra height of window bottom above belt
HANDLE_Z: Final = _layout.slot("handle_z")
HIDDEN_REAR_HANDLES: Final = _layout.slot("hidden_rear_handles")  # 1 = rear doors show none
DRL: Final = _layout.slot("drl")
BUMPER_F_Z: Final = _layout.slot("bumper_f_z")  # bumper shut line heights, front and rear
BUMPER_R_Z: Final = _layout.slot("bumper_r_z")
BUMPER_BAND: Final = _layout.slot("bumper_band")  # depth (m) of a dark band under the shut lines
SIDE_INTAKE: Final = _layout.slot("side_intake")  # x of an intake ahead of the rear wheel, 0 none
SIDE_INTAKE_H: Final = _layout.slot("side_intake_h")  # its half height (m)
RIM_N: Final = _layout.slot("rim_n")  # spokes
RIM_W: Final = _layout.slot("rim_w")  # spoke width (fraction of the gap)
RIM_STYLE: Final = _layout.slot("rim_style")  # 0 spokes, 1 twin, 2 mesh, 3 slots, 4 aero, 5 holes
RIM_DARK: Final = _layout.slot("rim_dark")  # 1 = dark grey alloy
IS_CAR: Final = _layout.slot("is_car")
N_PARAMS: Final = _layout.size
SLOT_NAMES: Final = tuple(_layout.names)
