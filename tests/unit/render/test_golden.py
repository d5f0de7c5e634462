"""Golden renders: output bytes change only with a bump of RENDER_CODE_VERSION.

The render version is part of every ETag and cache key. These renders use inline records (not the
bundled design data, whose digest is part of the version by itself), so they change when the
renderer's code does, and when a bundled record moves its body style's prior (the priors are the
medians of the bundled records). Between them the records below draw most of the vocabulary's
graphics, so a change to one of them shows here. When a change of output is intended: bump
`RENDER_CODE_VERSION` in `render/_version.py` and replace GOLDEN with what `python
tests/unit/render/test_golden.py` prints.
"""

from __future__ import annotations

import hashlib
from typing import Any

from carimg.catalog import parse_generation
from carimg.render import Appearance
from carimg.render._cars import build_from_plan
from carimg.render._model import VehicleModel
from carimg.render._plan import _plan_from_record, plan_for
from carimg.render._render import build_model, render_model
from carimg.render._version import RENDER_CODE_VERSION

SALOON: dict[str, Any] = {
    "make": "golden", "model": "saloon", "generation": "G1", "years": [2018, 2024],
    "body": "sedan", "doors": 4, "length": 4885, "width": 1840, "height": 1445,
    "wheelbase": 2825, "track_f": 1580, "track_r": 1590, "clearance": 145,
    "tyre": "235/45R18", "grille": "spindle", "headlamps": "slim", "taillamps": "bar",
    "roof": "three_box", "source": "maker specification sheet",
}  # fmt: skip
OFF_ROADER: dict[str, Any] = {
    **SALOON, "model": "off-roader", "body": "suv", "length": 4785, "height": 1850,
    "wheelbase": 3010, "clearance": 250, "tyre": "255/75R17", "grille": "seven_slot",
    "headlamps": "round", "taillamps": "vertical", "roof": "box",
    "features": ["spare_wheel", "flared_fenders", "exposed_hinges", "four_light"],
    "hints": {"screen_rake": 58, "cowl": 700},
}  # fmt: skip
LIFTBACK: dict[str, Any] = {
    **SALOON, "model": "liftback", "body": "hatchback", "doors": 5, "height": 1490,
    "grille": "slot", "headlamps": "swept", "taillamps": "rect", "roof": "liftback",
    "features": ["kamm_glass", "front_quarter"], "hints": {"backlight_rake": 25, "roof_end": 160},
    "wheels": "aero",
}  # fmt: skip
SUPERCAR: dict[str, Any] = {
    **SALOON, "model": "supercar", "body": "coupe", "doors": 2, "length": 4520, "width": 1950,
    "height": 1150, "wheelbase": 2650, "clearance": 110, "tyre": "245/35R19",
    "tyre_r": "305/30R20", "engine": "mid", "roof": "fastback", "grille": "split",
    "headlamps": "swept", "taillamps": "tri_bar", "wheels": "disc",
    "features": ["side_intakes", "racing_stripes", "quad_exhaust", "engine_louvres", "y_lamps",
                 "side_gills", "rear_wing"],
}  # fmt: skip
CROSSOVER: dict[str, Any] = {
    **SALOON, "model": "crossover", "body": "suv", "doors": 5, "length": 4700, "height": 1800,
    "wheelbase": 2750, "clearance": 200, "tyre": "235/60R18", "grille": "kidney",
    "headlamps": "swept", "taillamps": "l_shape", "roof": "box",
    "features": ["halo_rings", "square_arches", "sail_pillar", "two_tone", "safari_windows",
                 "side_vents", "closed_grille"],
    "hints": {"grille_w": 900},
}  # fmt: skip


def _models() -> dict[str, VehicleModel]:
    return {
        "saloon": build_from_plan(_plan_from_record(parse_generation(SALOON), 2020)),
        "off-roader": build_from_plan(_plan_from_record(parse_generation(OFF_ROADER), 2020)),
        "liftback": build_from_plan(_plan_from_record(parse_generation(LIFTBACK), 2020)),
        "supercar": build_from_plan(_plan_from_record(parse_generation(SUPERCAR), 2020)),
        "crossover": build_from_plan(_plan_from_record(parse_generation(CROSSOVER), 2020)),
        "truck": build_from_plan(plan_for(Appearance("golden", "truck", 2010, "truck"))),
        "motorcycle": build_model(Appearance("golden", "bike", 2015, "motorcycle")),
    }


def golden_hashes() -> dict[str, Any]:
    hashes = {}
    for name, model in _models().items():
        for yaw in (30, 90, 200):
            rgba = render_model(model, float(yaw), "red", size=192).rgba
            hashes[f"{name}@{yaw}"] = hashlib.sha256(rgba.tobytes()).hexdigest()[:16]
    return {"version": RENDER_CODE_VERSION, "hashes": hashes}


GOLDEN: dict[str, Any] = {'version': 102,
 'hashes': {'saloon@30': 'f5df798b93a2bfff',
            'saloon@90': '31622744f2eb6fb4',
            'saloon@200': 'e54e4d92a285f6c9',
            'off-roader@30': 'd4a45c19860d79d7',
            'off-roader@90': '06bda792fdf2d747',
            'off-roader@200': '8fc639710f7ea3f7',
            'liftback@30': '3e4e5c5a026eabc8',
            'liftback@90': '2c5a9fe9ad2b05ba',
            'liftback@200': '3309351f341302ab',
            'supercar@30': '13fa73d265c7e27a',
            'supercar@90': 'e0549fdca67f09bd',
            'supercar@200': 'f956ea03670e6218',
            'crossover@30': 'a5a8a807e02d488b',
            'crossover@90': '7048fd5b525382dc',
            'crossover@200': '0a103f67a04f5f38',
            'truck@30': '58984132484cca08',
            'truck@90': '17ff0400288eee7a',
            'truck@200': '53ca800175b7a47f',
            'motorcycle@30': 'ea77d3d26d4538d7',
            'motorcycle@90': 'c77c5233c280e9b2',
            'motorcycle@200': '01f731661fdaf101'}}  # fmt: skip


def test_output_changes_only_with_a_version_bump() -> None:
    now = golden_hashes()
    if now["hashes"] != GOLDEN["hashes"]:
        assert now["version"] != GOLDEN["version"], (
            "the renderer's output changed: bump RENDER_CODE_VERSION and update GOLDEN"
        )
    assert now == GOLDEN, "update GOLDEN to the bumped version's hashes"


if __name__ == "__main__":
    import pprint

    pprint.pprint(golden_hashes(), sort_dicts=False)
