"""Vehicle design data: one record per model generation: real dimensions, signature features.

The records live in `data/generations.jsonl` (one JSON object a line, documented in
`docs/VEHICLE_DATA.md`). Dimensions come from public specifications (the record's `source` names
the kind); the optional `hints` are hard points estimated from side and front photographs, stored
in millimetres and degrees. Every record is validated when the file is read: a bad record stops
the load with its line number, so a typo can never reach a render.
"""

from __future__ import annotations

import functools
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Final

from carimg.bodystyles import BODY_STYLES
from carimg.years import MAX_YEAR

SOURCE_KINDS: Final = frozenset(
    {"maker specification sheet", "press kit", "registration data", "type approval"}
)
ENGINE_POSITIONS: Final = frozenset({"front", "mid", "rear"})
ROOF_LINES: Final = frozenset(
    {
        "three_box",  # saloon: separate boot
        "fastback",  # roof runs down to the tail in one line, boot lid below the glass
        "liftback",  # fastback whose glass lifts with the tailgate
        "hatch",  # short, steep hatchback
        "wagon",  # estate: roof runs to a near-vertical tailgate
        "box",  # upright SUV, off-roader or MPV box
        "bubble",  # arched roof, round cabin (Beetle, smart, Multipla)
        "floating",  # blacked-out pillars, the roof seems to float
        "targa",  # removable centre panel, fixed rear hoop
        "soft_top",  # convertible or roadster
        "cab",  # pickup cab
        "van",  # tall van body
    }
)
GRILLES: Final = frozenset(
    {
        "none",  # no opening at the nose (rear-engined, electric, mid-engined)
        "kidney",  # twin kidneys side by side
        "single_frame",  # one large trapezoid frame from bonnet to bumper
        "seven_slot",  # seven vertical slots
        "spindle",  # hourglass: narrow waist between upper and lower parts
        "split",  # two separate openings either side of a body-colour nose
        "bars",  # horizontal bars in a rectangle
        "mesh",  # honeycomb or mesh in a rectangle
        "shield",  # a narrow upright shield (Alfa, Bugatti)
        "slot",  # a thin slot between the lamps, the intake below
        "crosshair",  # a cross dividing the grille into four
        "vertical_bars",  # upright bars (waterfall)
        "oval",  # an oval or elliptic mouth
        "trapezoid",  # a wide mouth, wider at the bottom
        "inverted_trapezoid",  # a wide barred mouth, wider at the top (Ford from 2013)
        "v_motion",  # a wide mouth hugged by a chrome U (Nissan's V-motion from 2014)
        "hot_rod",  # a tall, narrow chrome grille of bars, round-topped (PT Cruiser, HHR)
    }
)
HEADLAMPS: Final = frozenset(
    {
        "round",  # one round lamp each side
        "round_low",  # big round lamps low in the bumper, small ones above at the bonnet (Fiat 500)
        "twin_round",  # two round lamps each side
        "oval",
        "rect",  # upright-ish rectangle
        "slim",  # slim horizontal strip
        "split",  # slim DRL strip above, main lamps lower down
        "popup",  # hidden pop-up lamps
        "stacked",  # two lamps one above the other
        "swept",  # long lamps swept back along the wing
        "teardrop",  # tall rounded lamp on a raised wing (911 996 style)
    }
)
TAILLAMPS: Final = frozenset(
    {
        "rect",
        "vertical",  # tall narrow lamps in the rear pillars
        "round",
        "twin_round",
        "bar",  # one light bar across the tail
        "slim",  # slim horizontal lamps
        "wrap",  # wrapping round the rear corner
        "tri_bar",  # three upright bars side by side each side (Mustang)
        "c_shape",  # a C-shaped band opening towards the centre (Civic from 2016)
        "l_shape",  # up the rear pillar, then a leg in along the tailgate (CR-V from 2017)
        "dual",  # two lamps side by side each side, a gap between them (Corvette C8)
    }
)
WHEELS: Final = frozenset(
    {
        "five_spoke",  # five plain spokes (Supra A80, RX-7 FD)
        "six_spoke",  # six broad spokes (an off-roader's alloys)
        "three_spoke",  # three broad spokes (Viper RT/10)
        "twin_spoke",  # five pairs of thin spokes (911 992, 458 Italia)
        "multi_spoke",  # ten thin spokes (Ford GT's BBS, GT-R R35)
        "mesh",  # a cross-laced mesh
        "disc",  # a disc pierced by round holes (TT 8N's Avus)
        "steel",  # a plain pressed-steel disc with small holes (Sprinter, Humvee)
        "aero",  # a closed, flat aero cover (Model 3, Prius XW30, Cybertruck)
    }
)
FEATURES: Final = frozenset(
    {
        "spare_wheel",  # spare wheel on the tailgate
        "exposed_hinges",  # door hinges outside
        "flared_fenders",  # wheel-arch flares
        "separate_fenders",  # fenders standing off the body (Wrangler, Defender, Beetle)
        "bonnet_bulge",  # raised bonnet centre or power bulge
        "clamshell",  # bonnet that wraps over the wings
        "hood_scoop",
        "light_bar_front",  # full-width light bar across the nose
        "two_tone",  # contrasting roof
        "racing_stripes",  # two stripes over bonnet, roof and deck (Ford GT, after the GT40)
        "stepped_nose",  # a low bonnet stepping up to the screen, lamps on the step (Multipla)
        "lamps_in_grille",  # one grille across the whole nose, the lamps at its ends (Bronco)
        "black_bumpers",  # deep black bumpers, front and rear, under the body colour (Hummer)
        "raked_face",  # grille and lamps lean back from the bumper's top to the bonnet (Hummer H1)
        "shoulders",  # the cabin stands well inboard of wide, flat shoulders (Hummer H1)
        "white_roof",  # a white roof over any paint (FJ Cruiser)
        "contrast_roof",  # white over a coloured paint, black over a white one (MINI F56)
        "white_upper",  # white above the belt and down the nose to the lamps (ID. Buzz two-tone)
        "sliding_doors",
        "roof_rails",
        "rear_wing",
        "hoop_wing",  # a body-colour rear wing on broad fins at the tail's corners (Supra A80)
        "ducktail",  # spoiler lip integrated in the tail
        "side_steps",
        "side_pipes",  # exhaust pipes along the sills under the doors (Viper)
        "triple_exhaust",  # three exhaust tips in a triangle at the tail's centre (458 Italia)
        "centre_exhaust",  # one big hexagonal outlet at the tail's centre (Aventador)
        "quad_exhaust",  # four square tips, a pair at each corner of the tail (Corvette C8)
        "side_gills",  # three slanted gills in each front wing behind the wheel (Viper)
        "taxi_sign",  # a blank lit roof sign over the screen (LEVC TX, a purpose-built taxi)
        "snorkel",
        "side_intakes",  # intakes ahead of the rear wheels (mid-engined)
        "fender_peaks",  # raised front wings with the lamps on top (mid or rear engine: `hood_z`
        # is the sunken bonnet's edge between them)
        "round_body",  # very rounded body sides and ends (Beetle, Fiat 500, Mini)
        "bull_bar",
        "safari_windows",  # alpine windows in the roof edge (Defender)
        "split_windscreen",
        "roll_hoop",
        "headlamp_pods",  # lamps in separate pods on the wings
        "faceted",  # flat panels meeting at sharp creases (Cybertruck, Countach)
        "grille_bar",  # a bright bar across the nose joining the head lamps (Honda's "wing")
        "halo_rings",  # two light rings in each head lamp (BMW)
        "fang_drl",  # a day-time light dropping from each lamp down the bumper (Peugeot)
        "ring_drl",  # a day-time light ring tracing each round lamp's rim (MINI from 2014)
        "four_dot",  # four light points in each head lamp (Porsche from 2014)
        "y_lamps",  # a Y-shaped light in each head lamp (Lamborghini from 2011)
        "boomerang_drl",  # a light along each head lamp's foot and up its outer end (Nissan)
        "engine_louvres",  # a slatted engine lid behind the rear glass (911 from 2012)
        "closed_grille",  # the grille's outline closed by a smooth panel (BMW i3)
        "c_clamp",  # a light C round each head lamp, open towards the grille (F-150 2015-2020)
        "belt_drop",  # the side glass steps down behind the sliding door (Odyssey's lightning bolt)
        "belt_kick",  # the side glass's lower edge sweeps up over the rear quarter (CR-V RW)
        "sill_dip",  # the front door's glass dips at its front corner, by the mirror (F-150)
        "wing_turrets",  # indicator pods standing on the front wings (G-Class)
        "tridion",  # a contrasting safety-cell frame round the cabin and behind the doors (smart)
        "kamm_glass",  # a cut-off Kamm tail with a second, upright pane under the spoiler (Prius)
        "wrap_glass",  # the rear glass wraps round one rear corner only (Nissan Cube)
        "wrap_quarters",  # the side glass wraps round both rear corners (FJ Cruiser)
        "side_vents",  # a dark vent with a bright fin behind each front wheel (Range Rover)
        "black_bonnet",  # a black bonnet and tailgate, a black band over the roof (BMW i3)
        "square_arches",  # flat-topped arches: the cut-out, flares and cladding (RAV4, H1, Bronco)
        "black_pillars",  # blacked-out pillars on any roof line (MINI from 2001)
        "sail_pillar",  # a wide blind pillar behind short rear-door glass (FJ Cruiser)
        "triple_intake",  # three lower intakes, a bar of body colour between each (Porsche 993 on)
        "four_light",  # no quarter light behind the rear door (Phantom; on a box, Kia Soul)
        "front_quarter",  # a small fixed light ahead of each front door (Prius XW20-XW50)
        "tail_panel",  # body colour between a mid-engined car's tail lamps, the mesh below (458)
        "hidden_rear_handles",  # the rear doors' handles hide in the window frame (Clio IV)
        "tail_band",  # a gloss-black band across the tail, the lamps set in it (Peugeot 208 II)
    }
)
CABS: Final = frozenset({"regular", "extended", "crew"})

