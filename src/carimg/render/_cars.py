"""Four-wheeled (and bus/truck) geometry: a lofted body shell, wheels, mirrors and signature parts.

The shell is built from a `BodyPlan` (`_plan.py`): the real length, width, height, wheelbase, track,
ride height and tyre size of the vehicle's generation, and a side silhouette through named hard
points (bonnet leading edge, cowl, windscreen top, roof end, deck or tailgate, tail). Signature
features (spare wheel, flares, wing, steps, scoop, rails) are separate closed parts; lamps, grille,
windows and seams are drawn by the shader from the decal vector laid out in `_materials`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from carimg.render import _materials as m
from carimg.render._appearance import Appearance
from carimg.render._mesh import F64, MeshBuilder, revolve_y, rounded_box, smooth1d, tube
from carimg.render._model import PROFILE_SAMPLES, VehicleModel
from carimg.render._plan import BodyPlan, plan_for, screen_run


def era(year: int) -> float:
    """0 for 1980 and older, 1 for 2025 and newer."""
    return float(np.clip((year - 1980) / 45.0, 0.0, 1.0))


SPARE_GAP = 0.03  # tailgate to spare tyre (m)
_SHIELD_H = 0.12  # a side exhaust's heat shield under the doors (m)
_BOLT_DROP = 0.14  # how far a sliding-door MPV's window line drops behind its doors (m)
_FENDER_VALLEY = 0.1  # how far a bonnet between raised front wings sinks at the nose (m)
_RAKED_FACE = (0.3, 0.35)  # run and fall (m) of a face leaning back from the bumper (H1)
_LEANING_NOSE = (0.32, 0.26)  # run and fall (m) of a rear- or mid-engined car's wings' fronts
_ENGINE_LID_GLASS = 0.55  # length (m) of a rear-engined coupe's rear window over its engine lid
# an open car's seats behind its windscreen's foot and its hoop behind the seats (m): front-engined,
# then mid-engined, the engine right behind the seats (at 1.05 the Elise's stood over its rear axle)
_OPEN_SEATS = {"front": (1.05, 0.62), "mid": (0.8, 0.36)}
_BLUNT_EDGE = (0.06, 0.04)  # run and fall (m) of a modern blunt nose's bonnet edge
_MID_INTAKE_H = 0.1  # half height (m) of a mid-engined car's front intakes
_HUMVEE_LEDGE = 0.25  # how far (m) a Humvee's cabin stands in from its shoulders: its roof is ~75 %
_BLACK_BUMPER = 0.45  # height (m) over the clearance of a Hummer's black bumpers' tops
_DEEP_INTAKES_FROM = 2016  # model year of the first deep side scoops
_SIX_LIGHT_FROM = 2005  # saloons from this model year have a quarter light behind the rear door
_QUARTER_LIGHT_MIN = 0.16  # the shortest quarter light drawn (m)
_FRONT_QUARTER = 0.25  # a front quarter light's length along the belt, ahead of the door (m)
_FULL_BAND = 2.0  # tail lamps' bar slot: 1 a thin bar between them, 2 a band as deep as they are
_NOSE_FOOT = 0.5  # how deep the nose's lower edge rounds, as a share of its cap's radius
# a triple intake's half width and half height, and its middle's half width (shares of the
# nose's half width, m, share)
_TRIPLE_INTAKE = (0.8, 0.07, 0.27)
_PANTHEON_DEPTH = 2.3  # a Rolls-Royce's grille's height over a barred grille's
_MINI_GRILLE_DEPTH = 1.8  # a MINI's grille's height over an oval grille's
_MINI_GRILLE_HEX = (0.35, -0.15)  # its corners' rounding and its taper (narrower at the foot)
_MINI_GRILLE_BARS = 3.0  # its bright slats
_ROOF_ARC = 1.7  # how a five-door fastback's roof falls from its peak: the power of the arc
_ARC_LIP = 0.03  # how far over the deck's height at the tail the arc ends, on the lid (m)
_INTAKE_GAP = 0.06  # the least body colour between a grille's foot and a lower intake (m)
_BELT_SHARE = 0.995  # the side's half width at the belt, as a share of the body's there
_BELT_DROP_RUN = 0.1  # how long a run (m) a stepped-down window line takes to drop
_SILL_DIP = (0.5, 0.15)  # how far (m) behind the front door's front edge its glass dips, how deep
_BELT_KICK = (0.12, 0.25)  # rise and run (m) of a crossover's window line over its rear quarter
# a rear-engined coupe's tail: its end cap's radius, and how much further it rounds and narrows
# in plan (m; the 911's rear was an upright, square-cornered wall, a 928's)
_ROUND_TAIL = (0.22, 0.2, 0.05)
_FLYLINE_BEND = 0.85  # < 1 brings a flyline's fall forward from the tail towards its peak
_SQUARE_ARCH_N = 5.0  # superellipse exponent of a flat-topped arch (2 would be a circle)
_LIP_FENDER = np.array([[0.0, -0.03], [0.04, -0.01], [0.07, 0.03], [0.07, 0.09], [0.0, 0.1]])
# a round body's separate wing in section: (out from the side, out from the arch's edge) (m), a
# dome swelling round the arch and easing back into the side (a 10 cm lip read as any hatch's)
_DOME_FENDER = np.array(
    [[0.0, -0.03], [0.04, -0.01], [0.07, 0.04], [0.075, 0.1], [0.06, 0.17], [0.03, 0.22],
     [0.0, 0.25]]
)  # fmt: skip
_OFF_ROAD = ("spare_wheel", "flared_fenders", "exposed_hinges", "separate_fenders")
ROOF_CROWN = 0.022  # roof centre above its side edge (m); the profile's roof sits this much lower


def _metal_dome(plan: BodyPlan) -> bool:
    """A Beetle or a long bubble coupe (TT): its arch is mostly metal behind a small side glass
    and falls steadily to the tail."""
    return plan.has("separate_fenders") or (plan.style == "coupe" and plan.length > 3.5)


def _roundness(plan: BodyPlan) -> float:
    """0 for a slab-sided box, 1 for a round body (Beetle, Mini, smart)."""
    if plan.has("round_body"):
        return 1.0
    if plan.has("faceted") or plan.screen_rake >= 50 or plan.style in ("bus", "truck"):
        return 0.0  # an upright screen goes with slab sides and tight edges (G, Defender, vans)
    if _crossover_wedge(plan) > 0.0:
        return 0.3 + 0.3 * plan.era  # a modern road SUV is sculpted, not a box
    if plan.style in ("suv", "pickup", "van") or plan.roof == "box":
        return 0.1 + 0.25 * plan.era  # trucks and off-roaders keep crisp, squared-off edges
    return 0.3 + 0.4 * plan.era


class _Silhouette:
    """The side silhouette's hard points along s (nose = 0) and the profile through them."""

    def __init__(self, plan: BodyPlan) -> None:
        self.plan = plan
        L, H = plan.length, plan.height
        self.roof_z = H - (ROOF_CROWN if plan.rear != "open" else 0.0)
        self.cowl_s = float(np.clip(plan.cowl_s, 0.25, L * 0.7))
        self.cowl_z = max(plan.belt_z + 0.01, plan.nose_z + 0.02)
        if plan.has("shoulders"):
            # a Humvee's full-width bonnet falls to its nose at the published height (held level,
            # the H1 read as a Land Cruiser FJ60 or a Wagoneer in 7 of rounds 447-454)
            self.nose_z = plan.nose_z
        elif _roundness(plan) < 0.1:
            # a slab-sided off-roader or van: its bonnet runs nearly flat to the screen
            self.nose_z = max(plan.nose_z, self.cowl_z - 0.06)
        elif plan.style in ("suv", "pickup"):
            # an SUV's or pickup's bonnet stays high to a tall, upright nose
            self.nose_z = max(plan.nose_z, self.cowl_z - 0.12)
        elif plan.style == "crossover":
            self.nose_z = max(plan.nose_z, self.cowl_z - 0.17)  # high, not quite an SUV's
        else:
            self.nose_z = plan.nose_z
        if plan.has("fender_peaks") and (
            plan.engine in ("mid", "rear") or plan.grille == "hot_rod"
        ):
            # no engine under a Porsche's bonnet, a hot rod's grille at its bonnet's edge: the
            # published leading edge is the bonnet's between the wings, which stand as high again
            # as it sinks (see `_FENDER_VALLEY`; the PT Cruiser's grille lost its top half)
            self.nose_z = plan.nose_z + _FENDER_VALLEY
        if plan.rear in ("box",) or plan.style in ("bus", "truck"):
            self.cowl_z = min(self.cowl_z, plan.belt_z)
        self.rf_s = self.cowl_s + screen_run(plan, self.roof_z - self.cowl_z)
        self.rf_s = min(self.rf_s, L - 0.6)
        self.rr_s = float(np.clip(plan.roof_end_s, self.rf_s + 0.25, L - 0.03))
        run = (self.roof_z - plan.deck_z) / math.tan(math.radians(max(plan.backlight_rake, 8.0)))
        self.deck_s = float(np.clip(self.rr_s + run, self.rr_s + 0.05, L - 0.02))
        if plan.rear == "hatch":
            # a tailgate sits at the tail: its glass, at the record's rake, sets where the roof
            # ends (a roof ending further forward would leave a saloon's boot deck)
            run = (self.roof_z - plan.belt_z) / math.tan(math.radians(plan.backlight_rake))
            self.deck_s = L - 0.03
            self.rr_s = float(np.clip(self.deck_s - run, self.rf_s + 0.25, L - 0.08))
        if plan.roof == "bubble":
            # where the arch's windscreen and rear glass give way to the roof
            peak = self.dome_peak_s()
            self.rf_s = peak - 0.3 * (peak - self.cowl_s)
            self.rr_s = peak + 0.35 * (L - peak)
            self.deck_s = L - 0.02
        if plan.rear in ("notch", "fast"):
            self.deck_s = min(self.deck_s, L - 0.2)
            self.rr_s = min(self.rr_s, self.deck_s - 0.15)
        if plan.rear == "fast" and plan.has("kamm_glass"):
            self.deck_s = L - 0.05  # the glass runs to a cut-off tail
        if plan.rear == "fast" and plan.style != "sedan":
            # a fastback's glass keeps its record's rake down to the deck: where the tail is too
            # close for that, the roof ends further forward (a Prius's or Model S's long slope;
            # a fastback saloon keeps its roof, or it reads as a liftback)
            self.rr_s = float(max(self.rf_s + 0.2, min(self.rr_s, self.deck_s - run)))

    def dome_peak_s(self) -> float:
        """Where a bubble roof peaks: a metal dome (Beetle, TT) mid-car over the B-pillar, a
        one-box MPV's further back (the domes' peak there read as long-tailed)."""
        share = 0.3 if _metal_dome(self.plan) else 0.42
        return self.cowl_s + share * (self.plan.length - self.cowl_s)

    def points(self) -> list[tuple[float, float]]:
        pts = self._points()
        if self.plan.has("ducktail") and self.plan.rear in ("fast", "notch", "open"):
            # a spoiler lip kicks up at the tail's top edge (911, Cayman, NSX)
            tail = self.plan.length - 0.18
            z0 = float(np.interp(tail, [q[0] for q in pts], [q[1] for q in pts]))
            pts = [q for q in pts if q[0] < tail - 0.01]
            pts += [(tail, z0), (self.plan.length - 0.03, z0 + 0.045), (self.plan.length, z0 - 0.1)]
        return pts

    def _nose_edge(self, run: float, fall: float) -> list[tuple[float, float]]:
        """The nose's tip, `fall` under the bonnet's edge, and that edge `run` behind it."""
        return [(0.0, self.nose_z - fall), (run, self.nose_z)]

    def _points(self) -> list[tuple[float, float]]:
        p = self.plan
        L = p.length
        rnd = _roundness(p)
        # a round body's bonnet stays high to a rounded nose (Mini, 500); others fall off more
        nose_drop = 0.05 + 0.09 * rnd if not p.has("round_body") else 0.09
        pts = self._nose_edge(0.07 + 0.12 * rnd, nose_drop)
        if _blunt_nose(p):
            # the bonnet holds its height to a tight edge over the upright fascia (rounding off
            # over 20 cm, every modern car's nose read as a 1990s wedge)
            pts = self._nose_edge(*_BLUNT_EDGE)
            # and crowns on its way up to the screen (a straight slope read as a wedge)
            run, rise = self.cowl_s - _BLUNT_EDGE[0], self.cowl_z - self.nose_z
            for t in (0.25, 0.5, 0.75):
                pts.append(
                    (_BLUNT_EDGE[0] + t * run, self.nose_z + rise * (1.0 - (1.0 - t) ** 1.8))
                )
        if p.has("fender_peaks") and p.engine in ("mid", "rear"):
            # no radiator to cover: the wings' fronts lean back over a low lip, the lamps laid
            # on them (an upright face read as a front-engined GT's, a 928)
            pts = self._nose_edge(*_LEANING_NOSE)
        if p.has("raked_face"):
            # the grille and lamps lean back from the bumper's top to the bonnet's edge (on an
            # upright face the H1 read as any square off-roader)
            pts = self._nose_edge(*_RAKED_FACE)
        if p.rear == "open":
            return [
                *pts,
                (self.cowl_s, self.cowl_z),
                (self.cowl_s + 0.06, p.belt_z + 0.01),
                (self.deck_s, p.deck_z),
                (L - 0.1, p.deck_z - 0.01),
                (L, p.deck_z - 0.1),
            ]
        if p.has("stepped_nose"):
            # a low bonnet ending at a step up to the screen's base, which carries a second
            # pair of lamps (the first Multipla)
            pts += [(self.cowl_s - 0.2, p.nose_z + 0.03), (self.cowl_s - 0.12, self.cowl_z - 0.01)]
        pts += [(self.cowl_s, self.cowl_z), (self.rf_s, self.roof_z)]
        drop = 0.01 + 0.03 * p.era if p.rear not in ("box", "pickup", "truck") else 0.0
        drop += 0.05 * _crossover_wedge(p)
        if p.rear == "pickup":
            return [
                *pts,
                (self.rr_s, self.roof_z - 0.02),
                (self.rr_s + 0.03, self.roof_z - 0.06),
                (self.rr_s + 0.06, p.deck_z),
                (L, p.deck_z),
            ]
        if p.rear == "truck":
            frame = p.clearance + 0.72
            return [
                *pts,
                (self.rr_s, self.roof_z - 0.02),
                (self.rr_s + 0.03, self.roof_z - 0.05),
                (self.rr_s + 0.09, frame),
                (L, frame),
            ]
        if p.roof == "bubble" and p.has("separate_fenders") and p.engine != "rear":
            # the New Beetle's bonnet crowns from its nose to the screen's foot, low between the
            # wings, and the arch rises from there over the peak to the tail (one arch from the
            # nose hid its screen above 1.34 m: a bubble with frog's eyes, a Micra or a Leaf)
            (s0, z0), run, rise = pts[1], self.cowl_s - pts[1][0], self.cowl_z - pts[1][1]
            crown = [(s0 + run * t, z0 + rise * (1.0 - (1.0 - t) ** 2)) for t in (0.25, 0.5, 0.75)]
            return [*pts[:2], *crown, *self._arch(self.cowl_s, self.cowl_z)]
        if p.roof == "bubble" and (p.has("separate_fenders") or p.style == "minivan"):
            # the Beetle's and a one-box MPV's bonnet, screen and roof are one arch from the
            # nose over the peak to the tail
            return [pts[0], *self._arch(*pts[1], power=2.2)]
        if p.roof == "bubble":
            return [*pts[:-1], *self._arch(self.cowl_s, self.cowl_z)]
        if p.rear == "fast" and p.engine == "rear":
            # a rear-engined coupe's flyline: from the screen's top the roof curves down in one
            # unbroken line over the glass and engine lid to the tail (911; a flat roof
            # ending at a steep glass read as a front-engined GT, a 928). It rounds over the
            # front seats, falls straight through the glass and eases out along the lid: held
            # high to the glass (t^1.6) it was still a 928 in 6 of 6 rounds (359-366)
            peak = self.rf_s + 0.12
            tail_s = L - 0.06
            return [
                *pts,
                (peak, self.roof_z),
                *[
                    (
                        peak + (tail_s - peak) * t,
                        self.roof_z - (self.roof_z - p.deck_z) * _flyline_fall(t),
                    )
                    for t in np.linspace(0.0, 1.0, 13)[1:]
                ],
                (L, p.deck_z - 0.12),
            ]
        if p.rear == "fast":
            # a fastback's roof peaks over the front seats and falls away in one line
            peak = self.rf_s + 0.3 * (self.rr_s - self.rf_s)
            pts += [(peak, self.roof_z), (self.rr_s, self.roof_z - drop - 0.035)]
        elif _hatch_car(p) or _crossover_wedge(p) > 0.0:
            # a hatchback's or crossover's roof starts to fall behind the front seats, to the
            # tailgate's spoiler (level to the tail, it read as an estate's)
            peak = self.rf_s + 0.25 * (self.rr_s - self.rf_s)
            pts += [(peak, self.roof_z), (self.rr_s, self.roof_z - drop - 0.03)]
        else:
            mid = (self.rf_s + self.rr_s) / 2
            pts += [(mid, self.roof_z), (self.rr_s, self.roof_z - drop)]
        if p.rear == "fast" and p.has("kamm_glass"):
            return [*pts, (self.deck_s, p.deck_z), (L, p.deck_z - 0.03)]
        if _five_door_fastback(p):
            # a five-door fastback's roof arcs on from its peak to the tail in one curve, in
            # place of the roof's end point (Model S; held level and then cut by straight glass,
            # it read as a 1980s wedge coupe, a Lagonda or a Supra A70)
            fall = self.roof_z - p.deck_z - _ARC_LIP
            arc = [
                (peak + (self.deck_s - peak) * t, self.roof_z - fall * t**_ROOF_ARC)
                for t in np.linspace(0.0, 1.0, 9)[1:]
            ]
            return [*pts[:-1], *arc, (L - 0.1, p.deck_z), (L, p.deck_z - 0.1)]
        if p.rear == "fast" and p.style != "sedan":
            # the glass gives way to an engine lid or hatch that falls on, less steeply, to the
            # tail: one line from the roof, no flat deck (a fastback saloon keeps its boot deck)
            z_glass = p.deck_z + 0.3 * (pts[-1][1] - p.deck_z)
            return [*pts, (self.deck_s, z_glass), (L - 0.1, p.deck_z), (L, p.deck_z - 0.1)]
        if p.rear in ("notch", "fast"):
            return [*pts, (self.deck_s, p.deck_z), (L - 0.1, p.deck_z - 0.02), (L, p.deck_z - 0.12)]
        if p.rear == "hatch":
            tail_z = p.belt_z - 0.04 if p.roof != "wagon" else p.belt_z
            return [*pts, (self.deck_s, p.belt_z + 0.03), (L, tail_z)]
        return [*pts, (L, self.roof_z - drop - 0.05)]

    def _arch(self, s0: float, z0: float, power: float = 0.0) -> list[tuple[float, float]]:
        """A bubble roof: one arch from (s0, z0) rising as 1 - (1 - t)^power (by default leaving
        it at the screen's rake), over a peak and down in a quarter ellipse to a round tail."""
        p = self.plan
        tail_z = p.belt_z - 0.12  # the arch runs on below the belt into a round tail
        if p.has("separate_fenders"):
            tail_z = p.belt_z - 0.3  # a Beetle's dome falls to a low, rounded tail
        peak = self.dome_peak_s()
        rise, run = self.roof_z - z0, peak - s0
        if power <= 0.0:
            slope = math.tan(math.radians(p.screen_rake))
            power = float(np.clip(slope * run / max(rise, 0.05), 1.3, 4.0))
        pts = []
        for t in np.linspace(0.0, 1.0, 12):
            pts.append((s0 + run * t, z0 + rise * (1 - (1 - t) ** power)))
        for t in np.linspace(0.0, 1.0, 12)[1:]:
            if _metal_dome(p):
                # a Beetle's or TT's dome falls steadily all the way to the tail, as it rose
                # (a quarter ellipse keeps the roof high and drops it at the end)
                pts.append(
                    (peak + (p.length - peak) * t, tail_z + (self.roof_z - tail_z) * (1 - t**1.8))
                )
                continue
            angle = math.pi / 2 * t
            pts.append(
                (peak + (p.length - peak) * math.sin(angle),
                 tail_z + (self.roof_z - tail_z) * math.cos(angle))
            )  # fmt: skip
        return pts

    def top(self, s: F64) -> F64:
        pts = self.points()
        px = np.array([q[0] for q in pts])
        pz = np.array([q[1] for q in pts])
        L = self.plan.length
        fine = np.linspace(0.0, L, 1400)
        z = np.interp(fine, px, pz)
        step = float(fine[1] - fine[0])
        rnd = _roundness(self.plan)
        sigma = 0.03 + 0.07 * rnd
        if self.plan.rear in ("pickup", "truck"):
            sigma = 0.025
        if L > 9:
            sigma = 0.12
        smooth = smooth1d(z, sigma / step)
        # smoothing shaves the roof: lift the roof span back to the real height
        roof = (fine > self.rf_s) & (fine < self.rr_s + 0.05)
        if roof.any() and self.plan.rear != "open":
            lift = self.roof_z - float(smooth[roof].max())
            weight = np.clip(smooth - self.plan.belt_z, 0.0, None)
            weight /= max(float(weight.max()), 1e-6)
            smooth = smooth + lift * weight
        return np.asarray(np.interp(s, fine, smooth), dtype=np.float64)


