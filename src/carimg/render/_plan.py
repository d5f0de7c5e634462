"""The body plan of a car-like vehicle: its real dimensions, hard points and signature features.

A plan comes from the vehicle's generation record (`carimg.catalog` design data) where there is
one. Vehicles without a record get their body style's proportions — the medians of the records of
that style, so a segment looks as big as the real ones — and their make's design language (the
grille and lamps its records use most in that era). All lengths are metres, `s` runs from the
nose (0) to the tail (`length`), z up from the ground.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections import Counter
from dataclasses import dataclass, replace

import numpy as np

from carimg.catalog import Generation, Tyre, load_design_data
from carimg.render._appearance import Appearance, stable_seed

_REAR_ENGINED_COUPE_NOSE = 0.47  # a rear-engined coupe's front overhang, a share of both (911)

# how a rear end is drawn: notch (saloon boot), fast (fastback), hatch (hatch, wagon, SUV),
# box (vertical tail: vans, buses), pickup (cab and bed), open (roadster), truck (cab and box)
_REAR_OF_ROOF = {
    "three_box": "notch",
    "fastback": "fast",
    "liftback": "fast",
    "floating": "notch",
    "targa": "fast",
    "hatch": "hatch",
    "wagon": "hatch",
    "bubble": "hatch",
    "box": "hatch",
    "van": "box",
    "cab": "pickup",
    "soft_top": "open",
}


@dataclass(frozen=True, slots=True)
class BodyPlan:
    """Everything the car geometry and its decals are built from (metres, degrees)."""

    make: str
    style: str
    length: float
    width: float
    height: float
    wheelbase: float
    front_oh: float
    track: float
    clearance: float
    wheel_r: float  # tyre radius
    rim_ratio: float  # rim diameter over tyre diameter
    tyre_w: float
    nose_z: float  # bonnet leading edge
    cowl_s: float  # windscreen base, from the nose
    belt_z: float
    screen_rake: float
    backlight_rake: float
    roof_end_s: float  # rear end of the roof, from the nose
    deck_z: float
    rear: str
    engine: str
    roof: str
    doors: int
    grille: str
    headlamps: str
    taillamps: str
    wheels: str | None  # the record's wheel design, None = by kind (see `_cars._rim_design`)
    features: frozenset[str]
    year: int
    recorded: bool  # built from a generation record (not from priors)
    grille_w: float = 0.0  # the grille's or mouth's widest width, 0 = the vocabulary's
    lamp_h: float = 0.0  # the head lamp's depth at its deepest, 0 = the vocabulary's
    lamp_w: float = 0.0  # the head lamp's width, 0 = the vocabulary's (round lamps: its depth)
    roof_w: float = 0.0  # the greenhouse's width across its top, 0 = the body style's tumblehome

    @property
    def rear_oh(self) -> float:
        return self.length - self.front_oh - self.wheelbase

    @property
    def era(self) -> float:
        """0 for 1980 and older, 1 for 2025 and newer."""
        return float(np.clip((self.year - 1980) / 45.0, 0.0, 1.0))

    def has(self, feature: str) -> bool:
        return feature in self.features


@dataclass(frozen=True, slots=True)
class _Prior:
    """A body style's typical record, for vehicles without one (mm, degrees)."""

    length: float
    width: float
    height: float
    wheelbase: float
    front_oh: float
    clearance: float
    tyre: float  # overall diameter
    cowl: float
    hood_z: float
    belt_z: float
    screen_rake: float
    backlight_rake: float
    roof_end: float
    deck_z: float
    roof: str
    doors: int