_TYRE = re.compile(r"^(?P<w>\d{2,3})/(?P<a>\d{2,3})(?:Z?R|-)(?P<rim>\d{1,2}(?:\.5)?)$")
_DIMENSION_RANGES: Final[Mapping[str, tuple[float, float]]] = {
    "length": (1500, 13500),
    "width": (600, 2600),
    "height": (900, 3600),
    "wheelbase": (1000, 7500),
    "track_f": (50, 2200),  # motorcycles: the front tyre's width
    "track_r": (0, 2200),  # 0: single rear wheel (motorcycles)
    "clearance": (60, 450),
}
_HINT_RANGES: Final[Mapping[str, tuple[float, float]]] = {
    "cowl": (-1500, 2200),  # windscreen base behind the front axle (mm, + rearward)
    "hood_z": (350, 1700),  # bonnet leading edge height
    "belt_z": (550, 1900),  # beltline height at the B-pillar
    "screen_rake": (15, 90),  # windscreen angle from horizontal
    "backlight_rake": (10, 90),  # rear glass angle from horizontal
    "roof_end": (-2500, 2000),  # roof's rear end behind the rear axle (mm, + rearward)
    "deck_z": (400, 2200),  # boot lid or tail top height
    "grille_w": (200, 2200),  # the grille's (or a big mouth's) widest width, front view
    "lamp_h": (40, 400),  # the head lamp's depth at its deepest, front view
    "lamp_w": (40, 700),  # the head lamp's width, front view
    "roof_w": (600, 2200),  # the greenhouse's width across its top, front view
    "front_oh": (150, 2500),  # nose to front axle, where the maker publishes it
}
_REQUIRED: Final = ("make", "model", "generation", "years", "body", "doors", "source")
_KNOWN_KEYS: Final = frozenset(
    {
        *_REQUIRED,
        *_DIMENSION_RANGES,
        "aliases",
        "tyre",
        "tyre_r",
        "engine",
        "roof",
        "grille",
        "headlamps",
        "taillamps",
        "wheels",
        "features",
        "hints",
        "cab",
        "bed_length",
        "note",
    }
)