def _flyline_fall(t: float) -> float:
    """Share of its fall a 911's flyline has made at t (0 at its peak, 1 at the tail): an S
    that falls a fifth by a quarter of the way and three quarters by the rear axle."""
    return 0.5 - 0.5 * math.cos(math.pi * t**_FLYLINE_BEND)


def _stations(
    plan: BodyPlan, s0: float, s1: float, wheels: list[float], arch_r: float, cab_s: float
) -> F64:
    L = plan.length
    n = int(np.clip(L / 0.03, 140, 300))
    base = np.linspace(s0, s1, n)
    extra: list[F64] = []
    for sw in wheels:
        extra.append(sw + arch_r * np.sin(np.linspace(-np.pi / 2, np.pi / 2, 25)))
        extra.append(np.array([sw - arch_r - 0.004, sw + arch_r + 0.004]))
    if plan.rear in ("pickup", "truck"):
        # the cab's back wall drops ~0.7 m over a few cm: without dense stations it is spanned by
        # one or two rings and shades as horizontal stripes
        extra.append(np.linspace(cab_s - 0.1, cab_s + 0.16, 40))
    s = np.unique(np.concatenate([base, *extra]))
    return s[(s >= s0) & (s <= s1)]


def _roof_edge_radius(rnd: float) -> float:
    """The radius (m) where the greenhouse's side rounds into the roof: tight on a box, full on a
    round body."""
    return 0.015 + 0.125 * rnd


def _half_section(
    zb: F64,
    zt: F64,
    w: F64,
    w_low: F64,
    belt: F64,
    roof_z: float,
    tumble: float,
    rnd: float,
    open_top: F64,
    valley: F64,
    ledge: float = 0.025,
) -> F64:
    """Half cross-sections (y >= 0) for every station: (S, P, 2) of (y, z), bottom to top centre.

    `w` is the half width at the belt, `w_low` below it (wider over the wheels: the haunches);
    `valley` lowers the top's centre below its edges (a bonnet between raised front wings);
    the greenhouse stands up to `ledge` inboard of the body's side at the belt.
    """
    S = len(zb)
    rb = np.minimum(0.02 + 0.04 * rnd, (zt - zb) * 0.3)
    rt = np.minimum(_roof_edge_radius(rnd), (zt - zb) * 0.4)
    belt_eff = np.clip(belt, zb + rb + 0.01, np.maximum(zt - rt, zb + rb + 0.01))
    gh = np.clip((zt - rt - belt_eff) / max(roof_z - float(np.median(belt)), 0.2), 0.0, 1.2)
    inset = np.minimum(ledge, (zt - rt - belt_eff) * 0.5) * (1.0 - open_top)
    wb = w_low * 0.975
    wbelt = w * _BELT_SHARE
    wtop = wbelt - inset - tumble * w * gh
    cols: list[tuple[F64, F64]] = []

    def add(y: F64, z: F64) -> None:
        cols.append((y, z))

    for t in np.linspace(0, 1, 3, endpoint=False):
        add(t * (wb - rb), zb)
    for a in np.linspace(-np.pi / 2, 0, 4, endpoint=False):
        add(wb - rb + rb * np.cos(a), zb + rb + rb * np.sin(a))
    for t in np.linspace(0, 1, 9, endpoint=False):
        bulge = (0.012 * w + 0.5 * (w_low - w)) * np.sin(np.pi * t)
        add(wb + (wbelt - wb) * t + bulge, zb + rb + (belt_eff - zb - rb) * t)
    # the glass's slight outward curve, flattened where the greenhouse is short (at the foot of
    # a raked screen or tailgate a full-size curve over a few millimetres of height folded the
    # surface into a crumpled, pale streak)
    curve = 0.008 * np.clip((zt - rt - belt_eff) / 0.15, 0.0, 1.0)
    for t in np.linspace(0, 1, 9, endpoint=False):
        ease = t if t > 0 else 0.0
        y0 = wbelt - inset * min(1.0, ease * 4)
        add(y0 + (wtop - y0) * t + curve * np.sin(np.pi * t), belt_eff + (zt - rt - belt_eff) * t)
    for a in np.linspace(0, np.pi / 2, 7, endpoint=False):
        add(wtop - rt + rt * np.cos(a), zt - rt + rt * np.sin(a))
    crown = ROOF_CROWN
    for t in np.linspace(0, 1, 6):
        y = (wtop - rt) * (1 - t)
        add(y, zt + crown * (1 - (1 - t) ** 2) * (1.0 - open_top) - valley * t**1.5)
    out = np.zeros((S, len(cols), 2))
    for k, (y, z) in enumerate(cols):
        out[:, k, 0] = y
        out[:, k, 1] = z
    for _ in range(1 + round(2 * rnd)):  # rounder bodies, softer section corners
        out[:, 1:-1] = 0.25 * out[:, :-2] + 0.5 * out[:, 1:-1] + 0.25 * out[:, 2:]
    out[:, -1, 0] = 0.0
    out[:, -2, 1] = 0.5 * out[:, -2, 1] + 0.5 * out[:, -1, 1]
    return out