_PRIORS: dict[str, _Prior] = {
    "sedan": _Prior(
        4800, 1840, 1450, 2800, 950, 140, 680, 520, 760, 960, 27, 24, -320, 1020, "three_box", 4),
    "hatchback": _Prior(
        4250, 1780, 1470, 2620, 880, 140, 640, 420, 760, 970, 29, 50, 150, 1000, "hatch", 5),
    "wagon": _Prior(
        4800, 1840, 1490, 2790, 930, 145, 670, 500, 760, 980, 28, 70, 700, 1000, "wagon", 5),
    "coupe": _Prior(
        4650, 1850, 1360, 2750, 980, 125, 690, 620, 720, 900, 25, 20, -380, 980, "fastback", 2),
    "convertible": _Prior(
        4500, 1820, 1300, 2650, 950, 125, 670, 600, 720, 880, 30, 25, -300, 950, "soft_top", 2),
    "fastback": _Prior(
        4750, 1880, 1400, 2850, 980, 130, 700, 560, 740, 940, 25, 16, -200, 980, "liftback", 4),
    "suv": _Prior(
        4850, 1960, 1790, 2850, 940, 210, 780, 650, 1050, 1150, 34, 72, 620, 1200, "box", 5),
    "crossover": _Prior(
        4550, 1860, 1660, 2700, 920, 190, 720, 480, 950, 1080, 31, 58, 520, 1100, "box", 5),
    "pickup": _Prior(
        5800, 2000, 1900, 3600, 960, 230, 820, 800, 1150, 1280, 36, 85, -1700, 1300, "cab", 4),
    "van": _Prior(
        5400, 2020, 2450, 3300, 900, 180, 720, -450, 950, 1150, 45, 90, 1100, 2300, "van", 4),
    "minivan": _Prior(
        5100, 1990, 1770, 3000, 950, 150, 720, 250, 900, 1020, 30, 70, 900, 1100, "box", 5),
    "kei": _Prior(
        3395, 1475, 1750, 2450, 520, 150, 560, 80, 830, 960, 45, 82, 380, 1100, "box", 5),
    "bus": _Prior(
        12000, 2550, 3150, 6000, 2650, 300, 1000, -2300, 1000, 1150, 85, 90, 3300, 2900, "van", 2),
    "truck": _Prior(
        7400, 2350, 2750, 4100, 1300, 250, 1000, -600, 1250, 1450, 80, 90, -3800, 1500, "cab", 2),
    "other": _Prior(
        4500, 1850, 1620, 2700, 900, 180, 720, 480, 900, 1030, 30, 60, 450, 1080, "box", 5),
}  # fmt: skip
_RIGID_STYLES = ("bus", "truck")  # their priors are hand-set (no records of those styles)


@functools.cache
def _segment_prior(style: str) -> _Prior:
    """A body style's typical record: its envelope is the median of that style's records (the
    hand-set prior where there are fewer than five, and always for buses and trucks)."""
    base = _PRIORS.get(style, _PRIORS["other"])
    records = [g for g in load_design_data().generations if g.body == style]
    if len(records) < 5 or style in _RIGID_STYLES:
        return base

    def med(values: list[float]) -> float:
        return float(statistics.median(values))

    return replace(
        base,
        length=med([g.length for g in records]),
        width=med([g.width for g in records]),
        height=med([g.height for g in records]),
        wheelbase=med([g.wheelbase for g in records]),
        front_oh=base.front_oh * med([g.length for g in records]) / base.length,
        clearance=med([g.clearance for g in records]),
        tyre=med([g.tyre.diameter for g in records]),
    )