class DesignDataError(ValueError):
    """A design record breaks the documented format."""


@dataclass(frozen=True, slots=True)
class Tyre:
    """A tyre size: section width (mm), aspect ratio (%), rim diameter (inches)."""

    width: int
    aspect: int
    rim: float

    @property
    def diameter(self) -> float:
        """Overall diameter in millimetres."""
        return self.rim * 25.4 + 2 * self.width * self.aspect / 100

    @classmethod
    def parse(cls, text: str) -> Tyre:
        match = _TYRE.match(text.replace(" ", "").upper())
        if match is None:
            raise DesignDataError(f"tyre {text!r} is not a size like 225/45R17")
        return cls(int(match["w"]), int(match["a"]), float(match["rim"]))


@dataclass(frozen=True, slots=True)
class Generation:
    """One body shell of one model over the model years it was sold (lengths in millimetres)."""

    make: str
    model: str
    aliases: tuple[str, ...]
    generation: str
    years: tuple[int, int]
    body: str
    doors: int
    length: float
    width: float
    height: float
    wheelbase: float
    track_f: float
    track_r: float
    clearance: float
    tyre: Tyre
    tyre_r: Tyre
    engine: str
    roof: str
    grille: str
    headlamps: str
    taillamps: str
    wheels: str | None
    features: frozenset[str]
    hints: Mapping[str, float]
    cab: str | None
    bed_length: float | None
    source: str

    def covers(self, year: int) -> bool:
        return self.years[0] <= year <= self.years[1]

    def has(self, feature: str) -> bool:
        return feature in self.features

    @property
    def model_slugs(self) -> tuple[str, ...]:
        return (self.model, *self.aliases)