def _loft(
    s: F64, half: F64, length: float, r_front: float, r_rear: float, nose_pivot: float = 0.5
) -> F64:
    """Close the half sections into loops, add end caps, return an (S', P, 3) grid with x
    forward. The nose's cap rounds towards `nose_pivot` of its section's height (0.5: a bullet
    nose whose tip is at mid-height; higher: a blunt face under the bonnet's edge)."""
    full = np.concatenate([half, half[:, -2:0:-1] * np.array([-1.0, 1.0])], axis=1)
    centre_z = (half[:, 0, 1] + half[:, -1, 1]) / 2
    centre_z[0] = half[0, 0, 1] + nose_pivot * (half[0, -1, 1] - half[0, 0, 1])

    def cap(idx: int, r: float, front: bool) -> list[F64]:
        # a flat fascia: the section is inset along a quarter circle of radius r (the rounded
        # edge), then closed by a flat fan to its centre point (no pinhole, no pillow dome)
        base = full[idx]
        half_w = max(float(np.abs(base[:, 0]).max()), 1e-3)
        half_h = max(float(np.ptp(base[:, 1])) / 2, 1e-3)
        # the nose's lower edge turns under tightly (rounded as deep as its top, the whole
        # bumper curved away into a dark band under every car and hid its lower intake)
        drop = max(centre_z[idx] - float(base[:, 1].min()), 1e-3)
        rings: list[F64] = []
        for phi in [*np.linspace(0, np.pi / 2, 6)[1:], np.pi / 2]:
            inset = r * (1 - np.cos(phi))
            sy, sz = max(0.0, 1 - inset / half_w), max(0.0, 1 - inset / half_h)
            sz_low = max(0.0, 1 - _NOSE_FOOT * inset / drop) if front else sz
            if len(rings) == 5:
                sy = sz = sz_low = 0.0  # collapse to a point: the shell is closed
            sec = base.copy()
            sec[:, 0] *= sy
            below = sec[:, 1] < centre_z[idx]
            sec[:, 1] = centre_z[idx] + (sec[:, 1] - centre_z[idx]) * np.where(below, sz_low, sz)
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


def tyre_section(r: float, rim_r: float, hw: float) -> F64:
    """A tyre's rounded-rectangle cross-section in (radius, y), 28 points around."""
    points = []
    for a in np.linspace(0, 2 * np.pi, 28, endpoint=False):
        c, sn = np.cos(a), np.sin(a)
        rr = (r + rim_r) / 2 + (r - rim_r) / 2 * np.sign(c) * abs(c) ** 0.45
        points.append((rr, hw * np.sign(sn) * abs(sn) ** 0.35))
    return np.array(points)


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
    prof = tyre_section(r, rim_r, hw)
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
    plan = plan_for(app)
    return build_from_plan(plan)


def _sill_rise(plan: BodyPlan) -> float:
    """How far the visible sill sits above the published ground clearance (m)."""
    return 0.14 if plan.style in ("suv", "crossover", "pickup", "van", "minivan") else 0.025


def _arch_gap(plan: BodyPlan) -> float:
    # the tyre fills its arch as on the real car: off-roaders keep room to articulate
    if plan.has("flared_fenders") or plan.has("spare_wheel") or plan.clearance >= 0.24:
        return 0.07
    if plan.style in ("suv", "pickup", "crossover"):
        return 0.045
    if plan.style in ("bus", "truck"):
        return 0.06
    if plan.era > 0.6:
        return 0.028  # modern cars: big wheels filling their arches
    return 0.035 if plan.clearance < 0.13 else 0.045


def build_from_plan(plan: BodyPlan) -> VehicleModel:
    """The model of a body plan: shell, wheels, mirrors, signature parts and decal parameters."""
    if plan.has("spare_wheel"):
        # the published length includes the spare wheel hung on the tailgate
        plan = replace(plan, length=plan.length - plan.tyre_w - SPARE_GAP)
    L, W = plan.length, plan.width
    R = plan.wheel_r
    rnd = _roundness(plan)
    sil = _Silhouette(plan)
    s_fw, s_rw = plan.front_oh, plan.front_oh + plan.wheelbase
    wheels = [s_fw, s_rw]
    arch_r = R + _arch_gap(plan)
    r_end_f = 0.05 + 0.12 * rnd if L < 6 else 0.12
    r_end_r = 0.04 + 0.09 * rnd if L < 6 else 0.08
    if plan.engine == "rear" and plan.rear == "fast":
        r_end_r = _ROUND_TAIL[0]  # a 911's tail rounds under, no upright wall (a 928's)
    s = _stations(plan, r_end_f, L - r_end_r, wheels, arch_r, sil.rr_s)
    zt = sil.top(s)
    # bottom: ride height, lifted at the overhang ends, arches over the wheels
    # ground clearance is measured at the lowest part under the car; the sill you see is higher,
    # most on trucks and SUVs (their sill sits above the axles' clearance)
    sill = plan.clearance + _sill_rise(plan)
    lift = np.maximum(
        0.12 * np.clip(1 - s / (0.7 * plan.front_oh), 0, 1) ** 2,
        0.14 * np.clip(1 - (L - s) / (0.6 * max(plan.rear_oh, 0.2)), 0, 1) ** 2,
    )
    zb = sill + lift
    for sw in wheels:
        ds = s - sw
        inside = np.abs(ds) <= arch_r
        arch = R + arch_r * _arch_curve(np.clip(np.abs(ds) / arch_r, 0.0, 1.0), plan)
        zb = np.where(inside, np.maximum(zb, arch), zb)
    zb = np.minimum(zb, zt - 0.08)
    # plan view: rounded corners front and back
    pr_f, pr_r = 0.35 + 0.45 * rnd, 0.3 + 0.35 * rnd
    tail_in = 0.03 + 0.08 * rnd
    if plan.rear in ("notch", "fast") and plan.style not in ("pickup", "truck"):
        # a car's tail narrows in plan towards a rounded end, not a flat box back
        pr_r, tail_in = pr_r + 0.2, tail_in + 0.03
        if plan.engine == "rear":
            # a 911's engine rounds its tail in plan, between the hips
            pr_r, tail_in = pr_r + _ROUND_TAIL[1], tail_in + _ROUND_TAIL[2]
    elif plan.rear in ("hatch", "box") and plan.style not in ("van", "bus", "truck"):
        # a modern hatch's or crossover's tail rounds in plan too (a flat, square-cornered
        # back read as a 1990s wagon's or an off-roader's)
        pr_r, tail_in = pr_r + 0.25 * plan.era, tail_in + 0.05 * plan.era
    taper_f = (0.04 + 0.12 * rnd) * np.clip(1 - s / pr_f, 0, 1) ** 2
    taper_r = tail_in * np.clip(1 - (L - s) / pr_r, 0, 1) ** 2
    if L > 6:
        taper_f *= 0.3
        taper_r *= 0.3
    w_low = W / 2 * (1 - taper_f - taper_r)
    # the published width is the haunches over the wheels; doors and greenhouse sit inside them
    swell = _haunches(plan, s, wheels, arch_r)
    w = w_low * (1.0 - float(swell.max()))
    w_low = w_low * (1.0 - float(swell.max()) + swell)
    wedge = 0.0 if plan.style in ("van", "bus", "truck", "kei") or plan.rear == "box" else 0.03
    wedge += 0.05 * _crossover_wedge(plan)
    belt_line = plan.belt_z + wedge * (s / L - 0.3) * (0.5 + plan.era)
    open_top = np.full_like(s, 1.0 if plan.rear == "open" else 0.0)
    valley = np.zeros_like(s)
    if plan.has("fender_peaks"):
        # the bonnet sinks between the wings, most at the nose, back to flush at the cowl
        valley = (
            _FENDER_VALLEY * np.clip((sil.cowl_s - s) / max(sil.cowl_s - 0.3, 0.2), 0.0, 1.0) ** 0.6
        )
    # the cabin of a Humvee stands well inboard of its wide, flat shoulders
    ledge = _HUMVEE_LEDGE if plan.has("shoulders") else 0.025
    tumble = _greenhouse_tumble(plan, w, belt_line, sil.roof_z, ledge)
    half = _half_section(
        zb, zt, w, w_low, belt_line, sil.roof_z, tumble, rnd, open_top, valley, ledge
    )
    body = _loft(s, half, L, r_end_f, r_end_r, _nose_pivot(plan))
    b = MeshBuilder()
    b.add_grid(body, m.BODY, wrap_v=True)

    def x_of(s_: float) -> float:
        return L / 2 - s_

    x_fw, x_rw = x_of(s_fw), x_of(s_rw)
    tyre_w = plan.tyre_w
    w_axle = float(np.interp(s_fw, s, w_low))
    flare = 0.05 if plan.has("flared_fenders") or plan.has("separate_fenders") else 0.0
    y_w = min(plan.track / 2, w_axle * 0.99 + flare - tyre_w / 2 - 0.004)
    add_wheel(b, x_fw, y_w, R, tyre_w, plan.rim_ratio)
    add_wheel(b, x_rw, y_w, R, tyre_w, plan.rim_ratio, dual=plan.style == "truck")
    _add_mirrors(b, plan, sil, s, w, belt_line, x_of)
    _add_features(b, plan, sil, s, w, zt, belt_line, x_of, arch_r, (x_fw, x_rw), y_w)
    if plan.rear == "open":
        _add_open_cabin(b, plan, sil, s, belt_line, w, x_of)

    decal = _decal_params(plan, sil, s, w, belt_line, x_fw, x_rw, arch_r)
    decal[m.X_FRONT] = float(body[..., 0].max())
    decal[m.X_REAR] = float(body[..., 0].min())
    xs = np.linspace(decal[m.X_REAR], decal[m.X_FRONT], PROFILE_SAMPLES)
    sx = L / 2 - xs
    profile = np.stack(
        [
            np.interp(sx, s, zt),
            np.interp(sx, s, belt_line),
            np.interp(sx, s, w_low),
            np.interp(sx, s, zb),
        ]
    )
    return VehicleModel(mesh=b.build(), decal=decal, profile=profile)


def _nose_pivot(plan: BodyPlan) -> float:
    """Where the nose's rounding converges, as a fraction of its height (see `_blunt_nose`)."""
    return 0.75 if _blunt_nose(plan) else 0.5


def _blunt_nose(plan: BodyPlan) -> bool:
    """A car of the pedestrian-protection era (2005 on) keeps its bonnet's edge high over an
    upright fascia (a bullet nose rounding to mid-height put the lamps low in the bumper under a
    wedge bonnet, and read as a 1980s car's); older cars, round bodies, off-roaders and mid- or
    rear-engined cars keep a mid-height nose (the blunt one cost the Supra A80, MINI, Multipla
    and FJ Cruiser their names beside the baseline, rounds 171-194)."""
    return (
        plan.year >= 2005
        and plan.headlamps != "popup"
        and not plan.has("round_body")
        and not any(plan.has(f) for f in _OFF_ROAD)
        # with no engine under it, a sports car's nose is a low wedge; a rear-engined city hatch
        # keeps a car's upright face (bullet-nosed, the i3 read as a BMW MPV in 8 of 8 rounds)
        and (plan.engine == "front" or plan.style == "hatchback")
        # a van's or MPV's nose is its own (the ID. Buzz lost its name under the blunt one; the
        # Odyssey under it read as an estate, a Volvo V70, in 4 of 4 rounds, 335-341)
        and plan.style not in ("bus", "truck", "van", "minivan")
    )


def _five_door_fastback(plan: BodyPlan) -> bool:
    """A fastback with a tailgate and rear doors (Model S, Prius), not a saloon or a coupe."""
    return plan.rear == "fast" and plan.style != "sedan" and plan.doors >= 5


def _hatch_car(plan: BodyPlan) -> bool:
    """A hatchback car (not an estate, MPV or SUV with a tailgate), not a round one: a MINI's
    and a Fiat 500's roofs run level to an upright tailgate (falling, they were named in 11 of
    40 rounds against 18 of 32 beside the baseline, rounds 143-202)."""
    return (
        plan.style == "hatchback"
        and plan.roof == "hatch"
        and plan.rear == "hatch"
        and not plan.has("round_body")
    )