@functools.cache
def _make_language(make: str, era_bucket: int) -> tuple[str, str, str] | None:
    """The grille, headlamps and tail lamps a make's records use most near an era (a decade)."""
    records = [g for g in load_design_data().generations if g.make == make]
    if not records:
        return None
    near = sorted(records, key=lambda g: abs((g.years[0] + g.years[1]) / 2 - era_bucket))
    pool = near[: max(3, len(near) // 2)]

    def most(values: list[str]) -> str:
        return Counter(values).most_common(1)[0][0]

    return (
        most([g.grille for g in pool]),
        most([g.headlamps for g in pool]),
        most([g.taillamps for g in pool]),
    )


def _rear_of(style: str, roof: str, backlight_rake: float) -> str:
    if style == "truck":
        return "truck"
    if style in ("van", "bus"):
        return "box"
    if style == "pickup":
        # a raked rear glass on a pickup is a sail over the bed (Cybertruck)
        return "fast" if backlight_rake < 45 else "pickup"
    if roof in ("floating", "targa"):
        # a pillar treatment, not a tail: the body style says how the roof ends
        return {"sedan": "notch", "coupe": "fast", "convertible": "fast", "fastback": "fast"}.get(
            style, "hatch"
        )
    return _REAR_OF_ROOF.get(roof, "hatch")


def _hint(g: Generation | None, key: str, default: float) -> float:
    return g.hints.get(key, default) if g is not None else default


def plan_for(app: Appearance) -> BodyPlan:
    """The body plan of a car-like appearance: from its generation record, or from priors."""
    data = load_design_data()
    record = data.find(app.make, app.model, app.year, app.body_style)
    if record is not None and record.body in ("motorcycle", "scooter", "auto-rickshaw"):
        record = None
    if record is not None and app.variation == 0:
        return _plan_from_record(record, app.year)
    if record is not None:
        # feedback asked for another look: same car, a slightly different reading of its hints
        return _jittered(_plan_from_record(record, app.year), app)
    return _plan_from_prior(app)


def _plan_from_record(g: Generation, year: int) -> BodyPlan:
    prior = _segment_prior(g.body)
    style = g.body
    roof = g.roof
    length, height = g.length, g.height
    # where the maker publishes no front overhang, the cowl prior and engine place the axle
    front_oh = _front_overhang(g, prior)
    cowl = _hint(g, "cowl", prior.cowl * g.wheelbase / prior.wheelbase)
    default_belt = prior.belt_z * height / prior.height
    tall = style in ("suv", "pickup", "van", "minivan", "kei", "crossover", "truck", "bus")
    default_belt = min(default_belt, height - (520 if tall else 380))
    belt = _hint(g, "belt_z", default_belt)
    nose = _hint(g, "hood_z", min(prior.hood_z * height / prior.height, belt - 60))
    screen = _hint(g, "screen_rake", prior.screen_rake)
    backlight = _hint(g, "backlight_rake", _backlight_default(roof, prior))
    rear_axle_s = front_oh + g.wheelbase
    roof_end = _hint(g, "roof_end", _roof_end_default(roof, g, prior))
    deck = _hint(g, "deck_z", min(prior.deck_z * height / prior.height, belt + 120))
    if style == "pickup":
        # the cab ends where the bed (its published length, or a typical one) begins
        bed = g.bed_length or (1700 if g.cab == "crew" else 2000)
        roof_end = min(roof_end, length - bed - 150 - rear_axle_s)
    return BodyPlan(
        make=g.make,
        style=style,
        length=length / 1000,
        width=g.width / 1000,
        height=height / 1000,
        wheelbase=g.wheelbase / 1000,
        front_oh=front_oh / 1000,
        track=(g.track_f + g.track_r) / 2000 if g.track_r > 0 else g.track_f / 1000,
        clearance=g.clearance / 1000,
        wheel_r=(g.tyre.diameter + g.tyre_r.diameter) / 4000,
        rim_ratio=(g.tyre.rim * 25.4) / g.tyre.diameter,
        tyre_w=(g.tyre.width + g.tyre_r.width) / 2000,
        nose_z=nose / 1000,
        cowl_s=(front_oh + cowl) / 1000,
        belt_z=belt / 1000,
        screen_rake=screen,
        backlight_rake=backlight,
        roof_end_s=(rear_axle_s + roof_end) / 1000,
        deck_z=deck / 1000,
        rear=_rear_of(style, roof, backlight),
        engine=g.engine,
        roof=roof,
        doors=g.doors,
        grille=g.grille,
        headlamps=g.headlamps,
        taillamps=g.taillamps,
        wheels=g.wheels,
        features=g.features,
        year=year,
        recorded=True,
        grille_w=_hint(g, "grille_w", 0.0) / 1000,
        lamp_h=_hint(g, "lamp_h", 0.0) / 1000,
        lamp_w=_hint(g, "lamp_w", 0.0) / 1000,
        roof_w=_hint(g, "roof_w", 0.0) / 1000,
    )


def _front_overhang(g: Generation, p: _Prior) -> float:
    """Front overhang (mm): the published one, else the prior's share of the overhangs, shorter
    for mid/rear engines."""
    if "front_oh" in g.hints:
        return g.hints["front_oh"]
    share = p.front_oh / max(p.length - p.wheelbase, 1.0)
    if g.engine == "mid":
        share = 0.46
    elif g.engine == "rear" and g.roof == "fastback":
        # a rear-engined coupe's engine hangs out behind its rear axle, so its tail overhangs
        # further than its nose (the other way round, the 911 read as a long-nosed 928)
        share = _REAR_ENGINED_COUPE_NOSE
    elif g.engine == "rear":
        share = 0.52
    if g.body in ("van", "bus", "kei") and g.engine == "front":
        share = min(share, 0.55)
    return max(200.0, (g.length - g.wheelbase) * share)


def _backlight_default(roof: str, p: _Prior) -> float:
    return {
        "three_box": 24.0,
        "fastback": 17.0,
        "liftback": 17.0,
        "floating": 24.0,
        "targa": 20.0,
        "hatch": 55.0,
        "wagon": 72.0,
        "bubble": 50.0,
        "box": 78.0,
        "van": 88.0,
        "cab": 88.0,
    }.get(roof, p.backlight_rake)


def _roof_end_default(roof: str, g: Generation, p: _Prior) -> float:
    rear_oh = g.length - g.wheelbase - _front_overhang(g, p)
    return {
        "three_box": -0.12 * g.wheelbase,
        "floating": -0.12 * g.wheelbase,
        "fastback": -0.05 * g.wheelbase,
        "liftback": 0.0,
        "targa": -0.15 * g.wheelbase,
        "hatch": 0.45 * rear_oh,
        "bubble": 0.3 * rear_oh,
        "wagon": 0.78 * rear_oh,
        "box": 0.78 * rear_oh,
        "van": 0.95 * rear_oh,
        "soft_top": -0.3 * g.wheelbase,
        "cab": -0.4 * g.wheelbase,
    }.get(roof, p.roof_end)


def _plan_from_prior(app: Appearance) -> BodyPlan:
    style = app.body_style if app.body_style in _PRIORS else "other"
    p = _segment_prior(style)
    rng = np.random.default_rng(stable_seed("model", app.make, app.model, app.variation))

    def j(scale: float) -> float:
        return 1.0 + float(rng.uniform(-scale, scale))

    length = p.length * j(0.04)
    wheelbase = p.wheelbase * length / p.length * j(0.02)
    height = p.height * j(0.025)
    rim = 15.0 + 5.0 * float(np.clip((app.year - 1990) / 35, 0, 1))
    tyre = p.tyre * j(0.03)
    grille, headlamps, taillamps = _make_language(app.make, (app.year // 10) * 10 + 5) or (
        _generic_language(app)
    )
    g = Generation(
        make=app.make,
        model=app.model,
        aliases=(),
        generation="prior",
        years=(app.year, app.year),
        body=style,
        doors=p.doors,
        length=length,
        width=p.width * j(0.02),
        height=height,
        wheelbase=wheelbase,
        track_f=p.width * 0.85,
        track_r=p.width * 0.85,
        clearance=p.clearance,
        tyre=_tyre_for(tyre, rim, p.width),
        tyre_r=_tyre_for(tyre, rim, p.width),
        engine="front",
        roof=p.roof,
        grille=grille,
        headlamps=headlamps,
        taillamps=taillamps,
        wheels=None,
        features=frozenset({"roof_rails"} if style in ("suv", "wagon") else set()),
        hints={},
        cab="crew" if style == "pickup" else None,
        bed_length=None,
        source="registration data",
    )
    return replace(_plan_from_record(g, app.year), recorded=False)


def _tyre_for(diameter: float, rim: float, width: float) -> Tyre:
    section = int(round(width * 0.12 / 5) * 5)
    aspect = int(np.clip(round((diameter - rim * 25.4) / 2 / section * 100 / 5) * 5, 25, 85))
    return Tyre(section, aspect, rim)


def _generic_language(app: Appearance) -> tuple[str, str, str]:
    rng = np.random.default_rng(stable_seed("make", app.make))
    grille = str(rng.choice(["bars", "mesh", "trapezoid", "split", "single_frame"]))
    modern = app.year >= 2010
    headlamps = str(rng.choice(["slim", "swept", "split"] if modern else ["rect", "oval", "round"]))
    taillamps = str(rng.choice(["bar", "slim", "wrap"] if modern else ["rect", "wrap"]))
    return grille, headlamps, taillamps


def _jittered(plan: BodyPlan, app: Appearance) -> BodyPlan:
    rng = np.random.default_rng(stable_seed("variation", app.make, app.model, app.variation))
    return replace(
        plan,
        cowl_s=plan.cowl_s + float(rng.uniform(-0.05, 0.05)),
        belt_z=plan.belt_z * (1 + float(rng.uniform(-0.02, 0.02))),
        screen_rake=plan.screen_rake + float(rng.uniform(-2, 2)),
    )


def screen_run(plan: BodyPlan, rise: float) -> float:
    """Horizontal run of a windscreen rising `rise` metres at the plan's rake."""
    return rise / math.tan(math.radians(max(plan.screen_rake, 5.0)))