def _choice(record: Mapping[str, Any], key: str, allowed: frozenset[str], default: str) -> str:
    value = record.get(key, default)
    if value not in allowed:
        raise DesignDataError(f"{key} {value!r} is not one of {sorted(allowed)}")
    return str(value)


def _number(record: Mapping[str, Any], key: str, bounds: tuple[float, float]) -> float:
    value = record.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise DesignDataError(f"{key} must be a number of millimetres, got {value!r}")
    if not bounds[0] <= value <= bounds[1]:
        raise DesignDataError(f"{key} {value} is outside {bounds[0]:g}–{bounds[1]:g}")
    return float(value)


def parse_generation(record: Mapping[str, Any]) -> Generation:
    """One validated record; raises DesignDataError naming the first problem."""
    unknown = set(record) - _KNOWN_KEYS
    if unknown:
        raise DesignDataError(f"unknown keys {sorted(unknown)}")
    missing = [key for key in _REQUIRED if key not in record]
    if missing:
        raise DesignDataError(f"missing keys {missing}")
    years = record["years"]
    if not (
        isinstance(years, list)
        and len(years) == 2
        and all(isinstance(y, int) for y in years)
        and 1950 <= years[0] <= years[1] <= MAX_YEAR  # designs may begin before the catalog
    ):
        raise DesignDataError(f"years must be [first, last] model years, got {years!r}")
    if record["body"] not in BODY_STYLES:
        raise DesignDataError(f"body {record['body']!r} is not one of {BODY_STYLES}")
    if record["doors"] not in (0, 2, 3, 4, 5):
        raise DesignDataError(f"doors must be 0, 2, 3, 4 or 5, got {record['doors']!r}")
    if record["source"] not in SOURCE_KINDS:
        raise DesignDataError(f"source {record['source']!r} is not one of {sorted(SOURCE_KINDS)}")
    dims = {key: _number(record, key, bounds) for key, bounds in _DIMENSION_RANGES.items()}
    if dims["wheelbase"] >= dims["length"]:
        raise DesignDataError("wheelbase must be shorter than the length")
    if max(dims["track_f"], dims["track_r"]) > dims["width"]:
        raise DesignDataError("a track is wider than the body")
    tyre = Tyre.parse(str(record.get("tyre", "")))
    tyre_r = Tyre.parse(str(record["tyre_r"])) if "tyre_r" in record else tyre
    if tyre.diameter > 0.9 * dims["height"] + 200:
        raise DesignDataError(f"tyre {record['tyre']} is too big for a {dims['height']:g} body")
    features = record.get("features", [])
    if not isinstance(features, list) or set(features) - FEATURES:
        raise DesignDataError(f"features must be a list from {sorted(FEATURES)}, got {features!r}")
    hints = record.get("hints", {})
    if not isinstance(hints, dict) or set(hints) - set(_HINT_RANGES):
        raise DesignDataError(f"hints must be an object of {sorted(_HINT_RANGES)}")
    parsed_hints = {key: _number(hints, key, _HINT_RANGES[key]) for key in hints}
    if parsed_hints.get("front_oh", 0.0) >= dims["length"] - dims["wheelbase"]:
        raise DesignDataError("front_oh must leave a rear overhang behind the rear axle")
    aliases = record.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise DesignDataError("aliases must be a list of model slugs")
    cab = record.get("cab")
    if cab is not None and cab not in CABS:
        raise DesignDataError(f"cab {cab!r} is not one of {sorted(CABS)}")
    bed = record.get("bed_length")
    return Generation(
        make=str(record["make"]),
        model=str(record["model"]),
        aliases=tuple(aliases),
        generation=str(record["generation"]),
        years=(years[0], years[1]),
        body=str(record["body"]),
        doors=int(record["doors"]),
        tyre=tyre,
        tyre_r=tyre_r,
        engine=_choice(record, "engine", ENGINE_POSITIONS, "front"),
        roof=_choice(record, "roof", ROOF_LINES, "three_box"),
        grille=_choice(record, "grille", GRILLES, "bars"),
        headlamps=_choice(record, "headlamps", HEADLAMPS, "rect"),
        taillamps=_choice(record, "taillamps", TAILLAMPS, "rect"),
        wheels=_choice(record, "wheels", WHEELS, "") if "wheels" in record else None,
        features=frozenset(features),
        hints=parsed_hints,
        cab=cab,
        bed_length=None if bed is None else _number(record, "bed_length", (900, 3000)),
        source=str(record["source"]),
        **dims,
    )