def _crossover_wedge(plan: BodyPlan) -> float:
    """1 for a modern crossover, whose belt rises and roof falls towards the tail, else 0."""
    if plan.rear != "hatch" or plan.era < 0.75:
        return 0.0
    if plan.style == "crossover":
        return 1.0
    if plan.style == "suv" and not any(plan.has(f) for f in _OFF_ROAD) and plan.screen_rake < 45:
        return 0.7
    return 0.0


def _haunches(plan: BodyPlan, s: F64, wheels: list[float], arch_r: float) -> F64:
    """How far the body swells over each wheel, as a fraction of the half width (0 = slab)."""
    if plan.style in ("van", "bus", "truck", "kei") or plan.has("faceted") or plan.length > 6:
        return np.zeros_like(s)
    if plan.engine == "rear":
        amounts = (0.05, 0.09)  # a 911's hips, far wider than its cabin, its wings nearly so
    elif plan.engine == "mid":
        amounts = (0.02, 0.06)  # the wide rear haunches over the driven wheels
    elif plan.style in ("coupe", "convertible") or plan.has("fender_peaks"):
        amounts = (0.03, 0.045)
    elif plan.roof == "box" and plan.era < 0.5:
        amounts = (0.01, 0.01)
    else:
        amounts = (0.015 + 0.015 * plan.era, 0.02 + 0.02 * plan.era)
    swell = np.zeros_like(s)
    for sw, amount in zip(wheels, amounts, strict=True):
        swell = np.maximum(swell, amount * np.exp(-(((s - sw) / (1.5 * arch_r)) ** 4)))
    return swell


def _tumblehome(plan: BodyPlan) -> float:
    if plan.style in ("van", "bus", "truck"):
        return 0.04
    if plan.roof == "box" and plan.era < 0.5:
        return 0.08
    if plan.style in ("coupe", "convertible") or plan.engine in ("mid", "rear"):
        return 0.24
    return 0.14 + 0.06 * plan.era


def _greenhouse_tumble(plan: BodyPlan, w: F64, belt: F64, roof_z: float, ledge: float) -> float:
    """How far the greenhouse leans in over its height, as a share of the belt's half width: a
    measured roof width sets it (a sports car's narrow cabin between its wings, which the
    style's lean drew nearly full width), else the body style's."""
    if plan.roof_w <= 0.0:
        return _tumblehome(plan)
    widest = float(w.max())
    # the lean is spread over the glass's height up to the roof's rounded edge (`_half_section`)
    glass = roof_z - float(np.median(belt))
    edge = _roof_edge_radius(_roundness(plan))
    share = float(np.clip((glass - edge) / max(glass, 0.2), 0.3, 1.2))
    lean = (_BELT_SHARE * widest - ledge - plan.roof_w / 2) / (widest * share)
    return float(np.clip(lean, 0.0, 0.6))


def _add_mirrors(
    b: MeshBuilder,
    plan: BodyPlan,
    sil: _Silhouette,
    s: F64,
    w: F64,
    belt: F64,
    x_of: Callable[[float], float],
) -> None:
    L = plan.length
    # a front quarter light puts the mirror on the door behind it
    s_a = sil.cowl_s + (_FRONT_QUARTER if plan.has("front_quarter") else 0.0)
    w_mirror = float(np.interp(s_a, s, w))
    mz = float(np.interp(s_a, s, belt)) + 0.06
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


def _add_features(
    b: MeshBuilder,
    plan: BodyPlan,
    sil: _Silhouette,
    s: F64,
    w: F64,
    zt: F64,
    belt: F64,
    x_of: Callable[[float], float],
    arch_r: float,
    wheel_x: tuple[float, float],
    y_wheel: float,
) -> None:
    """Signature parts: each a closed mesh placed by the plan's hard points."""
    L, W = plan.length, plan.width
    if plan.style == "truck":
        s0 = sil.rr_s + 0.12
        b.add_grid(
            rounded_box(
                (x_of(L) - 0.02, -W / 2 * 1.04, plan.clearance + 0.75),
                (x_of(s0), W / 2 * 1.04, plan.height + 0.7),
                0.08,
            ),
            m.PAINT,
        )
        b.add_grid(
            rounded_box(
                (x_of(L - 0.05), -W / 2 * 0.9, plan.clearance + 0.35),
                (x_of(s0 + 0.1), W / 2 * 0.9, plan.clearance + 0.8),
                0.2,
            ),
            m.UNDER,
        )
    # most SUVs and crossovers wear roof rails (without them a judge read them as estates)
    rails = plan.has("roof_rails") or (
        plan.style in ("suv", "crossover") and plan.era > 0.3 and not plan.has("shoulders")
    )
    if rails and plan.rear not in ("open", "pickup", "fast"):
        s0, s1 = sil.rf_s + 0.15, sil.rr_s - 0.05
        yr = float(np.interp((s0 + s1) / 2, s, w)) * (1 - _tumblehome(plan)) - 0.14
        top = float(np.interp((s0 + s1) / 2, s, zt)) + ROOF_CROWN * 0.4
        b.add_grid(
            rounded_box(
                (x_of(s1), yr - 0.025, top - 0.04), (x_of(s0), yr + 0.025, top + 0.03), 0.3
            ),
            m.TRIM,
            mirror_y=True,
        )
    if plan.has("spare_wheel"):
        r = plan.wheel_r * 0.98
        z = max(plan.belt_z - 0.05 - r * 0.3, r + plan.clearance + 0.15)
        _add_spare_wheel(b, x_of(L) - plan.tyre_w / 2 - SPARE_GAP, 0.0, z, r, plan.tyre_w, plan)
    if plan.has("flared_fenders") or plan.has("separate_fenders"):
        mat = m.TRIM if plan.has("flared_fenders") else m.PAINT
        square = plan.has("square_arches")
        dome = plan.has("separate_fenders") and plan.has("round_body")
        for wx in wheel_x:
            w_here = float(np.interp(L / 2 - wx, s, w))
            _add_arch_flare(b, wx, plan.wheel_r, arch_r, w_here, mat, square, dome)
    if plan.has("rear_wing") or plan.has("hoop_wing"):
        deck = min(float(np.interp(L - 0.2, s, zt)), plan.height - 0.21)  # wing within the height
        xw = x_of(L - 0.18)
        # a hoop wing is body colour, its legs broad fins rising from the tail's outer corners
        # (Supra A80; a plain wing is a black blade on inboard stalks)
        hoop = plan.has("hoop_wing")
        finish = m.PAINT if hoop else m.BLACKGLOSS
        b.add_grid(
            rounded_box((xw - 0.14, -W * 0.44, deck + 0.16), (xw + 0.1, W * 0.44, deck + 0.2), 0.3),
            finish,
        )
        leg_y, leg_run = (W * 0.41, 0.22) if hoop else (W * 0.3, 0.08)
        for yy in (leg_y, -leg_y):
            b.add_grid(
                rounded_box(
                    (xw + 0.03 - leg_run, yy - 0.02, deck - 0.02),
                    (xw + 0.03, yy + 0.02, deck + 0.17),
                    0.3,
                ),
                finish,
            )
    if plan.has("side_steps"):
        s0, s1 = plan.front_oh + arch_r + 0.05, plan.front_oh + plan.wheelbase - arch_r - 0.05
        yy = float(np.interp((s0 + s1) / 2, s, w))
        z = plan.clearance + 0.03
        b.add_grid(
            rounded_box((x_of(s1), yy - 0.02, z), (x_of(s0), yy + 0.12, z + 0.05), 0.4),
            m.TRIM,
            mirror_y=True,
        )
    if plan.has("side_pipes"):
        # exhaust pipes along the sills under the doors, inside the published width, behind a
        # tall bright heat shield (Viper: named in 15 of 20 blind rounds with it, 12 of 24 with
        # a thin pipe alone)
        s0, s1 = plan.front_oh + arch_r + 0.12, plan.front_oh + plan.wheelbase - arch_r - 0.1
        yy = min(float(np.interp((s0 + s1) / 2, s, w)), W / 2 - 0.045)
        z = plan.clearance + 0.06
        b.add_grid(
            rounded_box(
                (x_of(s1), yy - 0.04, z - _SHIELD_H / 2),
                (x_of(s0), yy + 0.03, z + _SHIELD_H / 2),
                0.5,
            ),
            m.CHROME,
            mirror_y=True,
        )
    if plan.has("hood_scoop") or plan.has("bonnet_bulge"):
        s0 = max(0.3, plan.front_oh * 0.6)
        s1 = sil.cowl_s - 0.1
        if s1 > s0 + 0.2:
            z0 = float(np.interp(s0, s, zt))
            z1 = float(np.interp(s1, s, zt))
            wide = 0.22 if plan.has("hood_scoop") else 0.38
            bump = 0.06 if plan.has("hood_scoop") else 0.035
            grid = _bonnet_bump(x_of(s0), x_of(s1), z0, z1, wide, bump)
            b.add_grid(grid, m.PAINT if plan.has("bonnet_bulge") else m.BLACKGLOSS, closed=True)
    if plan.has("exposed_hinges") and plan.rear != "open":
        yy = float(np.interp(sil.cowl_s + 0.1, s, w)) + 0.01
        for dz in (0.22, 0.5):
            z = plan.belt_z - dz
            xh = x_of(sil.cowl_s + 0.08)
            b.add_grid(
                rounded_box(
                    (xh - 0.05, yy - 0.01, z - 0.03), (xh + 0.05, yy + 0.02, z + 0.03), 0.3
                ),
                m.TRIM,
                mirror_y=True,
            )
    if plan.has("wing_turrets"):
        # the indicator pods standing on the front wings' tops, just behind the lamps
        s_t = 0.22
        yy = float(np.interp(s_t, s, w)) - 0.08
        z = float(np.interp(s_t, s, zt))
        b.add_grid(
            rounded_box(
                (x_of(s_t + 0.05), yy - 0.03, z - 0.01),
                (x_of(s_t - 0.04), yy + 0.03, z + 0.06),
                0.4,
            ),
            m.HEADLIGHT,
            mirror_y=True,
        )
    if plan.has("headlamp_pods"):
        # round lamps in pods of their own standing on the front wings (Morgan, 2CV, FX4)
        s_p = 0.35
        yy = float(np.interp(s_p, s, w)) - 0.16
        z = float(np.interp(s_p, s, zt)) + 0.07
        b.add_grid(
            rounded_box(
                (x_of(s_p + 0.16), yy - 0.1, z - 0.1), (x_of(s_p - 0.1), yy + 0.1, z + 0.1), 0.9
            ),
            m.PAINT,
            mirror_y=True,
        )
        b.add_grid(
            rounded_box(
                (x_of(s_p - 0.04), yy - 0.085, z - 0.085),
                (x_of(s_p - 0.105), yy + 0.085, z + 0.085),
                0.9,
            ),
            m.HEADLIGHT,
            mirror_y=True,
        )
    if plan.has("taxi_sign"):
        # the roof sign of a purpose-built taxi, just behind the screen's top (blank: no text)
        s_r = sil.rf_s + 0.2
        z = float(np.interp(s_r, s, zt))
        lo, hi = (x_of(s_r + 0.08), -0.26, z - 0.02), (x_of(s_r - 0.08), 0.26, z + 0.13)
        b.add_grid(rounded_box(lo, hi, 0.5), m.SIGN)
    if plan.has("bull_bar"):
        xf = x_of(0.0) - 0.02
        z0, z1 = plan.clearance + 0.15, plan.nose_z - 0.05
        b.add_grid(tube((xf, 0.35, z0), (xf, 0.35, z1), 0.03), m.TRIM, wrap_v=True, mirror_y=True)
        b.add_grid(tube((xf, 0.42, z1), (xf, -0.42, z1), 0.03), m.TRIM, wrap_v=True)
    if plan.has("snorkel"):
        ys = -float(np.interp(sil.cowl_s, s, w)) - 0.03
        foot = (x_of(sil.cowl_s - 0.05), ys, plan.belt_z - 0.2)
        head = (x_of(sil.cowl_s + 0.12), ys + 0.04, plan.height - 0.08)
        b.add_grid(tube(foot, head, 0.045), m.TRIM, wrap_v=True)


def _bonnet_bump(x0: float, x1: float, z0: float, z1: float, half_w: float, bump: float) -> F64:
    """A raised panel on the bonnet from x0 (front) to x1: a lens-shaped closed grid."""
    u = np.linspace(0.0, 1.0, 16)[:, None]
    v = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)[None, :]
    x = x0 + (x1 - x0) * u
    base = z0 + (z1 - z0) * u - 0.01
    rise = bump * np.sin(np.pi * np.clip(u * 1.2, 0, 1)) ** 0.5 * (0.4 + 0.6 * u)
    y = half_w * np.cos(v) * (0.7 + 0.3 * u)
    z = base + np.clip(np.sin(v), 0, None) * rise + np.clip(np.sin(v), None, 0) * 0.01
    pts = np.stack([x * np.ones_like(v), y * np.ones_like(u), z], axis=-1)
    pts[0, :] = pts[0].mean(axis=0)
    pts[-1, :] = pts[-1].mean(axis=0)
    return np.asarray(pts, dtype=np.float64)