class DesignData:
    """The generation records, found by make, model slug, model year and body style."""

    def __init__(self, generations: Iterable[Generation]) -> None:
        self.generations = tuple(generations)
        self._by_model: dict[tuple[str, str], list[Generation]] = defaultdict(list)
        for generation in self.generations:
            for slug in generation.model_slugs:
                self._by_model[(generation.make, slug)].append(generation)

    def __len__(self) -> int:
        return len(self.generations)

    def find(
        self, make: str, model: str, year: int, body_style: str | None = None
    ) -> Generation | None:
        """The record for a catalog vehicle, or None.

        A model slug without a record of its own falls back to the longest recorded slug it
        starts with (`911-carrera` → `911`). Of the records covering the year, one of the asked
        body style wins; carry-over years shared by two generations go to the newer one.
        """
        candidates = self._by_model.get((make, model))
        if candidates is None:
            parts = model.split("-")
            for cut in range(len(parts) - 1, 0, -1):
                candidates = self._by_model.get((make, "-".join(parts[:cut])))
                if candidates is not None:
                    break
        if not candidates:
            return None
        covering = [g for g in candidates if g.covers(year)]
        if not covering:
            return None
        ranked = sorted(covering, key=lambda g: (g.body == body_style, g.years[0]), reverse=True)
        return ranked[0]


def parse_design_data(lines: Iterable[str], origin: str = "generations.jsonl") -> DesignData:
    """Parse JSON-lines records; blank lines and lines starting with `#` are skipped."""
    generations = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            generations.append(parse_generation(json.loads(text)))
        except (json.JSONDecodeError, DesignDataError) as error:
            raise DesignDataError(f"{origin}:{number}: {error}") from error
    return DesignData(generations)


def read_design_data(path: Path) -> DesignData:
    with path.open(encoding="utf-8") as handle:
        return parse_design_data(handle, path.name)


@functools.cache
def load_design_data() -> DesignData:
    """The bundled records, read once per process."""
    text = resources.files("carimg.catalog").joinpath("data/generations.jsonl").read_text("utf-8")
    return parse_design_data(text.splitlines())