def _arch_curve(u: F64, plan: BodyPlan) -> F64:
    """The arch's height over the axle at |ds| = u * radius, as a fraction of its radius: a
    circle, or a flat-topped one with near-upright sides (`square_arches`: a superellipse)."""
    if plan.has("square_arches"):
        return np.asarray((1.0 - u**_SQUARE_ARCH_N) ** (1.0 / _SQUARE_ARCH_N), dtype=np.float64)
    return np.asarray(np.sqrt(1.0 - u**2), dtype=np.float64)


def _add_arch_flare(
    b: MeshBuilder,
    x: float,
    r_wheel: float,
    arch_r: float,
    w: float,
    mat: int,
    square: bool,
    dome: bool = False,
) -> None:
    """A fender flare: a band swept over the top of the arch, standing out from the side;
    square, it runs flat over the wheel and down near-upright sides (Hummer, Bronco); a dome,
    it swells broadly from the body round the arch (New Beetle)."""
    th = np.linspace(0.05 * np.pi, 0.95 * np.pi, 24)[:, None]
    sec = _DOME_FENDER if dome else _LIP_FENDER
    rad = arch_r + sec[:, 1][None, :]
    y = w - 0.02 + sec[:, 0][None, :]
    c, sn = np.cos(th), np.sin(th)
    if square:  # the same superellipse as the body's cut-out (`_arch_curve`)
        c, sn = np.sign(c) * np.abs(c) ** (2 / _SQUARE_ARCH_N), np.abs(sn) ** (2 / _SQUARE_ARCH_N)
    px = x - c * rad
    pz = r_wheel + sn * rad
    pts = np.stack([px, y * np.ones_like(px), pz], axis=-1)
    b.add_grid(np.asarray(pts, dtype=np.float64), mat, orient="+y", mirror_y=True)


def _add_spare_wheel(
    b: MeshBuilder, x: float, y: float, z: float, r: float, width: float, plan: BodyPlan
) -> None:
    """A spare wheel hung on the tailgate, its face to the rear (a wheel turned by 90°)."""
    rim_r = r * plan.rim_ratio
    hw = width / 2
    pts, attrs = revolve_y(tyre_section(r, rim_r, hw), (0.0, 0.0, 0.0), 48)
    turned = np.stack([pts[..., 1] + x, pts[..., 0] + y, pts[..., 2] + z], axis=-1)
    b.add_grid(turned, m.TIRE, wrap_u=True, wrap_v=True, attrs=attrs / rim_r)
    rr_ = np.linspace(0.0, 1.0, 10)
    face = np.column_stack([rim_r * rr_ * 1.02, -(hw - 0.012) + 0.03 * (1 - rr_**2)])
    rpts, rattrs = revolve_y(face, (0.0, 0.0, 0.0), 48)
    rim = np.stack([rpts[..., 1] + x, rpts[..., 0] + y, rpts[..., 2] + z], axis=-1)
    b.add_grid(rim, m.TRIM, wrap_v=True, attrs=rattrs / rim_r, orient="keep")


def _add_open_cabin(
    b: MeshBuilder,
    plan: BodyPlan,
    sil: _Silhouette,
    s: F64,
    belt: F64,
    w: F64,
    x_of: Callable[[float], float],
) -> None:
    xo = x_of
    s_a = sil.cowl_s
    wa = float(np.interp(s_a, s, w)) * 0.93
    zb = float(np.interp(s_a, s, belt))
    ws_h = plan.height - 0.05 - zb  # the frame stands 3 cm above the glass
    # windshield: a slanted, slightly curved pane with a dark frame
    u = np.linspace(0, 1, 8)[:, None]
    v = np.linspace(-1, 1, 16)[None, :]
    lean = screen_run(plan, ws_h)
    x = xo(s_a) - lean * u + 0.08 * v**2
    y = wa * v * (1 - 0.12 * u)
    z = zb + ws_h * u
    pane = np.stack([x * np.ones_like(v), y * np.ones_like(u), z * np.ones_like(v)], -1)
    b.add_grid(pane, m.GLASS, orient="keep")
    top = pane[-1]
    frame = np.stack([top + np.array([0.0, 0.0, -0.01]), top + np.array([-0.03, 0.0, 0.03])])
    b.add_grid(frame, m.TRIM, orient="keep")
    # seats with headrests
    seat_run, hoop_run = _OPEN_SEATS["mid" if plan.engine == "mid" else "front"]
    s_seat = s_a + seat_run
    # headrests stay below the car's published (top-up) height
    zs = min(float(np.interp(s_seat, s, belt)), plan.height - 0.47)
    ys = min(0.4, wa * 0.5)
    for yy in (ys, -ys):
        xs = xo(s_seat)
        # cushion, backrest (leaning back) and headrest
        b.add_grid(
            rounded_box((xs - 0.05, yy - 0.26, zs - 0.42), (xs + 0.45, yy + 0.26, zs - 0.2), 0.3),
            m.SEAT,
        )
        back = rounded_box((-0.08, yy - 0.26, -0.5), (0.08, yy + 0.26, 0.22), 0.3)
        lean = 0.22
        bx = back[..., 0] - lean * (back[..., 2] + 0.5) + xs - 0.02
        bz = back[..., 2] + zs + 0.02
        b.add_grid(np.stack([bx, back[..., 1], bz], -1), m.SEAT)
        hx = xs - 0.02 - lean * 0.75 - 0.02
        b.add_grid(
            rounded_box((hx - 0.06, yy - 0.13, zs + 0.22), (hx + 0.06, yy + 0.13, zs + 0.37), 0.5),
            m.SEAT,
        )
    if plan.has("roll_hoop"):
        # a black hoop behind the seats, as tall as the headrests: two legs and a top bar (Elise)
        xh = xo(s_seat + hoop_run)
        for y0, y1, z0 in ((ys + 0.2, ys + 0.27, zs - 0.3), (-ys - 0.27, -ys - 0.2, zs - 0.3),
                           (-ys - 0.27, ys + 0.27, zs + 0.31)):  # fmt: skip
            b.add_grid(rounded_box((xh - 0.035, y0, z0), (xh + 0.035, y1, zs + 0.38), 0.5), m.TRIM)


# grille vocabulary → (half width over nose half width, half height m, corner round, taper, waist,
# centre gap, slots, cross, infill pattern: 0 bars, 1 mesh, 2 vertical bars, 3 honeycomb)
_GRILLES: dict[str, tuple[float, float, float, float, float, float, int, int, int]] = {
    "none": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0),
    "kidney": (0.3, 0.085, 0.8, 0.0, 0.0, 0.035, 0, 0, 2),
    "single_frame": (0.38, 0.17, 0.25, 0.12, 0.0, 0.0, 0, 0, 3),
    "seven_slot": (0.36, 0.11, 0.2, 0.0, 0.0, 0.0, 7, 0, 2),
    "spindle": (0.36, 0.17, 0.3, 0.1, 0.45, 0.0, 0, 0, 1),
    "split": (0.44, 0.07, 0.35, 0.0, 0.0, 0.2, 0, 0, 1),  # two intakes either side of the nose
    "bars": (0.42, 0.09, 0.25, 0.0, 0.0, 0.0, 0, 0, 0),
    "mesh": (0.42, 0.09, 0.3, 0.05, 0.0, 0.0, 0, 0, 3),
    "shield": (0.1, 0.13, 0.6, -0.5, 0.0, 0.0, 0, 0, 1),
    "slot": (0.4, 0.03, 0.5, 0.0, 0.0, 0.0, 0, 0, 0),
    "crosshair": (0.45, 0.11, 0.2, 0.0, 0.0, 0.0, 0, 1, 1),
    "vertical_bars": (0.4, 0.1, 0.2, 0.0, 0.0, 0.0, 0, 0, 2),
    "oval": (0.34, 0.1, 1.0, 0.0, 0.0, 0.0, 0, 0, 1),
    "trapezoid": (0.42, 0.13, 0.3, 0.3, 0.0, 0.0, 0, 0, 3),
    "inverted_trapezoid": (0.42, 0.17, 0.35, -0.22, 0.0, 0.0, 0, 0, 0),
    # dark bars: a mesh V under the lamps read as a Lexus spindle or an Audi frame (Rogue, Qashqai)
    "v_motion": (0.52, 0.13, 0.25, -0.4, 0.0, 0.0, 0, 0, 0),
    "hot_rod": (0.3, 0.14, 0.6, 0.15, 0.0, 0.0, 0, 0, 0),
}
# mouths that fill the nose below the lamps' tops, not kept between the lamps like a grille
_BIG_MOUTHS = ("single_frame", "spindle", "trapezoid", "inverted_trapezoid", "v_motion")
# a make's own infill for a mesh or honeycomb mouth (0 bars, 1 mesh, 3 honeycomb): Ford's bars;
# honeycomb stays with the makes that wear it, so it stops reading as Toyota or Lexus everywhere
_GRILLE_INFILL_BY_MAKE: dict[tuple[str, int], int] = {
    ("ford", 1): 0,
    ("ford", 3): 0,
    ("toyota", 3): 0,  # Toyota's wide low mouths wear bars; honeycomb under slim lamps is Lexus
    ("levc", 1): 0,  # the London cab's chrome-ringed oval of bars
    **{(make, 3): 1 for make in ("renault", "peugeot", "kia", "hyundai", "chevrolet", "nissan")},
}
# head lamp vocabulary → (half width m, half height m, round, slant, second lamp: dy, dz, w, h)
_HEADLAMPS: dict[str, tuple[float, float, float, float, float, float, float, float]] = {
    "round": (0.095, 0.095, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "round_low": (0.115, 0.115, 1.0, 0.0, 0.0, 0.18, 0.055, 0.03),  # small lamps 18 cm above
    "twin_round": (0.068, 0.068, 1.0, 0.0, -0.16, 0.0, 0.068, 0.068),
    "oval": (0.14, 0.075, 1.0, 0.05, 0.0, 0.0, 0.0, 0.0),
    "rect": (0.2, 0.07, 0.25, 0.0, 0.0, 0.0, 0.0, 0.0),
    "slim": (0.24, 0.042, 0.6, 0.12, 0.0, 0.0, 0.0, 0.0),
    "split": (0.22, 0.018, 0.9, 0.12, 0.0, -0.2, 0.1, 0.05),
    "popup": (0.2, 0.004, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0),
    "stacked": (0.1, 0.05, 0.4, 0.0, 0.0, -0.13, 0.1, 0.05),
    "swept": (0.26, 0.055, 0.8, 0.2, 0.0, 0.0, 0.0, 0.0),
    "teardrop": (0.12, 0.08, 1.0, 0.25, 0.0, 0.0, 0.0, 0.0),
}
_ROUND_LAMPS = ("round", "round_low", "twin_round")
# head lamps that wrap back along the wing from `_WRAPPED_FROM` → the share of their height they
# lose by the wrap's rear end (swept lamps narrow to a point, boxy ones keep their depth)
_WRAPPED_LAMPS = {"slim": 0.6, "swept": 0.6, "teardrop": 0.6, "rect": 0.25, "oval": 0.3}
_WRAPPED_FROM = 1998
_FLAT_HALO_FROM = 2012  # model year of the first flat-topped halo rings
# a pickup's slim or swept lamps climb steeply to the grille's top corners: its tall upright face
# wears them as a V (at a car's gentler slant the Hilux read as a Triton, rounds 291-310)
_PICKUP_SLANT = {"slim": 0.18, "swept": 0.3}
_TAIL_WRAP_FULL = 0.46  # how far a `wrap` tail lamp runs along the flank from the tail (m)
_TAIL_TURNS = ("rect", "slim", "c_shape", "bar")  # modern tail lamps that turn the corner
_TAIL_TURN = 0.16  # how far those run onto the flank (m)
# tail lamp vocabulary → (half width m, half height m, round, second lamp dy, bar)
_TAILLAMPS: dict[str, tuple[float, float, float, float, float]] = {
    "rect": (0.17, 0.07, 0.3, 0.0, 0.0),
    "vertical": (0.06, 0.2, 0.3, 0.0, 0.0),
    "round": (0.07, 0.07, 1.0, 0.0, 0.0),
    "twin_round": (0.06, 0.06, 1.0, -0.15, 0.0),
    "bar": (0.16, 0.035, 0.6, 0.0, 1.0),
    "slim": (0.22, 0.038, 0.6, 0.0, 0.0),
    "wrap": (0.2, 0.06, 0.4, 0.0, 0.0),
    "tri_bar": (0.15, 0.1, 0.3, 0.0, 0.0),
    "c_shape": (0.2, 0.1, 0.5, 0.0, 0.0),
    "l_shape": (0.065, 0.2, 0.3, 0.0, 0.0),  # the upright part; the shader adds the leg
    "dual": (0.075, 0.04, 0.3, -0.17, 0.0),
}


# graphics a feature word switches on: decal slot -> the word
_FEATURE_SLOTS: dict[int, str] = {
    m.ROOF_BLACK: "two_tone",
    m.ROOF_WHITE: "white_roof",
    m.ROOF_CONTRAST: "contrast_roof",
    m.UPPER_WHITE: "white_upper",
    m.SAFARI: "safari_windows",
    m.LOUVRES: "engine_louvres",
    m.SPLIT_SCREEN: "split_windscreen",
    m.CLAMSHELL: "clamshell",
    m.BLACK_BONNET: "black_bonnet",
    m.SQUARE_ARCHES: "square_arches",
    m.STRIPES: "racing_stripes",
    m.GRILLE_BAR: "grille_bar",
    m.HL_HALO: "halo_rings",
    m.HL_FANG: "fang_drl",
    m.HL_DOTS: "four_dot",
    m.HL_RING: "ring_drl",
    m.HL_YSIGN: "y_lamps",
    m.HL_CLAMP: "c_clamp",
    m.HL_BOOMERANG: "boomerang_drl",
    m.TAIL_BAND: "tail_band",
    m.HIDDEN_REAR_HANDLES: "hidden_rear_handles",
}


# slots whose feature words pick one of several graphics: decal slot -> {mode: the word}
_FEATURE_MODES: dict[int, dict[float, str]] = {
    m.EXHAUST: {
        m.EXHAUST_TRIPLE: "triple_exhaust",
        m.EXHAUST_CENTRE: "centre_exhaust",
        m.EXHAUST_QUAD: "quad_exhaust",
    },
    m.SIDE_VENT: {m.VENT_FINNED: "side_vents", m.VENT_GILLS: "side_gills"},
    m.WRAP_GLASS: {m.WRAP_ONE: "wrap_glass", m.WRAP_BOTH: "wrap_quarters"},
}


def _decal_params(
    plan: BodyPlan,
    sil: _Silhouette,
    s: F64,
    w: F64,
    belt: F64,
    x_fw: float,
    x_rw: float,
    arch_r: float,
) -> F64:
    L = plan.length
    e = plan.era
    p = np.zeros(m.N_PARAMS)

    def x_of(s_: float) -> float:
        return L / 2 - s_

    p[m.X_FRONT] = L / 2
    p[m.X_REAR] = -L / 2
    p[m.X_A] = x_of(sil.cowl_s)
    p[m.X_RF] = x_of(sil.rf_s)
    p[m.X_RR] = x_of(sil.rr_s)
    if plan.rear in ("pickup", "truck"):
        # the cab's rear glass sits on its back wall only, not on the flat roof in front of it
        p[m.X_RR] = x_of(sil.rr_s + 0.03)
    gh_end = sil.deck_s if plan.rear in ("notch", "fast", "open") else L
    if plan.rear in ("pickup", "truck"):
        gh_end = sil.rr_s + 0.06
    if plan.rear == "fast" and plan.engine == "rear":
        # a short rear window over a long engine lid (run on down the flyline, the 911's glass
        # read as a glass hatch, a 928's)
        gh_end = min(gh_end, sil.rr_s + _ENGINE_LID_GLASS)
    p[m.X_GH_END] = x_of(gh_end)
    if gh_end >= L:
        # the greenhouse runs onto the tail's end cap (box and hatch rears): include it, or the
        # rear window of an SUV, van or bus would be painted over
        p[m.X_GH_END] = x_of(L) - 0.25
    dark_pillars = (
        plan.roof == "floating"
        or plan.era > 0.75
        or plan.has("tridion")
        or plan.has("black_pillars")
    )
    p[m.PILLAR_BLACK] = 1.0 if dark_pillars else 0.0
    # a floating roof: the pillar behind the last side window is black too, so the glass seems
    # to run on round the corner under a roof held up by nothing (Range Rover L405, Explorer
    # U502). Not for `black_pillars` alone: so drawn, the five-door MINI read as an estate.
    p[m.FLOAT_ROOF] = 1.0 if plan.roof == "floating" else 0.0
    for slot, feature in _FEATURE_SLOTS.items():
        p[slot] = 1.0 if plan.has(feature) else 0.0
    for slot, modes in _FEATURE_MODES.items():
        for mode, feature in modes.items():
            if plan.has(feature):
                p[slot] = mode
    # a modern mid-engined car's tail is open mesh under its lamps (the 1990s' was paint)
    p[m.REAR_MESH] = 1.0 if plan.engine == "mid" and plan.year >= 2005 else 0.0
    if p[m.REAR_MESH] and plan.has("tail_panel"):
        # lamps high in a body-colour tail over the mesh (a black band joining round lamps read
        # as a 1990s Ferrari's rear grille: the 458 an F355 or 348, the C8 a Testarossa)
        p[m.REAR_MESH] = m.REAR_MESH_BELOW
    if plan.has("stepped_nose"):
        p[m.STEP_X] = x_of(sil.cowl_s - 0.16)
        p[m.STEP_Z] = (plan.nose_z + sil.cowl_z) / 2 + 0.01
        p[m.STEP_Y] = float(np.interp(sil.cowl_s - 0.16, s, w)) - 0.2
    p[m.DRL] = 1.0 if e > 0.6 else 0.0
    # side windows and pillars
    win_front_s = sil.cowl_s + 0.02
    if plan.rear in ("notch", "fast"):
        win_rear_s = sil.rr_s + (sil.deck_s - sil.rr_s) * (0.15 if plan.rear == "notch" else 0.4)
    elif plan.rear in ("pickup", "truck"):
        win_rear_s = sil.rr_s - 0.08
    elif plan.rear == "open":
        win_rear_s = sil.cowl_s
    else:
        win_rear_s = min(L - 0.12, sil.rr_s + (sil.deck_s - sil.rr_s) * 0.2) - 0.05
    if plan.roof == "hatch" or (plan.roof == "bubble" and plan.style != "kei"):
        # a hatch's thick C-pillar: the side glass ends ahead of the tailgate and leans forward
        win_rear_s = min(win_rear_s, plan.front_oh + plan.wheelbase + 0.12)
        if _metal_dome(plan):
            # a bubble coupe's or Beetle's arch is mostly metal: its glass ends ahead of the rear
            # wheel (TT, New Beetle)
            win_rear_s = min(win_rear_s, plan.front_oh + plan.wheelbase - 0.25)
        if plan.has("separate_fenders"):
            win_rear_s -= 0.15  # the Beetle's small quarter light, far ahead of its tail
        elif _hatch_car(plan) and e > 0.5:
            # a modern hatchback's broad C-pillar stands over the rear wheel: glass running on
            # behind the axle read as an estate's
            win_rear_s = min(win_rear_s, plan.front_oh + plan.wheelbase - 0.05)
        p[m.WIN_REAR_LEAN] = 0.55
    elif plan.rear == "hatch" and plan.style in ("suv", "crossover") and plan.era > 0.5:
        # a modern SUV's thick, forward-leaning D-pillar (a wagon's is thin and upright)
        win_rear_s -= 0.12
        p[m.WIN_REAR_LEAN] = 0.35
    elif plan.rear == "hatch":
        p[m.WIN_REAR_LEAN] = 0.12
    pointed = plan.rear == "fast" and plan.engine == "rear"
    if pointed:
        # a rear-engined coupe's quarter light tapers to a point under the falling roof over the
        # rear arch's front half (a short, upright-ended one read as a 928's)
        win_rear_s = plan.front_oh + plan.wheelbase - 0.3
        p[m.WIN_REAR_LEAN] = 1.6
    one_light = plan.rear == "fast" and plan.engine == "mid" and plan.year >= 2004
    if one_light:
        # a modern mid-engined car's door glass is its only side window, its rear edge sweeping
        # up and back under the roof (a B-pillar and quarter light read as a Lotus Esprit's)
        win_rear_s = min(win_rear_s, win_front_s + 0.95)
        p[m.WIN_REAR_LEAN] = -0.8
    p[m.WIN_FRONT] = x_of(win_front_s)
    p[m.WIN_REAR] = x_of(win_rear_s)
    pillar_w = 0.075 if L < 6 else 0.12
    # the roof rail shows as a band of paint over the side glass, wider on modern cars
    p[m.WIN_TOP_INSET] = 0.045 + 0.03 * e if L < 6 else 0.3
    if plan.style == "van" and plan.height > 2.2:
        # a high-roof van's glass stops at a car-height screen: the roof above is metal
        p[m.SCREEN_TOP] = min(sil.cowl_z + 0.95, plan.height - 0.35)
    p[m.WIN_BOTTOM] = 0.012
    pillars: list[float] = []
    span = win_rear_s - win_front_s
    if plan.style == "bus":
        n = max(2, int(span / 1.25))
        pillars = [win_front_s + 1.4 + (span - 1.4) * k / n for k in range(n)]
    elif plan.style in ("van", "truck") and plan.roof in ("van", "cab") and plan.rear != "hatch":
        p[m.WIN_REAR] = x_of(sil.cowl_s + min(0.95, span))
    elif plan.doors <= 3:
        if plan.rear not in ("open",) and span > 1.3 and not one_light:
            pillars = [win_front_s + min(1.15, span * 0.7)]
            if p[m.WIN_REAR_LEAN] > 0.3 and not pointed:
                # a three-door hatch's quarter light is short behind its long door glass; one
                # as long as the door's reads as a rear door (MINI); under a dome it is a small
                # pointed light (New Beetle, TT: a longer one read as a five-door's rear door)
                quarter = 0.3 if plan.roof == "bubble" else 0.6
                win_rear_s = min(win_rear_s, pillars[0] + quarter)
                p[m.WIN_REAR] = x_of(win_rear_s)
    elif plan.rear in ("pickup",):
        if span > 1.5:
            pillars = [win_front_s + span * 0.52]
    else:
        b_pos = max(sil.cowl_s + 0.85, win_front_s + 0.44 * span)
        pillars = [b_pos]
        rear_door_end = _rear_door_end(plan, b_pos, arch_r)
        if plan.rear in ("box", "hatch") and win_rear_s - b_pos > 1.35:
            if plan.has("four_light"):
                # the rear door's glass runs on to a broad blind pillar leaning forward over the
                # tail (Kia Soul)
                win_rear_s = rear_door_end + 0.12
                p[m.WIN_REAR] = x_of(win_rear_s)
                p[m.WIN_REAR_LEAN] = 0.5
            else:
                pillars.append(b_pos + (win_rear_s - b_pos) * 0.62)
        six_light = (
            # a saloon's, or a five-door fastback's (Model S, Prius: door glass alone on a long
            # sloping roof read as a two-door coupe's, a Lagonda or a Supra A70)
            (plan.style == "sedan" or _five_door_fastback(plan))
            and plan.rear in ("notch", "fast")
            and plan.year >= _SIX_LIGHT_FROM
            and not plan.has("four_light")
        )
        if six_light:
            # a modern saloon's small fixed quarter light in the C-pillar, behind the rear door's
            # glass, tapering under the falling roof (door glass alone read as a 1990s saloon's,
            # or a four-door coupe's when it ran on to the pillar's end)
            win_rear_s = min(max(win_rear_s, rear_door_end + 0.3), sil.deck_s - 0.3)
            p[m.WIN_REAR] = x_of(win_rear_s)
            p[m.WIN_REAR_LEAN] = 0.5
            if win_rear_s - rear_door_end > _QUARTER_LIGHT_MIN:
                pillars.append(rear_door_end - 0.03)
    widths = [pillar_w] * len(pillars)
    sail = plan.has("sail_pillar") and len(pillars) == 2
    if sail:
        # short glass in the rear door, then a wide blind pillar and a small corner window
        # (FJ Cruiser)
        sail_front, sail_rear = pillars[0] + 0.45, win_rear_s - 0.33
        sail = sail_rear - sail_front > 0.2
        if sail:
            pillars[1] = (sail_front + sail_rear) / 2
            widths[1] = sail_rear - sail_front
    drawn, drawn_w = pillars, widths
    if plan.has("front_quarter"):
        # a small fixed light ahead of the front door, under the raked A-pillar (Prius): its
        # pillar leads the list, the door starting behind it
        drawn, drawn_w = [win_front_s + _FRONT_QUARTER, *pillars], [pillar_w, *widths]
    p[m.N_PILLARS] = min(len(drawn), m.MAX_PILLARS)
    for k, ps in enumerate(drawn[: m.MAX_PILLARS]):
        p[m.PILLAR0 + k] = x_of(ps)
        p[m.PILLAR_W0 + k] = drawn_w[k]
    # door seams
    s_a = sil.cowl_s
    if plan.style == "bus":
        seams = [0.25, 1.3]
    elif plan.doors <= 3:
        seams = [
            s_a + 0.05,
            min(s_a + (1.25 if L > 4.3 else 1.05), plan.front_oh + plan.wheelbase - 0.5),
        ]
        if pillars:
            # a two-door's door ends under its B-pillar: a seam ahead of it, with glass behind,
            # reads as a rear door
            seams[1] = pillars[0] + 0.03
    elif plan.has("sliding_doors"):
        seams = [s_a + 0.03, s_a + 1.0, s_a + 1.07, s_a + 1.95]
        # the sliding door's rail runs back along the rear quarter under the glass
        p[m.SLIDE_RAIL] = x_of(s_a + 1.95)
        if plan.has("belt_drop"):
            # Honda's "lightning bolt": the glass deepens sharply over the rear quarter
            _belt_step(p, x_of(s_a + 2.05), _BOLT_DROP, _BELT_DROP_RUN)
    else:
        b_pos = pillars[0] if pillars else s_a + 1.0
        seams = [s_a + 0.03, b_pos, _rear_door_end(plan, b_pos, arch_r)]
        if plan.rear == "pickup":
            seams[2] = min(seams[2], sil.rr_s - 0.08)
        if sail:
            seams[2] = pillars[1] - widths[1] / 2 + 0.12  # a short rear door, ending under it
        if plan.has("belt_drop"):
            # the window line dips behind the B-pillar (the i3's "stream flow")
            _belt_step(p, x_of(b_pos + 0.1), 0.16, _BELT_DROP_RUN)
        elif plan.has("belt_kick"):
            # the window line sweeps up over the rear quarter (level to the tail, a modern
            # crossover read as a 2000s estate: an Outback, Forester or XC90)
            kick_s = pillars[-1] - 0.05 if len(pillars) > 1 else seams[2] - 0.1
            _belt_step(p, x_of(kick_s), -_BELT_KICK[0], _BELT_KICK[1])
    if plan.has("front_quarter"):
        seams[0] = win_front_s + _FRONT_QUARTER
    if plan.has("sill_dip"):
        # the front door's glass dips at its front corner, under the mirror: an F-150's
        # signature from the P2 on (a level window line read as any full-size pickup's)
        p[m.SILL_DIP_X], p[m.SILL_DIP] = x_of(seams[0] + _SILL_DIP[0]), _SILL_DIP[1]
    if plan.has("tridion"):
        # the safety cell's contrasting band rises behind the doors to the roof
        p[m.TRIDION_X] = x_of(seams[-1] + 0.02)
    p[m.DOOR_N] = min(len(seams), m.MAX_DOORS)
    for k, ss in enumerate(seams[: m.MAX_DOORS]):
        p[m.DOOR0 + k] = x_of(ss)
    belt_mid = float(np.interp(L / 2, s, belt))
    p[m.HANDLE_Z] = belt_mid - 0.09
    p[m.CLADDING] = (
        1.0
        if plan.style in ("suv", "crossover", "pickup")
        and plan.grille != "none"
        and not plan.has("shoulders")  # a Humvee's arches are bare cut-outs in flat panels
        else 0.0
    )
    # a modern crossover's chunky black arch mouldings
    p[m.CLADDING_W] = 0.085 if plan.style in ("suv", "crossover") and plan.era > 0.6 else 0.05
    # the sill's cladding band (10 cm) or the rocker below the door seams (6.5 cm)
    p[m.ROCKER_H] = plan.clearance + _sill_rise(plan) + (0.1 if p[m.CLADDING] else 0.065)
    if plan.rear == "pickup":
        p[m.BED_FRONT] = x_of(sil.rr_s + 0.12)
        p[m.BED_REAR] = x_of(L - 0.06)
    if plan.rear == "open":
        p[m.CABIN_FRONT] = x_of(s_a + 0.12)
        p[m.CABIN_REAR] = x_of(sil.deck_s - 0.35)
    if plan.has("side_intakes"):
        p[m.SIDE_INTAKE] = x_rw + arch_r + 0.25
        # a modern mid-engined car's is a deep scoop in the door's rear (C8, 488, NSX NC1); a
        # slot there read as the first NSX's or a 348's
        p[m.SIDE_INTAKE_H] = 0.15 if plan.year >= _DEEP_INTAKES_FROM else 0.08
    _lamps_and_grille(p, plan, s, w, sil.nose_z, float(belt[-1]))
    p[m.RIM_STYLE], p[m.RIM_N], p[m.RIM_W], p[m.RIM_DARK] = _rim_design(plan)
    p[m.IS_CAR] = 1.0
    p[m.WHEEL_F] = x_fw
    p[m.WHEEL_R] = x_rw
    p[m.ARCH_R] = arch_r
    p[m.AXLE_Z] = plan.wheel_r
    p[m.ROOF_Z] = plan.height
    p[m.CLEARANCE] = plan.clearance
    return p


# the record's wheel design → (rim style, spokes, spoke width, dark); styles as in `_surfaces._rim`
_WHEELS: dict[str, tuple[float, float, float, float]] = {
    "five_spoke": (0.0, 5.0, 0.2, 0.0),
    "six_spoke": (0.0, 6.0, 0.26, 0.0),
    "three_spoke": (0.0, 3.0, 0.3, 0.0),
    "twin_spoke": (1.0, 5.0, 0.13, 0.0),
    "multi_spoke": (0.0, 10.0, 0.1, 0.0),
    "mesh": (2.0, 8.0, 0.15, 0.0),
    "disc": (5.0, 6.0, 0.42, 0.0),
    "steel": (3.0, 8.0, 0.2, 1.0),
    "aero": (4.0, 5.0, 0.2, 0.0),
}


def _rim_design(plan: BodyPlan) -> tuple[float, float, float, float]:
    """The wheel design: the record's, else by kind (off-roaders six thick spokes, sports cars
    many thin ones, older cars holes in a disc, the rest five to seven spokes)."""
    if plan.wheels is not None:
        return _WHEELS[plan.wheels]
    dark = 1.0 if plan.style in ("suv", "pickup") and plan.has("spare_wheel") else 0.0
    if plan.length > 6:
        return 3.0, 8.0, 0.2, dark
    if plan.has("spare_wheel") or plan.style == "pickup":
        return 0.0, 6.0, 0.28, dark
    if plan.engine in ("mid", "rear") or plan.style in ("coupe", "convertible"):
        return 1.0, 10.0, 0.12, dark
    if plan.era < 0.4:
        return 3.0, 6.0, 0.2, dark
    rng = np.random.default_rng(int(plan.length * 1000) * 7919 + int(plan.height * 1000))
    style = float(rng.integers(0, 2))
    spokes = float(rng.choice([5, 5, 6, 7]))
    return style, spokes, float(rng.uniform(0.12, 0.2)), dark


def _belt_step(p: F64, x: float, drop: float, run: float) -> None:
    """Step the side glass's lower edge down by `drop` (up where negative) behind x, over `run`."""
    p[m.BELT_DROP_X], p[m.BELT_DROP], p[m.BELT_STEP_RUN] = x, drop, run


def _rear_door_end(plan: BodyPlan, b_pillar_s: float, arch_r: float) -> float:
    """Where a four-door's rear door ends (s): a door's length behind the B-pillar, or at the rear
    arch's front."""
    return min(b_pillar_s + 1.0, plan.front_oh + plan.wheelbase - arch_r + 0.1)


def _place_lamp(p: F64, hw: float, hh: float, y: float, z: float) -> None:
    """Set the head lamp's half sizes and its centre (front-view |y|, z)."""
    p[m.HL_W], p[m.HL_H], p[m.HL_Y], p[m.HL_Z] = hw, hh, y, z


def _lamps_and_grille(
    p: F64, plan: BodyPlan, s: F64, w: F64, nose_z: float, belt_tail: float
) -> None:
    """Head lamps, grille, intake and tail lamps in front/rear-view coordinates (|y|, z);
    `belt_tail` is the belt's height at the tail."""
    L = plan.length
    big = L > 6
    w_front = float(np.interp(0.2, s, w))
    scale = float(np.clip(plan.width / 1.8, 0.75, 1.3)) * (1.3 if plan.style == "pickup" else 1.0)
    hw, hh, hround, slant, dy2, dz2, w2, h2 = _HEADLAMPS[plan.headlamps]
    hw, hh = hw * scale, hh * scale
    # measured from a front photograph where the vocabulary's size misleads (the Defender
    # L663's rounded squares, the Bronco's big round lamps); a round lamp stays round
    measured = plan.lamp_h > 0.0 or plan.lamp_w > 0.0
    if plan.lamp_h > 0.0:
        hh = plan.lamp_h / 2
        if plan.headlamps in _ROUND_LAMPS:
            hw = hh
    if plan.lamp_w > 0.0:
        hw = plan.lamp_w / 2
    if big:
        hw, hh, hround, slant = 0.22, 0.09, 0.3, 0.0
    p[m.HL_W], p[m.HL_H] = hw, hh
    p[m.HL_ROUND] = hround
    p[m.HL_SLANT] = _PICKUP_SLANT.get(plan.headlamps, slant) if plan.style == "pickup" else slant
    p[m.HL_Y] = w_front - hw - 0.03
    p[m.HL_Z] = nose_z - hh - 0.035 if not big else plan.clearance + 0.55
    if plan.style == "pickup":
        p[m.HL_Z] = nose_z - hh - 0.09  # on the tall upright face, below the bonnet's edge
    if plan.headlamps == "round_low":
        # in the bumper, inboard of its rounded corners; the small lamps at the bonnet's edge
        _place_lamp(p, hw, hh, w_front - hw - 0.11, nose_z - hh - 0.15)
    if plan.headlamps in ("round", "oval") and plan.has("round_body"):
        # big, upright lamps filling the nose's corners (Mini, 500, New Beetle)
        if not measured:
            hw, hh = hw * 1.25, hh * 1.25
        _place_lamp(p, hw, hh, w_front - hw - 0.04, nose_z - hh - 0.01)
    if plan.headlamps in ("round", "oval", "teardrop") and plan.has("fender_peaks"):
        # big lamps standing on the raised wings, either side of the sunken bonnet (911, Beetle)
        if not measured:
            hw, hh = hw * 1.2, hh * 1.2
        # a mid- or rear-engined car's stand upright on the wings' faces under their tops
        # (higher, the rounded nose clipped them)
        z = nose_z - hh - 0.03 if plan.engine in ("mid", "rear") else nose_z - hh * 0.35
        _place_lamp(p, hw, hh, w_front - hw - 0.09, z)
    p[m.HL2_DY], p[m.HL2_DZ], p[m.HL2_W], p[m.HL2_H] = dy2 * scale, dz2, w2 * scale, h2 * scale
    if plan.has("headlamp_pods"):
        p[m.HL_W] = p[m.HL_H] = p[m.HL2_W] = p[m.HL2_H] = 0.0  # the lamps stand in their pods
    p[m.HL_BAR] = 1.0 if plan.has("light_bar_front") else 0.0
    taper = _WRAPPED_LAMPS.get(plan.headlamps)
    laid_on_wings = plan.has("fender_peaks") or plan.has("headlamp_pods")
    in_bumper = plan.has("stepped_nose")  # the Multipla's lower lamps sit in its bumper's face
    if taper is not None and plan.year >= _WRAPPED_FROM and not (big or laid_on_wings or in_bumper):
        # a modern lamp runs some 9 % of the car's length back along the wing, ending ahead of
        # the arch (drawn on the front alone, every lamp read as the same thin brow; wrapped,
        # the Multipla's lower lamps read as a Renault Espace's, rounds 291-305)
        run = min(float(np.clip(0.09 * L, 0.2, 0.42)), plan.front_oh - 0.12)
        if run > 0.15:
            p[m.HL_WRAP], p[m.HL_WRAP_TAPER] = run, taper
    # Honda's wing is a thick chrome blade; Toyota's bar over its slim upper grille is a strip
    p[m.GRILLE_BAR_H] = 0.032 if plan.make == "honda" else 0.018
    if plan.style == "pickup":
        # a truck's bar is a broad chrome band through its grille (Silverado): a thin one
        # joining slim lamps read as an F-150 Lightning's light bar
        p[m.GRILLE_BAR_H] = 0.05
    gw, gh, ground, taper, waist, gap, slots, cross, pattern = _GRILLES[plan.grille]
    p[m.GR_W] = gw * w_front if not big else w_front * 0.55
    p[m.GR_H] = gh * {"pickup": 3.2, "truck": 1.6, "suv": 1.7}.get(plan.style, 1.0)
    if plan.style == "pickup":
        p[m.GR_W] = max(p[m.GR_W], 0.55 * w_front)
    if plan.grille == "seven_slot" and plan.headlamps != "round":
        p[m.GR_H] = gh * 1.2  # a Jeep road SUV's slots are short (tall ones read as a Rolls's)
    p[m.GR_ROUND] = ground
    p[m.GR_TAPER] = taper
    p[m.GR_WAIST] = waist
    p[m.GR_GAP] = gap
    p[m.GR_SLOTS] = slots
    p[m.GR_CROSS] = cross
    p[m.GR_TYPE] = _GRILLE_INFILL_BY_MAKE.get((plan.make, pattern), pattern)
    if plan.has("closed_grille"):
        p[m.GR_TYPE] = m.GR_CLOSED
    p[m.GR_BARS] = 5.0
    ford_truck = plan.style == "pickup" and plan.make == "ford" and plan.grille == "bars"
    pantheon = plan.make == "rolls-royce" and plan.grille == "vertical_bars"
    if ford_truck:
        # Ford's barred truck grilles: two thick chrome bars across a tall grille that fills the
        # space between the lamps, level with their tops (a dark block read as a Ram's)
        p[m.GR_TYPE] = m.GR_CHROME_BARS
        p[m.GR_BARS] = 2.0
        p[m.GR_H] = gh * 3.8
        if plan.has("c_clamp"):
            # its C-clamp lamps are tall blocks as deep as the grille's upper half (slim strips
            # over a barred block read as a Ram's), and no wider than 40 cm: the grille, not the
            # lamps, is the face (lamps as wide as the grille read as a Ram's or Silverado's)
            hh *= 1.8
            hw = min(hw, 0.2)
            _place_lamp(p, hw, hh, w_front - hw - 0.03, nose_z - hh - 0.09)
        p[m.GR_W] = p[m.HL_Y] - hw - 0.015
    elif plan.grille == "hot_rod":
        p[m.GR_TYPE] = m.GR_CHROME_BARS  # a hot-rod grille is bright bars (PT Cruiser, HHR)
        p[m.GR_BARS] = 4.0
    elif plan.make == "mini" and plan.grille == "oval":
        # a MINI's grille is ringed in chrome, reaches down into the bumper and is a hexagon, a
        # flat top over sides that close in towards its foot, barred across in bright slats (a
        # small dark oval between round lamps read as a Honda e in 7 of 11 rounds, 391-404;
        # ringed, with one bar, in 11 of 16, 391-446, and 9 of the baseline's 12, 447-462)
        p[m.GR_TYPE] = m.GR_CHROME_BARS
        p[m.GR_BARS] = _MINI_GRILLE_BARS
        p[m.GR_H] = gh * _MINI_GRILLE_DEPTH
        p[m.GR_ROUND], p[m.GR_TAPER] = _MINI_GRILLE_HEX
    elif plan.style == "van" and plan.make == "mercedes-benz" and plan.grille == "bars":
        # Mercedes's vans wear three thick chrome louvres in a tall grille between the lamps (a
        # dark barred slot read as a Ford Transit's)
        p[m.GR_TYPE] = m.GR_CHROME_BARS
        p[m.GR_BARS] = 3.0
        p[m.GR_H] = gh * 2.0
    elif pantheon:
        # the Pantheon grille: bright upright vanes in a chrome frame, nearly as tall as it is wide
        # (a wide, low dark box of bars read as a Ghost's, or a Hongqi's)
        p[m.GR_TYPE] = m.GR_CHROME_VANES
        p[m.GR_H] = gh * _PANTHEON_DEPTH
    elif plan.style == "suv" and plan.make == "ford" and plan.grille == "bars" and plan.era > 0.6:
        p[m.GR_BARS] = 3.0  # a modern Ford SUV's three thick bars (Explorer)
    p[m.GR_V] = 1.0 if plan.grille == "v_motion" else 0.0
    if p[m.GR_V]:
        # a wide, shallow mouth whose top meets the lamps' inner ends (an Alfa shield is narrow
        # and tall); the width is set at its middle, the taper widens the top by 45 %
        p[m.GR_W] = max(p[m.HL_Y], 0.3) / 1.4
        p[m.GR_H] = gh * 1.4
    p[m.TL_TRI] = 1.0 if plan.taillamps == "tri_bar" else 0.0
    p[m.TL_C] = 1.0 if plan.taillamps == "c_shape" else 0.0
    p[m.TL_L] = 1.0 if plan.taillamps == "l_shape" else 0.0
    p[m.TL_WRAP] = _TAIL_WRAP_FULL if plan.taillamps == "wrap" else 0.0
    if plan.taillamps in _TAIL_TURNS and plan.year >= _WRAPPED_FROM and not big:
        # a modern lamp turns the corner onto the flank (on the tail's face alone it read as a
        # shared, pasted-on part)
        p[m.TL_WRAP] = _TAIL_TURN
    top = p[m.HL_Z] + hh * (1.0 if ford_truck else 0.3)
    p[m.GR_Z] = top - p[m.GR_H]
    if plan.grille in _BIG_MOUTHS:
        p[m.GR_Z] = top - p[m.GR_H] * 0.8
    if pantheon:
        p[m.GR_Z] = plan.nose_z - 0.02 - p[m.GR_H]  # it stands from the bonnet's edge down
    if plan.grille == "hot_rod":
        # upright from under the bonnet's rounded edge down into the bumper (hung from the lamps
        # on raised wings, the PT Cruiser's showed only its top half)
        p[m.GR_H] = gh * 1.3
        p[m.GR_Z] = plan.nose_z - 0.07 - p[m.GR_H]
    if plan.has("grille_bar") and plan.grille in ("trapezoid", "single_frame"):
        # the bar and a slim upper grille span the lamps; the big mouth sits in the bumper below
        p[m.GR_Z] = p[m.HL_Z] - hh - 0.05 - p[m.GR_H]
    if plan.has("lamps_in_grille"):
        # one dark grille across the whole nose with the round lamps at its ends (Bronco)
        p[m.GR_W] = p[m.HL_Y] + hw + 0.03
        p[m.GR_H] = hh + 0.035
        p[m.GR_Z] = p[m.HL_Z]
    # keep the grille between the lamps (a narrow nose gets a shallower, narrower grille)
    room = p[m.HL_Y] - hw - 0.03
    if (
        plan.grille not in (*_BIG_MOUTHS, "none")
        and plan.style != "pickup"
        and not plan.has("lamps_in_grille")
    ):
        p[m.GR_W] = min(p[m.GR_W], max(room, 0.08))
    if (
        plan.grille in ("trapezoid", "single_frame")
        and not plan.has("grille_bar")
        and plan.style != "pickup"
    ):
        # its top stays clear of the lamps' inner ends: lamps biting into a mouth's top corners
        # make an hourglass, which every judge read as Lexus's spindle
        top_w = max(room, 0.08) / max(1.0 - p[m.GR_TAPER], 0.5)
        p[m.GR_W] = min(p[m.GR_W], top_w)
    if plan.grille == "inverted_trapezoid":
        # Ford's barred mouth hangs from the lamps' lower edges, its top as wide as the lamps'
        # centres are apart, narrowing into the bumper (between the lamps it read as a slot)
        p[m.GR_W] = p[m.HL_Y] * 0.95 / (1.0 - p[m.GR_TAPER])
        p[m.GR_Z] = p[m.HL_Z] - hh * 0.5 - p[m.GR_H]
    if plan.make == "land-rover" and plan.grille == "mesh":
        # a Range Rover's mesh runs from lamp to lamp, no taller than them (an upright mesh
        # block between them read as an Audi's single frame)
        p[m.GR_W] = p[m.HL_Y] - hw + 0.005
        p[m.GR_H] = max(hh * 1.15, 0.07)
        p[m.GR_Z] = p[m.HL_Z] - 0.01
    if plan.grille == "split" and plan.engine == "mid":
        # a mid-engined car's intakes sit outboard under its lamps (two small slots between
        # them read as BMW kidneys), deep black mouths down to the splitter (with 9 cm slots
        # the 458 was a 308 GTB or an Esprit, a 1980s wedge; rounds 805-812)
        p[m.GR_GAP] = p[m.HL_Y]
        p[m.GR_W] = p[m.HL_Y] + hw
        p[m.GR_H] = _MID_INTAKE_H
        p[m.GR_Z] = p[m.HL_Z] - hh - 0.015 - p[m.GR_H]
    if plan.grille_w > 0.0:
        # measured from a front photograph: the widest line of the outline (top or bottom)
        p[m.GR_W] = plan.grille_w / 2 / (1.0 + abs(p[m.GR_TAPER]))
    if p[m.HL_HALO] and plan.year >= _FLAT_HALO_FROM:
        # from the F30 on, BMW's rings fill the lamp's depth, cut flat by its top edge under a
        # light eyebrow (small whole rings in a long lamp read as the E39's, rounds 311-318)
        p[m.HL_HALO] = m.HALO_FLAT
    if plan.grille == "kidney" and plan.make == "bmw" and plan.year >= 2012:
        # BMW's lamps reach in to touch the kidneys from the F30 on (older ones stand apart)
        outer, inner = p[m.HL_Y] + p[m.HL_W], p[m.GR_W] + 0.005
        p[m.HL_Y], p[m.HL_W] = (outer + inner) / 2, (outer - inner) / 2
    p[m.LI_Z] = plan.clearance + 0.2  # clear of the nose's foot, where it turns under
    p[m.LI_W] = w_front * (0.5 if plan.grille != "none" else 0.62)
    p[m.LI_H] = 0.05 if plan.grille != "none" else 0.075
    if p[m.GR_W] > 0.0 and p[m.GR_Z] - p[m.GR_H] < p[m.LI_Z] + p[m.LI_H] + _INTAKE_GAP:
        # a mouth reaching down into the bumper is the intake (a second one under the MX-5's
        # oval read as another car, rounds 311-350)
        p[m.LI_W] = 0.0
    if plan.has("triple_intake") and p[m.LI_W] > 0.0:
        # a Porsche's three intakes reach out under its lamps (one wide slot read as a 928's,
        # rounds 375-389)
        p[m.LI_W] = w_front * _TRIPLE_INTAKE[0]
        p[m.LI_H] = _TRIPLE_INTAKE[1]
        p[m.LI_SPLIT] = w_front * _TRIPLE_INTAKE[2]
    if plan.headlamps == "round_low":
        # lamps low in the bumper (Fiat 500): the intake is a mouth between them, not under them
        p[m.LI_W] = max(min(p[m.LI_W], p[m.HL_Y] - p[m.HL_W] - 0.04), 0.05)
    tw, th, tround, tdy, tbar = _TAILLAMPS[plan.taillamps]
    tw, th = tw * scale, th * scale
    if big:
        tw, th, tround, tdy, tbar = 0.15, 0.12, 0.3, 0.0, 0.0
    w_rear = float(np.interp(L - 0.2, s, w))
    if plan.taillamps == "bar" and plan.year < 2000:
        # the 1990s' full-width band: lamps and the red panel between them one deep strip across
        # the tail (NSX, 964, 300ZX; a thin bar between small lamps read as a Lotus Esprit's)
        th, tbar = th * 1.8, _FULL_BAND
    p[m.TL_W], p[m.TL_H], p[m.TL_ROUND], p[m.TL2_DY], p[m.TL_BAR] = tw, th, tround, tdy, tbar
    p[m.TL_Y] = w_rear - tw - 0.02
    upright = plan.taillamps in ("vertical", "l_shape")
    if plan.rear in ("box", "hatch", "pickup", "truck") and upright:
        p[m.TL_Z] = plan.belt_z - th - 0.02
    elif plan.rear in ("box", "pickup", "truck"):
        p[m.TL_Z] = plan.clearance + (0.55 if not big else 0.5)
    elif plan.rear == "hatch":
        p[m.TL_Z] = plan.belt_z - th - 0.04
    else:
        p[m.TL_Z] = plan.deck_z - th - 0.06
    # bumper shut lines; cars of the 1990s and older wear a dark bumper band under them
    p[m.BUMPER_F_Z] = max(p[m.GR_Z] - p[m.GR_H] - 0.04, plan.clearance + 0.3)
    if plan.grille == "none" or big:
        p[m.BUMPER_F_Z] = max(p[m.LI_Z] + p[m.LI_H] + 0.06, plan.clearance + 0.3)
    if plan.has("kamm_glass"):
        p[m.KAMM_Z] = plan.deck_z - 0.07
        p[m.TL_Z] = p[m.KAMM_Z] - 0.075  # the lamps flank the pane
    p[m.BUMPER_R_Z] = max(p[m.TL_Z] - p[m.TL_H] - 0.08, plan.clearance + 0.28)
    # (sports cars kept body-colour bumpers: a band round a Viper or MX-5 read as a Corvette C4's)
    banded = plan.style not in ("bus", "truck", "coupe", "convertible")
    p[m.BUMPER_BAND] = 0.13 if plan.year < 1997 and banded else 0.0
    if plan.has("black_bumpers"):
        # black from the body's foot up to the shut lines (a band higher up, under the grille,
        # read as a stripe)
        p[m.BUMPER_F_Z] = p[m.BUMPER_R_Z] = plan.clearance + _BLACK_BUMPER
        p[m.BUMPER_BAND] = _BLACK_BUMPER
        if plan.has("lamps_in_grille"):
            # the steel bumper stands right under the grille (a band of paint between them
            # read as a Land Cruiser 250's face)
            p[m.BUMPER_F_Z] = max(p[m.BUMPER_F_Z], p[m.GR_Z] - p[m.GR_H] - 0.01)
            p[m.BUMPER_BAND] = p[m.BUMPER_F_Z] - plan.clearance
    if plan.taillamps == "l_shape":
        # the L stands on the belt at the tail (the bumper line keeps to the upright lamps' place
        # under it): its upright climbs the pillar beside the rear glass, its leg runs in under
        # the glass (under the belt it read as a Volvo XC90's)
        p[m.TL_Z] = belt_tail + p[m.TL_H] - 0.06
        p[m.TL_Y] -= 0.06  # inboard of the greenhouse's tumblehome, on the tail's face
