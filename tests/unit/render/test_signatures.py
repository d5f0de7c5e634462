"""Signature shapes and graphics: each word of the design vocabulary reaches the model it names."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np
import pytest

from carimg.catalog import parse_generation
from carimg.catalog._design import FEATURES, WHEELS
from carimg.render import _materials as m
from carimg.render._cars import _half_section, _Silhouette, build_from_plan
from carimg.render._model import VehicleModel
from carimg.render._plan import _plan_from_record
from carimg.render._render import render_model
from carimg.render._shade import _boomerang_light, _halo_rings, _head_lamp, body_decal
from carimg.render._shapes import prof
from carimg.render._studio import studio_map
from carimg.render._surfaces import contrast_roof_material, shade_material
from carimg.render._views import VIEW_YAWS

HATCH: dict[str, Any] = {
    "make": "signature", "model": "hatch", "generation": "S1", "years": [2016, 2022],
    "body": "hatchback", "doors": 5, "length": 4300, "width": 1800, "height": 1450,
    "wheelbase": 2650, "track_f": 1550, "track_r": 1550, "clearance": 140,
    "tyre": "225/45R17", "grille": "bars", "headlamps": "swept", "taillamps": "rect",
    "roof": "hatch", "source": "maker specification sheet",
}  # fmt: skip


def model_of(year: int = 2020, **changes: Any) -> VehicleModel:
    record = parse_generation({**HATCH, "years": [min(year, 2016), 2022], **changes})
    return build_from_plan(_plan_from_record(record, year))


def body_half_width_at(model: VehicleModel, x: float) -> float:
    """Half width of the body shell's vertices within 2 cm of x."""
    verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
    near = verts[np.abs(verts[:, 0] - x) < 0.02]
    return float(np.abs(near[:, 1]).max())


@pytest.mark.parametrize(
    ("changes", "slot"),
    [
        ({"features": ["grille_bar"]}, m.GRILLE_BAR),
        ({"features": ["halo_rings"]}, m.HL_HALO),
        ({"features": ["fang_drl"]}, m.HL_FANG),
        ({"grille": "v_motion"}, m.GR_V),
        ({"taillamps": "tri_bar"}, m.TL_TRI),
        ({"taillamps": "c_shape"}, m.TL_C),
        ({"taillamps": "l_shape"}, m.TL_L),
        ({"body": "minivan", "roof": "van", "features": ["sliding_doors", "belt_drop"]},
         m.BELT_DROP),
        ({"features": ["tridion"]}, m.TRIDION_X),
        ({"roof": "liftback", "features": ["kamm_glass"]}, m.KAMM_Z),
        ({"roof": "box", "features": ["wrap_glass"]}, m.WRAP_GLASS),
        ({"features": ["side_vents"]}, m.SIDE_VENT),
        ({"features": ["black_bonnet"]}, m.BLACK_BONNET),
        ({"features": ["white_roof"]}, m.ROOF_WHITE),
        ({"features": ["contrast_roof"]}, m.ROOF_CONTRAST),
        ({"features": ["white_upper"]}, m.UPPER_WHITE),
        ({"features": ["four_dot"]}, m.HL_DOTS),
        ({"features": ["ring_drl"]}, m.HL_RING),
        ({"features": ["y_lamps"]}, m.HL_YSIGN),
        ({"features": ["boomerang_drl"]}, m.HL_BOOMERANG),
        ({"features": ["stepped_nose"]}, m.STEP_X),
        ({"features": ["triple_exhaust"]}, m.EXHAUST),
        ({"features": ["centre_exhaust"]}, m.EXHAUST),
        ({"features": ["quad_exhaust"]}, m.EXHAUST),
        ({"features": ["tail_band"]}, m.TAIL_BAND),
        ({"features": ["hidden_rear_handles"]}, m.HIDDEN_REAR_HANDLES),
        ({"roof": "floating"}, m.FLOAT_ROOF),
        ({"features": ["side_gills"]}, m.SIDE_VENT),
        ({"features": ["belt_drop"]}, m.BELT_DROP),
        ({"features": ["racing_stripes"]}, m.STRIPES),
        ({"features": ["c_clamp"]}, m.HL_CLAMP),
        ({"body": "pickup", "roof": "cab", "features": ["sill_dip"]}, m.SILL_DIP),
        ({"roof": "box", "features": ["safari_windows"]}, m.SAFARI),
    ],
)  # fmt: skip
def test_a_signature_word_switches_on_its_graphic(changes: dict[str, Any], slot: int) -> None:
    assert model_of().decal[slot] == 0.0
    assert model_of(**changes).decal[slot] != 0.0


def test_wing_turrets_stand_on_the_front_wings() -> None:
    def lamp_triangles(model: VehicleModel) -> int:
        return int((model.mesh.mats == m.HEADLIGHT).sum())

    assert lamp_triangles(model_of(features=["wing_turrets"])) > lamp_triangles(model_of())


def test_the_published_width_is_taken_at_the_haunches_over_the_wheels() -> None:
    coupe = model_of(body="coupe", doors=2, roof="fastback", engine="rear")
    half = HATCH["width"] / 2000
    rear_wheel = float(coupe.decal[m.WHEEL_R])
    middle = (float(coupe.decal[m.WHEEL_F]) + rear_wheel) / 2
    assert body_half_width_at(coupe, rear_wheel) == pytest.approx(half, rel=0.02)
    assert body_half_width_at(coupe, middle) < half * 0.96


def test_a_fastback_coupes_roof_falls_to_its_tail_but_a_fastback_saloon_keeps_a_deck() -> None:
    for body, doors, falls in (("coupe", 2, True), ("sedan", 4, False)):
        record = parse_generation({**HATCH, "body": body, "doors": doors, "roof": "fastback"})
        silhouette = _Silhouette(_plan_from_record(record, 2020))
        heights = dict(silhouette.points())
        length = silhouette.plan.length
        deck_fall = heights[silhouette.deck_s] - heights[length - 0.1]
        assert (deck_fall > 0.05) is falls


def test_a_five_door_fastbacks_roof_arcs_from_its_peak_to_the_tail() -> None:
    # held level and then cut by straight glass, the Model S read as a 1980s wedge coupe
    record = parse_generation({**HATCH, "roof": "liftback", "length": 4900})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    points = silhouette.points()
    s_peak = max(s for s, z in points if z == silhouette.roof_z)
    s_end = silhouette.deck_s
    s_mid = (s_peak + s_end) / 2
    ss, zs = zip(*points, strict=True)
    straight = (silhouette.roof_z + float(np.interp(s_end, ss, zs))) / 2
    assert float(np.interp(s_mid, ss, zs)) > straight + 0.04


def test_a_mouth_stays_clear_of_the_lamps_inner_ends() -> None:
    decal = model_of(grille="trapezoid").decal
    top_half_width = decal[m.GR_W] * (1 - decal[m.GR_TAPER])
    assert top_half_width <= decal[m.HL_Y] - decal[m.HL_W]


def test_a_pickups_mouth_keeps_its_full_width() -> None:
    pickup = model_of(body="pickup", roof="cab", grille="trapezoid", cab="crew", length=5300)
    decal = pickup.decal
    assert decal[m.GR_W] * (1 - decal[m.GR_TAPER]) > decal[m.HL_Y] - decal[m.HL_W]


def test_a_makes_own_infill_replaces_the_vocabularys() -> None:
    ford = model_of(make="ford", grille="trapezoid").decal
    lexus = model_of(make="lexus", grille="trapezoid").decal
    assert (ford[m.GR_TYPE], lexus[m.GR_TYPE]) == (0.0, 3.0)  # bars, honeycomb


def test_a_grille_bar_puts_the_mouth_below_the_lamps() -> None:
    decal = model_of(grille="trapezoid", features=["grille_bar"]).decal
    assert decal[m.GR_Z] + decal[m.GR_H] < decal[m.HL_Z] - decal[m.HL_H]


@pytest.mark.parametrize("feature", ["round_body", "fender_peaks"])
def test_round_lamps_grow_on_a_round_body_or_raised_wings(feature: str) -> None:
    plain = model_of(headlamps="round").decal
    grown = model_of(headlamps="round", features=[feature]).decal
    assert grown[m.HL_W] > plain[m.HL_W] * 1.15


def test_a_modern_crossovers_belt_rises_towards_the_tail_more_than_an_estates() -> None:
    def belt_rise(model: VehicleModel) -> float:
        belt = model.profile[1]
        return float(belt[len(belt) // 5] - belt[-len(belt) // 5])  # rear minus front

    crossover = model_of(body="crossover", height=1600, clearance=180)
    estate = model_of(body="wagon", roof="wagon")
    assert belt_rise(crossover) > belt_rise(estate) + 0.03


def test_a_liftbacks_glass_keeps_its_rake_so_the_roof_ends_ahead_of_the_rear_axle() -> None:
    # a Prius-like record whose roof end (behind the rear axle) leaves too short a run for its
    # 25-degree glass: the glass keeps the rake and the roof ends further forward
    record = parse_generation(
        {**HATCH, "roof": "liftback", "hints": {"backlight_rake": 25, "roof_end": 160}}
    )
    plan = _plan_from_record(record, 2020)
    silhouette = _Silhouette(plan)
    run = silhouette.deck_s - silhouette.rr_s
    fall = silhouette.roof_z - plan.deck_z
    assert np.degrees(np.arctan2(fall, run)) == pytest.approx(25, abs=1)
    assert silhouette.rr_s < plan.front_oh + plan.wheelbase


def test_a_kamm_tail_runs_its_glass_to_a_cut_off_tail() -> None:
    record = parse_generation({**HATCH, "roof": "liftback", "features": ["kamm_glass"]})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    tail_drop = silhouette.points()[-2][1] - silhouette.points()[-1][1]
    assert silhouette.deck_s > silhouette.plan.length - 0.1
    assert tail_drop < 0.05


def test_a_ford_pickup_wears_two_thick_bars_level_with_its_lamps_tops() -> None:
    def grille(make: str) -> tuple[float, float]:
        truck = model_of(make=make, body="pickup", roof="cab", cab="crew", features=[])
        top = truck.decal[m.GR_Z] + truck.decal[m.GR_H]
        return float(truck.decal[m.GR_BARS]), float(top - truck.decal[m.HL_Z])

    ford_bars, ford_top = grille("ford")
    other_bars, other_top = grille("signature")
    assert (ford_bars, other_bars) == (2.0, 5.0)
    assert ford_top > other_top


def test_shoulders_stand_the_cabin_inboard_of_the_body_side() -> None:
    def roof_half_width(**changes: Any) -> float:
        model = model_of(body="suv", roof="box", **changes)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
        high = verts[verts[:, 2] > HATCH["height"] / 1000 - 0.15]
        return float(np.abs(high[:, 1]).max())

    assert roof_half_width(features=["shoulders"]) < roof_half_width() - 0.1


def test_a_stepped_nose_rises_from_the_bonnet_to_the_screens_base() -> None:
    record = parse_generation({**HATCH, "features": ["stepped_nose"]})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    heights = dict(silhouette.points())
    before_step = heights[silhouette.cowl_s - 0.2]
    assert silhouette.cowl_z - before_step > 0.1


def test_lamps_in_grille_spread_the_grille_across_the_nose_to_the_lamps() -> None:
    plain = model_of(headlamps="round").decal
    spread = model_of(headlamps="round", features=["lamps_in_grille"]).decal
    assert spread[m.GR_W] > spread[m.HL_Y] > plain[m.GR_W]


def test_a_jeep_road_suvs_slots_are_shorter_than_a_wranglers() -> None:
    def slot_height(headlamps: str) -> float:
        return float(model_of(body="suv", roof="box", grille="seven_slot", headlamps=headlamps)
                     .decal[m.GR_H])  # fmt: skip

    assert slot_height("rect") < slot_height("round") * 0.8


def test_side_pipes_run_along_the_sills_in_chrome() -> None:
    def chrome_triangles(model: VehicleModel) -> int:
        return int((model.mesh.mats == m.CHROME).sum())

    assert chrome_triangles(model_of(features=["side_pipes"])) > chrome_triangles(model_of())


def test_a_1990s_sports_car_has_no_dark_bumper_band_but_a_saloon_does() -> None:
    def band(body: str, roof: str) -> float:
        record = parse_generation({**HATCH, "body": body, "roof": roof, "doors": 2})
        return float(build_from_plan(_plan_from_record(record, 1994)).decal[m.BUMPER_BAND])

    assert band("coupe", "fastback") == 0.0
    assert band("sedan", "three_box") > 0.0


def test_square_arches_are_flat_topped_in_the_body_and_its_flares() -> None:
    def arch_top_width(features: list[str]) -> float:
        """How far fore and aft of the axle the arch keeps 95 % of its height."""
        model = model_of(body="suv", roof="box", features=features)
        d = model.decal
        top = float(d[m.AXLE_Z] + d[m.ARCH_R])
        flare = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.TRIM])]
        near = flare[np.abs(flare[:, 0] - d[m.WHEEL_F]) < 0.6]
        high = near[near[:, 2] > top - 0.05 * float(d[m.ARCH_R])]
        return float(np.ptp(high[:, 0]))

    round_ = arch_top_width(["flared_fenders"])
    assert arch_top_width(["flared_fenders", "square_arches"]) > round_ * 1.5


def test_a_beetles_side_glass_ends_ahead_of_the_rear_wheel() -> None:
    def glass_end_ahead_of_rear_wheel(features: list[str]) -> float:
        beetle = {"length": 4278, "wheelbase": 2537, "height": 1486}  # the A5's dimensions
        decal = model_of(roof="bubble", doors=3, features=features, **beetle).decal
        return float(decal[m.WIN_REAR] - decal[m.WHEEL_R])  # x runs forwards

    # ahead of the wheel by its arch and a little more
    assert glass_end_ahead_of_rear_wheel(["separate_fenders"]) >= 0.4


def test_a_modern_bmws_lamps_reach_in_to_touch_its_kidneys() -> None:
    def gap(year: int) -> float:
        record = parse_generation(
            {**HATCH, "make": "bmw", "grille": "kidney", "years": [1990, 2026]}
        )
        decal = build_from_plan(_plan_from_record(record, year)).decal
        return float(decal[m.HL_Y] - decal[m.HL_W] - decal[m.GR_W])

    assert gap(2015) == pytest.approx(0.005)
    assert gap(2005) > 0.02


def test_a_modern_ford_suv_wears_three_thick_bars() -> None:
    ford = model_of(make="ford", body="suv", roof="box", grille="bars").decal
    other = model_of(body="suv", roof="box", grille="bars").decal
    assert (ford[m.GR_BARS], other[m.GR_BARS]) == (3.0, 5.0)


def test_round_low_lamps_sit_in_the_bumper_under_small_lamps_at_the_bonnets_edge() -> None:
    low = model_of(headlamps="round_low", features=["round_body"]).decal
    high = model_of(headlamps="round", features=["round_body"]).decal
    assert low[m.HL_Z] < high[m.HL_Z] - 0.1
    assert low[m.HL2_DZ] > 0.15 and low[m.HL2_W] > 0.0  # the small lamps above


def test_toyotas_wide_low_mouth_wears_bars_where_lexus_keeps_honeycomb() -> None:
    toyota = model_of(make="toyota", grille="trapezoid").decal
    assert toyota[m.GR_TYPE] == 0.0  # bars


def test_a_pickups_lamps_sit_on_its_upright_face_below_the_bonnet_edge() -> None:
    def lamp_top_below_nose(body: str, roof: str) -> float:
        record = parse_generation({**HATCH, "body": body, "roof": roof, "cab": "crew"})
        plan = _plan_from_record(record, 2020)
        decal = build_from_plan(plan).decal
        return float(_Silhouette(plan).nose_z - (decal[m.HL_Z] + decal[m.HL_H]))

    assert lamp_top_below_nose("pickup", "cab") > lamp_top_below_nose("hatchback", "hatch") + 0.04


def test_a_fastback_saloon_keeps_its_roof_end_whatever_its_glass_rake() -> None:
    def roof_end(rake: float) -> float:
        hints = {"backlight_rake": rake, "roof_end": -100}
        record = parse_generation({**HATCH, "body": "sedan", "doors": 4, "roof": "fastback",
                                   "hints": hints})  # fmt: skip
        return _Silhouette(_plan_from_record(record, 2020)).rr_s

    assert roof_end(12) == roof_end(30)


def overlay_on_bonnet(model: VehicleModel, y: float) -> tuple[int, float]:
    """(overlay material, coverage) of an upward-facing point of the bonnet at |y|."""
    x = float(model.decal[m.X_FRONT] + model.decal[m.X_A]) / 2
    z = float(model.decal[m.BUMPER_F_Z]) + 0.2
    _, overlay, cover, _ = body_decal(x, y, z, 0.2, 0.0, 0.98, 0.002, model.decal, model.profile)
    return overlay, cover


def shade_facing_up(
    model: VehicleModel, material: int, paint: tuple[float, float, float]
) -> tuple[float, float, float]:
    """Radiance of a material on an upward-facing point seen from above, over a paint."""
    return shade_material(
        material, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0,
        np.array(paint), 0, model.decal, model.profile, studio_map(),
    )  # fmt: skip


def test_racing_stripes_run_either_side_of_the_centreline_only() -> None:
    striped = model_of(features=["racing_stripes"])
    assert overlay_on_bonnet(striped, 0.15) == (m.STRIPE, 1.0)
    assert overlay_on_bonnet(striped, 0.0)[1] == 0.0  # the gap between them
    assert overlay_on_bonnet(striped, 0.5)[1] == 0.0
    assert overlay_on_bonnet(model_of(), 0.15)[1] == 0.0


def test_stripes_are_white_on_a_dark_paint_and_dark_on_a_light_one() -> None:
    model = model_of(features=["racing_stripes"])
    red, white = (0.6, 0.02, 0.02), (0.8, 0.8, 0.8)
    assert shade_facing_up(model, m.STRIPE, red) == shade_facing_up(model, m.WHITEGLOSS, red)
    assert shade_facing_up(model, m.STRIPE, white) == shade_facing_up(model, m.BLACKGLOSS, white)


def test_a_contrasting_roof_is_white_but_black_over_a_white_paint() -> None:
    assert contrast_roof_material(np.array([0.6, 0.02, 0.02])) == m.WHITEGLOSS  # red
    assert contrast_roof_material(np.array([0.4, 0.42, 0.45])) == m.WHITEGLOSS  # silver
    assert contrast_roof_material(np.array([0.89, 0.9, 0.86])) == m.BLACKGLOSS  # white


def test_the_shader_resolves_a_contrasting_roof_against_the_paint() -> None:
    model = model_of(features=["contrast_roof"])
    red, white = (0.6, 0.02, 0.02), (0.89, 0.9, 0.86)
    assert shade_facing_up(model, m.CONTRAST_ROOF, red) == shade_facing_up(model, m.WHITEGLOSS, red)
    assert shade_facing_up(model, m.CONTRAST_ROOF, white) == shade_facing_up(
        model, m.BLACKGLOSS, white
    )


def material_on_roof(model: VehicleModel) -> int:
    """Base material of the top of the roof, midway along it on the centreline."""
    d = model.decal
    x = float(d[m.X_RF] + d[m.X_RR]) / 2
    z = float(prof(model.profile, d, x, 0))
    base, _, _, _ = body_decal(x, 0.0, z, 0.0, 0.0, 1.0, 0.002, d, model.profile)
    return base


def test_a_contrast_roof_model_draws_its_roof_in_the_contrasting_material() -> None:
    assert material_on_roof(model_of(features=["contrast_roof"])) == m.CONTRAST_ROOF
    assert material_on_roof(model_of()) == m.PAINT


def test_lamborghinis_y_repeats_in_its_tail_lamps() -> None:
    def tail_lamp_glow_at_its_centre(features: list[str]) -> float:
        model = model_of(features=features)
        d = model.decal
        y = float(d[m.TL_Y] + d[m.TL_W] * 0.3)
        _, overlay, _, glow = body_decal(
            float(d[m.X_REAR]) + 0.01, y, float(d[m.TL_Z]), -1.0, 0.0, 0.0, 0.002, d,
            model.profile,
        )  # fmt: skip
        assert overlay == m.TAILLIGHT
        return float(glow)

    assert tail_lamp_glow_at_its_centre(["y_lamps"]) > 0.9
    assert tail_lamp_glow_at_its_centre([]) < 0.1


def test_the_london_cabs_oval_grille_is_bars_where_others_are_mesh() -> None:
    assert model_of(make="levc", grille="oval").decal[m.GR_TYPE] == 0
    assert model_of(grille="oval").decal[m.GR_TYPE] == 1


def test_a_mid_engined_cars_split_intakes_sit_outboard_under_its_lamps() -> None:
    supercar = model_of(body="coupe", doors=2, roof="fastback", engine="mid", grille="split")
    d = supercar.decal
    assert d[m.GR_GAP] >= d[m.HL_Y]  # the inner edge no nearer the centre than the lamp's middle
    assert d[m.GR_Z] + d[m.GR_H] < d[m.HL_Z] - d[m.HL_H]
    front_engined = model_of(grille="split").decal
    assert front_engined[m.GR_GAP] < front_engined[m.HL_Y]


def test_a_mid_engined_cars_front_intakes_are_deep_black_mouths_not_slots() -> None:
    d = model_of(body="coupe", doors=2, roof="fastback", engine="mid", grille="split").decal
    assert 2 * d[m.GR_H] >= 0.18  # as tall as a 458's or an Aventador's, not a 9 cm slot


def test_a_v_motion_mouth_is_widest_at_its_top_and_hugged_by_chrome_below() -> None:
    suv = model_of(body="suv", roof="box", grille="v_motion")
    d = suv.decal
    assert d[m.GR_TAPER] < 0.0
    x = float(d[m.X_FRONT]) - 0.05
    below = float(d[m.GR_Z] - d[m.GR_H]) - 0.035  # just under the mouth's bottom edge
    _, overlay, _, _ = body_decal(x, 0.0, below, 1.0, 0.0, 0.0, 0.002, d, suv.profile)
    assert overlay == m.CHROME


def high_roof_van() -> VehicleModel:
    """A Sprinter-sized panel van (5.9 m long, 2.7 m high)."""
    return model_of(
        body="van", roof="van", length=5900, height=2700, wheelbase=3660,
        hints={"cowl": -150, "hood_z": 1000, "belt_z": 1150, "screen_rake": 42},
    )  # fmt: skip


def test_a_high_roof_vans_windscreen_stops_well_below_its_roof() -> None:
    van = high_roof_van()
    d = van.decal
    assert 0.0 < d[m.SCREEN_TOP] < 2.7 - 0.3
    x_screen = float(d[m.X_RF]) + 0.05  # on the sloping front above the screen's base

    def glass_at(z: float) -> float:
        _, overlay, cover, _ = body_decal(x_screen, 0.0, z, 0.6, 0.0, 0.8, 0.002, d, van.profile)
        return cover if overlay == m.GLASS else 0.0

    assert glass_at(float(d[m.SCREEN_TOP]) - 0.2) == 1.0
    assert glass_at(float(d[m.SCREEN_TOP]) + 0.2) == 0.0
    assert model_of().decal[m.SCREEN_TOP] == 0.0


def test_a_three_doors_door_ends_under_its_b_pillar_before_a_short_quarter_light() -> None:
    three_door = model_of(doors=3, length=3850, wheelbase=2500, roof="hatch")
    d = three_door.decal
    b_pillar = float(d[m.PILLAR0])
    door_rear_seam = float(d[m.DOOR0 + 1])
    assert door_rear_seam == pytest.approx(b_pillar - 0.03)
    quarter_light = b_pillar - float(d[m.WIN_REAR])
    door_glass = float(d[m.WIN_FRONT]) - b_pillar
    assert quarter_light < door_glass * 0.6


def test_a_three_door_domes_quarter_light_is_a_small_pointed_light() -> None:
    def quarter_light(roof: str) -> float:
        d = model_of(doors=3, length=4080, wheelbase=2510, height=1500, roof=roof).decal
        return float(d[m.PILLAR0] - d[m.WIN_REAR])

    assert quarter_light("bubble") <= 0.3 + 1e-9  # a longer one read as a rear door's glass
    assert quarter_light("hatch") > 0.45


def tail_overlay(model: VehicleModel, y: float, z: float) -> int:
    """Overlay material at (y, z) on the tail's rear face."""
    d = model.decal
    x = float(d[m.X_REAR]) + 0.01
    return body_decal(x, y, z, -1.0, 0.0, 0.0, 0.002, d, model.profile)[1]


@pytest.mark.parametrize(
    ("feature", "on_centre", "at_corner"),
    [("triple_exhaust", True, False), ("centre_exhaust", True, False),
     ("quad_exhaust", False, True)],
)  # fmt: skip
def test_exhaust_tips_sit_where_the_feature_word_puts_them(
    feature: str, on_centre: bool, at_corner: bool
) -> None:
    model = model_of(body="coupe", doors=2, roof="fastback", features=[feature])
    d = model.decal
    z_tips = float(d[m.CLEARANCE]) + 0.24
    corner = float(d[m.TL_Y]) + 0.065
    assert (tail_overlay(model, 0.0, z_tips + 0.03) == m.CHROME) is on_centre
    assert (tail_overlay(model, corner, z_tips + 0.06) == m.CHROME) is at_corner
    assert tail_overlay(model_of(), 0.0, z_tips + 0.03) != m.CHROME


def test_quad_exhaust_tips_are_ten_centimetre_squares_high_in_the_tail() -> None:
    # the Corvette C8's four square tips, a pair under each lamp at the top of the diffuser
    model = model_of(body="coupe", doors=2, roof="fastback", features=["quad_exhaust"])
    d = model.decal
    top = float(d[m.CLEARANCE]) + 0.34
    for y in (float(d[m.TL_Y]) - 0.11, float(d[m.TL_Y]) + 0.11):
        assert tail_overlay(model, y, top) == m.CHROME
    assert tail_overlay(model, float(d[m.TL_Y]), top) != m.CHROME  # a pair, not one slab


def test_a_tail_band_joins_the_tail_lamps_in_gloss_black() -> None:
    # the 208 II's three red claws each side sit in one gloss-black band across the tailgate
    def centre_of_the_tail(features: list[str]) -> int:
        model = model_of(taillamps="tri_bar", features=features)
        return tail_overlay(model, 0.0, float(model.decal[m.TL_Z]))

    assert centre_of_the_tail(["tail_band"]) == m.BLACKGLOSS
    assert centre_of_the_tail([]) != m.BLACKGLOSS


def test_a_modern_mid_engined_cars_tail_is_a_black_vent_over_a_diffuser() -> None:
    # black from the lamps down read as a blank board: body colour stays between the two
    def tail(year: int) -> VehicleModel:
        record = parse_generation({**HATCH, "body": "coupe", "doors": 2, "roof": "fastback",
                                   "engine": "mid", "years": [1990, 2026]})  # fmt: skip
        return build_from_plan(_plan_from_record(record, year))

    modern = tail(2020)
    d = modern.decal
    vent, diffuser = float(d[m.TL_Z]), float(d[m.CLEARANCE]) + 0.2
    between = (float(d[m.TL_Z] - d[m.TL_H]) + float(d[m.CLEARANCE]) + 0.34) / 2
    assert tail_overlay(modern, 0.1, vent) == m.TRIM
    assert tail_overlay(modern, 0.1, diffuser) == m.TRIM
    assert tail_overlay(modern, 0.1, between) != m.TRIM
    assert tail_overlay(tail(1999), 0.1, vent) != m.TRIM


def test_a_hot_rod_grille_is_tall_for_a_grille_yet_wider_than_tall() -> None:
    # narrower than tall, the PT Cruiser's read as an Alfa Romeo's shield (rounds 393-398)
    hot_rod, bars = model_of(grille="hot_rod").decal, model_of(grille="bars").decal
    assert hot_rod[m.GR_H] > 1.5 * bars[m.GR_H]
    assert hot_rod[m.GR_W] > hot_rod[m.GR_H]


def test_a_taxi_sign_stands_on_the_roof_behind_the_screen() -> None:
    taxi = model_of(body="minivan", roof="box", features=["taxi_sign"])
    sign = taxi.mesh.tris[taxi.mesh.mats == m.SIGN]
    assert len(sign) > 0
    corners = taxi.mesh.verts[sign.ravel()]
    assert corners[:, 2].min() > taxi.decal[m.ROOF_Z] - 0.1
    assert float(taxi.decal[m.X_RR]) < corners[:, 0].mean() < float(taxi.decal[m.X_RF])
    assert not (model_of().mesh.mats == m.SIGN).any()


def test_a_range_rovers_mesh_runs_from_lamp_to_lamp_no_taller_than_them() -> None:
    def grille(make: str) -> tuple[float, float, float]:
        d = model_of(make=make, body="suv", roof="box", grille="mesh").decal
        return float(d[m.GR_W]), float(d[m.HL_Y] - d[m.HL_W]), float(d[m.GR_H] / d[m.HL_H])

    width, lamps_inner_end, height_over_lamp = grille("land-rover")
    assert width == pytest.approx(lamps_inner_end, abs=0.01)
    assert height_over_lamp < 1.5
    assert grille("audi")[2] > 1.5


def corner_glass(model: VehicleModel) -> tuple[float, float]:
    """Glass cover on the rounded rear corners, left and right, above the tail lamps."""
    d = model.decal
    x = float(d[m.X_REAR]) + 0.04  # on the rounded rear corner, facing out and back
    z = float(d[m.TL_Z] + d[m.TL_H]) + 0.15  # above the tail lamps, below the roof

    def glass(y: float, ny: float) -> float:
        _, overlay, cover, _ = body_decal(x, y, z, -0.6, ny, 0.0, 0.002, d, model.profile)
        return cover if overlay == m.GLASS else 0.0

    # +y is the car's left (x forward, z up), the flank of the side and three-quarter views
    half = float(d[m.TL_Y] + d[m.TL_W])
    return glass(half, 0.8), glass(-half, -0.8)


def test_wrap_glass_runs_round_the_rear_corner_of_the_flank_the_views_show() -> None:
    cube = model_of(body="hatchback", roof="box", features=["wrap_glass"])
    assert corner_glass(cube) == (1.0, 0.0)


def test_wrap_quarters_run_the_side_glass_round_both_rear_corners() -> None:
    fj = model_of(body="suv", roof="box", features=["wrap_quarters"])
    assert corner_glass(fj) == (1.0, 1.0)


def test_a_beetles_dome_falls_to_a_lower_tail_than_a_bubble_coupes() -> None:
    def tail_z(features: list[str]) -> float:
        record = parse_generation({**HATCH, "roof": "bubble", "doors": 3, "features": features})
        return _Silhouette(_plan_from_record(record, 2020)).points()[-1][1]

    assert tail_z(["separate_fenders"]) < tail_z([]) - 0.1


def test_side_gills_are_three_slots_where_a_finned_vent_is_one() -> None:
    def dark_runs(features: list[str]) -> int:
        model = model_of(features=features)
        d = model.decal
        z = float(d[m.AXLE_Z] + d[m.ARCH_R] * 0.6)
        x_start = float(d[m.WHEEL_F] - d[m.ARCH_R]) - 0.02
        runs, dark_before = 0, False
        for x in np.arange(x_start, x_start - 0.6, -0.004):
            overlay = body_decal(float(x), 0.9, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)[1]
            dark = overlay == m.BLACKGLOSS
            runs += dark and not dark_before
            dark_before = dark
        return runs

    assert dark_runs(["side_gills"]) == 3
    assert dark_runs(["side_vents"]) <= 1


def test_a_high_roof_vans_rear_door_windows_sit_in_the_doors_upper_half() -> None:
    van = high_roof_van()
    d = van.decal
    x = float(d[m.X_REAR]) + 0.01

    def glass_at(z: float) -> float:
        _, overlay, cover, _ = body_decal(x, 0.3, z, -1.0, 0.0, 0.0, 0.002, d, van.profile)
        return cover if overlay == m.GLASS else 0.0

    assert glass_at(float(d[m.SCREEN_TOP]) - 0.3) == 1.0
    assert glass_at(float(d[m.SCREEN_TOP]) - 0.8) == 0.0
    assert glass_at(float(d[m.SCREEN_TOP]) + 0.2) == 0.0


def front_overlay(model: VehicleModel, y: float, z: float) -> tuple[int, float]:
    """The material showing at front-view (y, z) on the nose, and its pattern (glow)."""
    d = model.decal
    base, overlay, cover, pattern = body_decal(
        float(d[m.X_FRONT]) - 0.01, y, z, 1.0, 0.0, 0.0, 0.002, d, model.profile
    )
    return (overlay if cover > 0.5 else base), float(pattern)


def test_a_c_clamp_lights_each_lamps_outer_end_not_its_inner_end() -> None:
    model = model_of(headlamps="rect", features=["c_clamp"])
    d = model.decal
    z = float(d[m.HL_Z])
    outer = float(d[m.HL_Y] + d[m.HL_W]) - 0.016
    inner = float(d[m.HL_Y] - d[m.HL_W]) + 0.016
    (outer_material, outer_glow), (inner_material, inner_glow) = (
        front_overlay(model, outer, z),
        front_overlay(model, inner, z),
    )
    assert outer_material == inner_material == m.HEADLIGHT
    assert outer_glow > 0.95
    assert inner_glow < 0.05


def test_lamps_low_in_the_bumper_keep_the_intake_between_them() -> None:
    d = model_of(grille="none", headlamps="round_low").decal
    assert d[m.LI_W] <= d[m.HL_Y] - d[m.HL_W]
    assert model_of(grille="none").decal[m.LI_W] > d[m.LI_W]


def test_a_bar_over_low_lamps_joins_the_small_lamps_above_them() -> None:
    model = model_of(grille="none", headlamps="round_low", features=["grille_bar"])
    d = model.decal
    z_small = float(d[m.HL_Z] + d[m.HL2_DZ])
    assert front_overlay(model, 0.0, z_small)[0] == m.CHROME
    # on to the small lamp's dark rim
    lamp_edge = float(d[m.HL_Y] + d[m.HL2_DY] - d[m.HL2_W])
    assert front_overlay(model, lamp_edge - 0.012, z_small)[0] == m.CHROME
    assert front_overlay(model, 0.0, float(d[m.HL_Z] + d[m.HL_H] * 0.45))[0] != m.CHROME


def test_alpine_windows_sit_in_the_roof_side_behind_the_b_pillar() -> None:
    def glass_high_in_the_side(features: list[str], x_from_b: float) -> float:
        model = model_of(body="suv", roof="box", height=1950, features=features)
        d = model.decal
        x = float(d[m.PILLAR0]) + x_from_b
        z = prof(model.profile, d, x, 0) - 0.04
        _, overlay, cover, _ = body_decal(x, 0.9, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)
        return cover if overlay == m.GLASS else 0.0

    assert glass_high_in_the_side(["safari_windows"], -0.3) == 1.0
    assert glass_high_in_the_side(["safari_windows"], 0.3) == 0.0
    assert glass_high_in_the_side([], -0.3) == 0.0


BODIES_TO_TRY: list[dict[str, Any]] = [
    {},
    {"body": "suv", "roof": "box", "height": 1850},
    {"body": "convertible", "doors": 2, "roof": "soft_top", "engine": "mid", "height": 1150},
    {"body": "coupe", "doors": 2, "roof": "fastback", "engine": "rear", "height": 1300},
    {"year": 2005},  # an older car: what a modern one has anyway (black pillars) shows
    {"body": "sedan", "doors": 4, "roof": "three_box", "length": 4700},
]


def look(model: VehicleModel) -> tuple[bytes, ...]:
    """What a word can change: the silhouette, the mesh and two small renders (so a word that only
    sets a decal slot the shader never reads still fails)."""
    renders = tuple(
        render_model(model, VIEW_YAWS[view], "red", size=96).rgba.tobytes()
        for view in ("front-3-4", "rear-3-4")
    )
    return (model.profile.tobytes(), model.mesh.verts.tobytes(), *renders)


@functools.cache
def plain_look(body: int) -> tuple[bytes, ...]:
    return look(model_of(**BODIES_TO_TRY[body]))


@pytest.mark.parametrize("word", sorted(FEATURES))
def test_every_feature_word_changes_the_look_of_some_body(word: str) -> None:
    """A documented word that draws nothing is a record's fact thrown away."""
    assert any(
        look(model_of(**body, features=[word])) != plain_look(k)
        for k, body in enumerate(BODIES_TO_TRY)
    )


def test_every_wheel_design_draws_its_own_wheel() -> None:
    """Each word of the wheel vocabulary renders a wheel unlike every other's and unlike the
    wheel chosen by kind for a record without one."""

    def wheel(**changes: Any) -> bytes:
        model = model_of(**changes)
        return render_model(model, VIEW_YAWS["side"], "silver", size=160).rgba.tobytes()

    drawn = {word: wheel(wheels=word) for word in sorted(WHEELS)}
    assert len(set(drawn.values()) | {wheel()}) == len(WHEELS) + 1


@pytest.mark.parametrize(
    "body",
    [
        {"body": "coupe", "doors": 2, "roof": "fastback"},
        {"body": "convertible", "doors": 2, "roof": "soft_top", "engine": "mid"},
    ],
)
def test_a_ducktail_kicks_up_at_the_tails_top_edge(body: dict[str, Any]) -> None:
    def rise_at_the_tail(features: list[str]) -> float:
        record = parse_generation({**HATCH, **body, "features": features})
        pts = _Silhouette(_plan_from_record(record, 2020)).points()
        s, z = [q[0] for q in pts], [q[1] for q in pts]
        length = HATCH["length"] / 1000
        return float(np.interp(length - 0.03, s, z) - np.interp(length - 0.2, s, z))

    assert rise_at_the_tail(["ducktail"]) > 0.02
    assert rise_at_the_tail([]) < 0.0


def test_a_split_windscreen_has_a_bar_down_its_middle() -> None:
    def screen_centre(features: list[str]) -> int:
        model = model_of(body="suv", roof="box", height=1850, features=features)
        d = model.decal
        x = float(d[m.X_RF] + d[m.X_A]) / 2
        z = prof(model.profile, d, x, 1) + 0.15
        _, overlay, cover, _ = body_decal(x, 0.0, z, 0.5, 0.0, 0.8, 0.002, d, model.profile)
        return overlay if cover > 0.5 else -1

    assert screen_centre([]) == m.GLASS
    assert screen_centre(["split_windscreen"]) != m.GLASS


def test_a_ford_trucks_grille_is_two_thick_chrome_bars_on_black() -> None:
    truck = model_of(make="ford", body="pickup", roof="cab", height=1950, cab="crew",
                     bed_length=1700)  # fmt: skip
    d = truck.decal
    assert d[m.GR_TYPE] == m.GR_CHROME_BARS
    oval = model_of(make="ford", body="pickup", roof="cab", height=1950, cab="crew",
                    bed_length=1700, grille="oval").decal  # fmt: skip
    assert oval[m.GR_TYPE] != m.GR_CHROME_BARS  # only a barred grille (the PN96's is an oval)
    bottom = float(d[m.GR_Z] - d[m.GR_H])
    bar, gap = bottom + d[m.GR_H] * 0.5, bottom + d[m.GR_H]  # a bar's centre, between the bars
    assert front_overlay(truck, 0.0, bar)[0] == m.CHROME
    assert front_overlay(truck, 0.0, gap)[0] != m.CHROME


def test_hondas_wing_is_a_thicker_chrome_blade_than_toyotas_bar() -> None:
    honda = model_of(make="honda", features=["grille_bar"]).decal
    toyota = model_of(make="toyota", features=["grille_bar"]).decal
    assert honda[m.GRILLE_BAR_H] > toyota[m.GRILLE_BAR_H] * 1.5


def test_a_measured_grille_width_sets_the_mouths_widest_line() -> None:
    measured = model_of(grille="trapezoid", hints={"grille_w": 1400}).decal
    widest = measured[m.GR_W] * (1.0 + abs(measured[m.GR_TAPER]))
    assert widest == pytest.approx(0.7)
    vocabulary = model_of(grille="trapezoid").decal
    assert vocabulary[m.GR_W] * (1.0 + abs(vocabulary[m.GR_TAPER])) < 0.6


def test_a_measured_lamp_size_replaces_the_vocabularys() -> None:
    # a Clio's or Fiesta's deep teardrop drawn as the vocabulary's slim strip read as a thin brow
    deep = model_of(headlamps="swept", hints={"lamp_h": 200}).decal
    assert deep[m.HL_H] == pytest.approx(0.1)
    assert model_of(headlamps="swept").decal[m.HL_H] < 0.07
    # a round lamp stays round; a measured width sets a rounded square (Defender L663)
    big_round = model_of(headlamps="round", hints={"lamp_h": 250}).decal
    assert big_round[m.HL_W] == pytest.approx(big_round[m.HL_H]) == pytest.approx(0.125)
    square = model_of(headlamps="rect", hints={"lamp_h": 200, "lamp_w": 240}).decal
    assert (square[m.HL_W], square[m.HL_H]) == pytest.approx((0.12, 0.1))
    # a round body's or raised wing's lamps are not enlarged again once measured (Cube Z12)
    cube = model_of(headlamps="oval", features=["round_body"], hints={"lamp_h": 220, "lamp_w": 320})
    assert (cube.decal[m.HL_W], cube.decal[m.HL_H]) == pytest.approx((0.16, 0.11))


def test_a_measured_lamp_on_a_raised_wing_is_not_enlarged_again() -> None:
    # the raised wings' 20 % applies to the vocabulary's size, not to a measured one
    wing = {"headlamps": "round", "features": ["fender_peaks"]}
    measured = model_of(**wing, hints={"lamp_h": 200}).decal
    assert (measured[m.HL_W], measured[m.HL_H]) == pytest.approx((0.1, 0.1))
    assert model_of(**wing).decal[m.HL_H] > model_of(headlamps="round").decal[m.HL_H] * 1.1


def test_a_black_bumper_stands_right_under_a_grille_that_holds_the_lamps() -> None:
    # a band of paint between the grille and the steel bumper read as a Land Cruiser 250 (Bronco)
    def front(features: list[str]) -> tuple[float, float, float]:
        d = model_of(body="suv", roof="box", headlamps="round", height=1850,
                     features=["black_bumpers", *features]).decal  # fmt: skip
        return float(d[m.BUMPER_F_Z]), float(d[m.GR_Z] - d[m.GR_H]), float(d[m.BUMPER_BAND])

    bumper_top, grille_foot, band = front(["lamps_in_grille"])
    assert bumper_top == pytest.approx(grille_foot - 0.01)
    assert bumper_top - band == pytest.approx(HATCH["clearance"] / 1000)  # down to the body's foot
    plain_top, plain_foot, _ = front([])
    assert plain_top < plain_foot - 0.05


def test_a_sail_pillar_is_a_wide_blind_pillar_ahead_of_a_small_corner_window() -> None:
    def last_pillar(features: list[str]) -> tuple[float, float, float, float]:
        d = model_of(body="suv", roof="box", length=4700, height=1830, wheelbase=2700,
                     features=features).decal  # fmt: skip
        last = int(d[m.N_PILLARS]) - 1
        rear_door_end = d[m.DOOR0 + int(d[m.DOOR_N]) - 1]
        x, width = float(d[m.PILLAR0 + last]), float(d[m.PILLAR_W0 + last])
        return x, width, float(d[m.WIN_REAR]), float(rear_door_end)

    _, plain_w, _, _ = last_pillar([])
    sail_x, sail_w, win_rear, door_end = last_pillar(["sail_pillar"])
    assert plain_w < 0.1 and sail_w > 0.4
    assert sail_x - sail_w / 2 - win_rear > 0.25  # the corner window behind it
    assert sail_x - sail_w / 2 < door_end < sail_x + sail_w / 2  # a short rear door ends under it


def test_a_mercedes_van_wears_three_chrome_louvres() -> None:
    def grille(make: str) -> tuple[float, float]:
        van = model_of(make=make, body="van", roof="van", height=2600, length=5900,
                       wheelbase=3600, features=["sliding_doors"]).decal  # fmt: skip
        return float(van[m.GR_TYPE]), float(van[m.GR_BARS])

    assert grille("mercedes-benz") == (m.GR_CHROME_BARS, 3.0)
    assert grille("signature")[0] != m.GR_CHROME_BARS


def test_a_ford_trucks_c_clamp_lamps_are_as_deep_as_the_grilles_upper_half() -> None:
    def lamp_and_grille(features: list[str]) -> tuple[float, float]:
        d = model_of(make="ford", body="pickup", roof="cab", height=1950, cab="crew",
                     bed_length=1700, headlamps="rect", features=features).decal  # fmt: skip
        return float(d[m.HL_H]), float(d[m.GR_H])

    clamp, grille = lamp_and_grille(["c_clamp"])
    plain, _ = lamp_and_grille([])
    assert clamp > plain * 1.5
    assert clamp > grille * 0.4


def test_a_closed_grille_is_a_smooth_panel_in_a_bright_rim() -> None:
    d = model_of(grille="kidney", features=["closed_grille"]).decal
    assert d[m.GR_TYPE] == m.GR_CLOSED
    model = model_of(grille="kidney", features=["closed_grille"])
    centre_y = float(d[m.GR_GAP] + (d[m.GR_W] - d[m.GR_GAP]) / 2)
    assert front_overlay(model, centre_y, float(d[m.GR_Z])) == (m.BLACKGLOSS, 0.0)
    slatted = model_of(grille="kidney")
    assert front_overlay(slatted, centre_y, float(d[m.GR_Z]))[0] != m.BLACKGLOSS


def rear_engined_coupe(engine: str = "rear") -> _Silhouette:
    record = parse_generation({**HATCH, "body": "coupe", "doors": 2, "roof": "fastback",
                               "engine": engine, "height": 1300})  # fmt: skip
    return _Silhouette(_plan_from_record(record, 2020))


def test_a_rear_engined_coupes_roof_falls_in_one_unbroken_line_to_its_tail() -> None:
    def slopes(engine: str) -> list[float]:
        sil = rear_engined_coupe(engine)
        pts = [q for q in sil.points() if sil.rf_s <= q[0] <= sil.plan.length - 0.06]
        return [(b[1] - a[1]) / (b[0] - a[0]) for a, b in itertools.pairwise(pts)]

    flyline = slopes("rear")
    assert all(slope <= 0.0 for slope in flyline)
    assert min(flyline) > -0.4  # no break to a steep glass or tail (a 928's)
    assert min(slopes("front")) < -0.4


def test_a_rear_engined_coupes_roof_has_made_most_of_its_fall_by_the_rear_axle() -> None:
    # held high to a late fall (t^1.6), the 911 was a 928 in 6 of 6 rounds (359-366)
    sil = rear_engined_coupe()
    plan = sil.plan
    peak = max(z for _, z in sil.points())
    at_axle = float(sil.top(np.array([plan.front_oh + plan.wheelbase]))[0])
    assert peak - at_axle > 0.6 * (peak - plan.deck_z)


def test_a_clamshells_seam_runs_down_an_open_cars_wing() -> None:
    def seam_on_the_wing(features: list[str]) -> bool:
        model = model_of(body="convertible", doors=2, roof="soft_top", engine="mid",
                         height=1150, features=features)  # fmt: skip
        d = model.decal
        x = float(d[m.X_A] + d[m.X_FRONT] - 0.16) / 2
        y, z = prof(model.profile, d, x, 2), prof(model.profile, d, x, 1) - 0.05
        _, overlay, cover, _ = body_decal(x, y, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)
        return overlay == m.UNDER and cover > 0.5

    assert seam_on_the_wing(["clamshell"])
    assert not seam_on_the_wing([])


def test_lamp_pods_face_forward_and_leave_the_nose_without_lamps() -> None:
    model = model_of(features=["headlamp_pods"])
    verts, tris, mats = model.mesh.verts, model.mesh.tris, model.mesh.mats
    lens = verts[np.unique(tris[mats == m.HEADLIGHT])]
    paint = verts[np.unique(tris[mats == m.PAINT])]
    pod = paint[(np.abs(np.abs(paint[:, 1]) - np.abs(lens[:, 1]).mean()) < 0.1)
                & (paint[:, 2] > lens[:, 2].min() - 0.02)
                & (paint[:, 0] > model.decal[m.X_A] + 0.3)]  # fmt: skip
    assert len(lens) and len(pod)
    assert lens[:, 0].mean() > pod[:, 0].mean()  # the lens at the pod's front
    d = model.decal
    assert front_overlay(model, float(d[m.HL_Y]), float(d[m.HL_Z]))[0] != m.HEADLIGHT


def test_square_arches_wear_a_flat_topped_band_beyond_a_round_ones_reach() -> None:
    def trim_beside_the_arch_top(features: list[str]) -> bool:
        model = model_of(body="suv", roof="box", height=1700, features=features)
        d = model.decal
        reach = float(d[m.ARCH_R] + d[m.CLADDING_W])
        x = float(d[m.WHEEL_F]) - reach * 0.75  # a round band's top corner is paint here
        z = float(d[m.AXLE_Z]) + reach * 0.85
        y = prof(model.profile, d, x, 2)
        _, overlay, cover, _ = body_decal(x, y, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)
        return overlay == m.TRIM and cover > 0.5

    assert trim_beside_the_arch_top(["square_arches"])
    assert not trim_beside_the_arch_top([])


def test_a_black_bonnets_band_runs_down_the_pillar_behind_the_rear_doors() -> None:
    def dark_behind_rear_door(features: list[str]) -> tuple[int, float]:
        i3 = {"length": 4011, "height": 1578, "wheelbase": 2570, "roof": "floating", "doors": 4,
              "hints": {"cowl": 250, "hood_z": 820, "belt_z": 1030, "screen_rake": 29,
                        "backlight_rake": 70, "roof_end": 200}}  # fmt: skip
        model = model_of(features=features, **i3)
        d = model.decal
        assert d[m.N_PILLARS] == 2  # B-pillar and the pillar behind the rear door
        x = (float(d[m.PILLAR0 + 1]) + float(d[m.WIN_REAR])) / 2
        z = float(d[m.HANDLE_Z]) + 0.25
        _, overlay, cover, _ = body_decal(x, 0.85, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)
        return overlay, cover

    assert dark_behind_rear_door(["black_bonnet"]) == (m.BLACKGLOSS, 1.0)
    assert dark_behind_rear_door([])[0] == m.GLASS


@pytest.mark.parametrize(
    "dome",
    [{"features": ["separate_fenders"]}, {"body": "coupe"}],
    ids=["beetle", "bubble-coupe"],
)
def test_a_domes_roof_falls_steadily_to_its_tail_without_a_sheer_drop(
    dome: dict[str, Any],
) -> None:
    record = parse_generation({**HATCH, "roof": "bubble", "doors": 3, **dome})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    heights = dict(silhouette.points())
    length, roof = silhouette.plan.length, silhouette.roof_z
    tail = heights[length]
    near_tail = float(np.interp(length - 0.4, list(heights), list(heights.values())))
    assert near_tail - tail < 0.5 * (roof - tail)  # half the fall is done 40 cm from the tail


def test_black_pillars_darken_the_pillars_of_a_car_of_any_age() -> None:
    assert model_of(year=2005).decal[m.PILLAR_BLACK] == 0.0
    assert model_of(year=2005, features=["black_pillars"]).decal[m.PILLAR_BLACK] == 1.0


def test_an_inverted_trapezoid_hangs_from_the_lamps_widest_at_its_top() -> None:
    d = model_of(grille="inverted_trapezoid").decal
    top_half_width = d[m.GR_W] * (1 - d[m.GR_TAPER])
    assert top_half_width > d[m.GR_W]  # widest at its top, narrowing into the bumper
    assert top_half_width > d[m.HL_Y] - d[m.HL_W]  # under the lamps, not between them
    assert d[m.GR_Z] + d[m.GR_H] < d[m.HL_Z]


def test_a_minis_grille_is_a_chrome_ringed_barred_hexagon_reaching_into_the_bumper() -> None:
    # a small dark oval between round lamps read as a Honda e (rounds 391-404, 447-462)
    mini = model_of(make="mini", grille="oval", headlamps="round").decal
    other = model_of(grille="oval", headlamps="round").decal
    assert mini[m.GR_TYPE] == m.GR_CHROME_BARS
    assert mini[m.GR_BARS] >= 3.0
    assert mini[m.GR_H] > 1.5 * other[m.GR_H]
    assert mini[m.GR_TAPER] < 0.0  # a hexagon, wider at the top
    assert mini[m.GR_ROUND] < 0.5


def test_a_hot_rod_grille_is_bright_bars() -> None:
    assert model_of(grille="hot_rod").decal[m.GR_TYPE] == m.GR_CHROME_BARS
    assert model_of(grille="vertical_bars").decal[m.GR_TYPE] != m.GR_CHROME_BARS


def test_a_front_light_bar_runs_level_between_slanted_lamps() -> None:
    d = model_of(headlamps="slim", features=["light_bar_front"]).decal
    assert d[m.HL_SLANT] > 0.1
    level = float(d[m.HL_Z] + d[m.HL_H] * 0.3 - d[m.HL_SLANT] * d[m.HL_W])
    chevron_tip = float(d[m.HL_Z] + d[m.HL_H] * 0.3 - d[m.HL_SLANT] * d[m.HL_Y])
    assert _head_lamp(0.0, level, d)[0] < 0.0  # lit at the nose's centre, level with the lamps
    assert _head_lamp(0.0, chevron_tip, d)[0] > 0.0  # not dipping to a chevron's point


def test_a_fang_day_light_runs_a_long_way_down_the_bumper() -> None:
    # Peugeot's 208 II: a 0.28 m fang (with 0.2 m the 208 was a Peugeot in 3 of 12 blind rounds,
    # with 0.28 m in 8 of 12)
    d = model_of(headlamps="slim", features=["fang_drl"]).decal
    y_f = float(d[m.HL_Y] + d[m.HL_W] * 0.55)
    lamp_foot = float(d[m.HL_Z] - d[m.HL_H] + d[m.HL_SLANT] * (y_f - d[m.HL_Y]))
    assert _head_lamp(y_f, lamp_foot - 0.25, d)[0] < 0.0
    assert _head_lamp(y_f, lamp_foot - 0.32, d)[0] > 0.0


def test_a_v_motion_mouth_reaches_under_the_lamps_with_square_corners() -> None:
    # a narrow, round-bottomed one read as an Alfa shield in every round
    d = model_of(body="suv", roof="box", grille="v_motion").decal
    assert d[m.GR_W] * (1.0 - d[m.GR_TAPER]) >= d[m.HL_Y] * 0.99
    assert d[m.GR_ROUND] <= 0.3


def side_overlay(model: VehicleModel, x: float, z: float) -> int:
    """The material showing on the left flank at (x, z)."""
    d = model.decal
    base, overlay, cover, _ = body_decal(x, 0.8, z, 0.0, 1.0, 0.0, 0.002, d, model.profile)
    return overlay if cover > 0.5 else base


def test_hidden_rear_handles_leave_only_the_front_doors_handles() -> None:
    # the Clio IV's rear handles hide in the window frame: a five-door reads as a three-door
    def handles(features: list[str]) -> list[bool]:
        model = model_of(features=features)
        d = model.decal
        seams = [float(d[m.DOOR0 + k]) for k in range(int(d[m.DOOR_N]))]
        return [
            side_overlay(model, seam + 0.14, float(d[m.HANDLE_Z])) != m.PAINT for seam in seams[1:]
        ]

    assert handles([]) == [True, True]
    assert handles(["hidden_rear_handles"]) == [True, False]


def test_a_floating_roofs_pillar_behind_the_last_side_window_is_black() -> None:
    # Range Rover L405, Explorer U502: the roof seems to float over black pillars all round
    def behind_the_glass(roof: str) -> int:
        model = model_of(body="suv", roof=roof)
        d = model.decal
        x = float(d[m.WIN_REAR]) - 0.05
        z = prof(model.profile, d, x, 1) + float(d[m.WIN_BOTTOM]) + 0.1
        return side_overlay(model, x, z)

    assert behind_the_glass("box") == m.PAINT
    assert behind_the_glass("floating") == m.BLACKGLOSS


def test_a_rear_engined_coupes_quarter_light_points_over_the_rear_arch_front_half() -> None:
    # a 911's side glass tapers to a point over the front half of the rear arch; short and
    # upright-ended it read as a 928's, run back over the axle as one too (rounds 359-366)
    coupe = model_of(engine="rear", body="coupe", doors=2, roof="fastback")
    d = coupe.decal

    def glass_over_the_belt(x: float) -> bool:
        z = prof(coupe.profile, d, x, 1) + 0.03
        return side_overlay(coupe, x, z) == m.GLASS

    assert glass_over_the_belt(float(d[m.WHEEL_R] + d[m.ARCH_R]))
    assert not glass_over_the_belt(float(d[m.WHEEL_R]))
    assert d[m.WIN_REAR_LEAN] > 1.0  # a pointed tail


def test_a_pickups_grille_bar_is_a_broad_band_not_a_light_strip() -> None:
    pickup = model_of(body="pickup", roof="cab", cab="crew", length=5800, features=["grille_bar"])
    assert pickup.decal[m.GRILLE_BAR_H] >= 0.04
    assert model_of(features=["grille_bar"]).decal[m.GRILLE_BAR_H] < 0.03


def test_a_modern_hatchbacks_side_glass_ends_ahead_of_the_rear_axle() -> None:
    # glass running on behind the axle read as a small estate's
    for year, ahead in ((2016, True), (1995, False)):
        d = model_of(year=year).decal
        assert bool(d[m.WIN_REAR] > d[m.WHEEL_R]) is ahead


@pytest.mark.parametrize("body", ["hatchback", "crossover"])
def test_a_hatchbacks_or_crossovers_roof_starts_falling_behind_the_front_seats(body: str) -> None:
    record = parse_generation({**HATCH, "body": body})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    s_mid = (silhouette.rf_s + silhouette.rr_s) / 2  # where an estate's roof is still level
    assert silhouette.top(np.array([s_mid]))[0] < silhouette.roof_z - 0.015


def test_a_cars_nose_rounds_to_a_face_under_its_bonnets_edge() -> None:
    # a bullet nose rounding to mid-height read as a 1980s wedge with its lamps in the bumper
    for changes, high in (
        ({"headlamps": "swept"}, True),
        ({"engine": "rear"}, True),  # a rear-engined city hatch keeps a car's face (i3)
        ({"headlamps": "popup"}, False),
        ({"features": ["round_body"]}, False),
        ({"year": 1998}, False),
        ({"body": "minivan", "roof": "van"}, False),
        ({"body": "coupe", "doors": 2, "roof": "fastback", "engine": "mid"}, False),
    ):
        model = model_of(**changes)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
        tip = verts[verts[:, 0] > verts[:, 0].max() - 0.005]
        top, bottom = float(model.profile[0, -1]), float(model.profile[3, -1])  # at the nose
        assert (float(tip[:, 2].mean()) > (top + bottom) / 2 + 0.04) is high


def test_a_rear_engined_cars_lamps_stand_whole_on_its_raised_wings() -> None:
    # set at the wings' tops, the rounded nose cut them to half-moons
    record = parse_generation(
        {**HATCH, "body": "coupe", "doors": 2, "roof": "fastback", "engine": "rear",
         "headlamps": "round", "features": ["fender_peaks"]}
    )  # fmt: skip
    plan = _plan_from_record(record, 2020)
    d = build_from_plan(plan).decal
    wing_top = _Silhouette(plan).nose_z
    assert wing_top > plan.nose_z  # the published edge is the sunken bonnet's between them
    assert d[m.HL_Z] + d[m.HL_H] < wing_top - 0.02


def test_a_metal_domes_roof_peaks_mid_car() -> None:
    beetle = {"length": 4081, "wheelbase": 2509, "height": 1498, "doors": 3}  # the A4's size
    record = parse_generation(
        {**HATCH, **beetle, "roof": "bubble", "features": ["separate_fenders"]}
    )
    silhouette = _Silhouette(_plan_from_record(record, 2000))
    s = np.linspace(0.0, silhouette.plan.length, 400)
    peak = float(s[np.argmax(silhouette.top(s))]) / silhouette.plan.length
    assert 0.4 < peak < 0.55


def test_a_modern_mid_engined_cars_door_glass_is_its_only_side_window() -> None:
    # a B-pillar and a quarter light read as a Lotus Esprit's
    coupe = {"body": "coupe", "doors": 2, "roof": "fastback", "engine": "mid"}
    modern = model_of(year=2012, **coupe).decal
    assert modern[m.N_PILLARS] == 0.0
    assert modern[m.WIN_REAR_LEAN] < 0.0  # its rear edge sweeps up and back
    assert model_of(year=1995, **coupe).decal[m.N_PILLARS] == 1.0


def test_a_round_hatchbacks_roof_runs_level_to_its_tailgate() -> None:
    # a MINI's or Fiat 500's roof does not fall like a Golf's (falling, they lost their names)
    record = parse_generation({**HATCH, "features": ["round_body"]})
    silhouette = _Silhouette(_plan_from_record(record, 2020))
    s_mid = (silhouette.rf_s + silhouette.rr_s) / 2
    assert silhouette.top(np.array([s_mid]))[0] >= silhouette.roof_z - 0.005


def test_square_arches_cut_the_body_flat_over_the_wheel() -> None:
    def arch_height_off_centre(features: list[str]) -> float:
        """The cut-out's height over the axle 80 % of its radius ahead of the wheel's centre."""
        model = model_of(body="suv", roof="box", features=features)
        d = model.decal
        x = float(d[m.WHEEL_F] + 0.8 * d[m.ARCH_R])
        return (prof(model.profile, d, x, 3) - float(d[m.AXLE_Z])) / float(d[m.ARCH_R])

    assert arch_height_off_centre(["square_arches"]) > 0.85  # a circle's is 0.6 there
    assert arch_height_off_centre([]) < 0.7


def test_a_rear_engined_cars_hips_swell_wider_than_a_mid_engined_cars() -> None:
    def cabin_share(engine: str) -> float:
        coupe = model_of(body="coupe", doors=2, roof="fastback", engine=engine)
        d = coupe.decal
        middle = (float(d[m.WHEEL_F]) + float(d[m.WHEEL_R])) / 2
        return body_half_width_at(coupe, middle) / body_half_width_at(coupe, float(d[m.WHEEL_R]))

    assert cabin_share("rear") < cabin_share("mid") - 0.02


def test_an_off_roaders_nose_keeps_its_mid_height_rounding() -> None:
    # the blunt modern nose cost the FJ Cruiser and G-Class their names beside the baseline
    def tip_height(features: list[str]) -> float:
        model = model_of(body="suv", roof="box", features=features)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
        return float(verts[verts[:, 0] > verts[:, 0].max() - 0.005][:, 2].mean())

    assert tip_height(["spare_wheel"]) < tip_height([]) - 0.04  # a road SUV's tip stands higher


def test_a_ford_trucks_grille_not_its_lamps_is_its_face() -> None:
    # lamps as wide as the grille read as a Ram's or a Silverado's in every round
    d = model_of(make="ford", body="pickup", roof="cab", width=2029, height=1950, cab="crew",
                 bed_length=1700, headlamps="rect", features=["c_clamp"]).decal  # fmt: skip
    assert d[m.HL_W] <= 0.2
    assert d[m.GR_W] > 2 * d[m.HL_W]  # the grille's half is wider than a whole lamp


def test_a_pickups_grille_fills_its_tall_face() -> None:
    pickup = model_of(body="pickup", roof="cab", cab="crew", length=5800, height=1900).decal
    assert pickup[m.GR_H] > 0.25
    assert model_of().decal[m.GR_H] < 0.12  # a car's barred grille stays a band


def test_an_inverted_trapezoid_is_a_deep_mouth() -> None:
    # Ford's Aston-like mouth reaches from the lamps well down the bumper
    assert model_of(grille="inverted_trapezoid").decal[m.GR_H] > 1.5 * model_of().decal[m.GR_H]


def test_a_short_greenhouse_stands_without_folds() -> None:
    # the glass's outward curve over a few millimetres of height folded the surface into a
    # crumpled streak at the foot of a raked tailgate
    one = np.ones(1)
    belt = 1.1
    section = _half_section(0.3 * one, (belt + 0.03) * one, 0.85 * one, 0.87 * one, belt * one,
                            1.6, 0.1, 0.0, 0.0 * one, 0.0 * one)[0]  # fmt: skip
    above = section[section[:, 1] >= belt]
    assert np.all(np.diff(above[:, 0]) <= 1e-9)  # from the belt up the side only moves inboard


def test_a_wrapped_tail_lamp_runs_on_along_the_flank() -> None:
    # flush on the tail alone, the Rogue's and Qashqai's read as a Volvo's or an Audi's
    def flank_at_the_lamp(taillamps: str) -> int:
        model = model_of(body="suv", roof="box", height=1700, taillamps=taillamps)
        d = model.decal
        return side_overlay(model, float(d[m.X_REAR]) + 0.38, float(d[m.TL_Z]))

    assert flank_at_the_lamp("wrap") == m.TAILLIGHT
    assert flank_at_the_lamp("rect") != m.TAILLIGHT


def test_an_l_tail_lamp_climbs_the_pillar_beside_the_rear_glass() -> None:
    # under the belt, the CR-V's L read as a Volvo XC90's upright lamps
    crossover = {"body": "suv", "roof": "box", "height": 1680, "taillamps": "l_shape"}
    model = model_of(**crossover)
    d = model.decal
    belt = prof(model.profile, d, float(d[m.X_REAR]) + 0.02, 1)
    upright_y = float(d[m.TL_Y])
    assert tail_overlay(model, upright_y, belt + 0.15) == m.TAILLIGHT
    assert tail_overlay(model, 0.0, belt + 0.15) == m.GLASS  # the glass between the uprights
    leg_y = float(d[m.TL_Y] - d[m.TL_W]) - 0.05
    assert tail_overlay(model, leg_y, belt - 0.03) == m.TAILLIGHT  # the leg, under the glass


def test_a_rear_engined_cars_wings_lean_back_from_a_low_lip() -> None:
    # an upright face under raised wings read as a front-engined GT's (a 928)
    def nose_rise(engine: str) -> float:
        record = parse_generation({**HATCH, "body": "coupe", "doors": 2, "roof": "fastback",
                                   "engine": engine, "height": 1300,
                                   "features": ["fender_peaks"]})  # fmt: skip
        sil = _Silhouette(_plan_from_record(record, 2020))
        tip, wing = sil.top(np.array([0.0, 0.3]))
        return float(wing - tip)

    assert nose_rise("rear") > 0.17
    assert nose_rise("front") < 0.13


def test_a_1990s_bar_tail_lamp_is_a_full_width_band_as_deep_as_the_lamps() -> None:
    # a thin bar between small lamps read as a Lotus Esprit's, not the first NSX's
    def centre_lower_half(year: int) -> int:
        model = model_of(year=year, taillamps="bar", body="coupe", doors=2, roof="fastback")
        d = model.decal
        return tail_overlay(model, 0.0, float(d[m.TL_Z] - d[m.TL_H] * 0.6))

    assert centre_lower_half(1995) == m.TAILLIGHT
    assert centre_lower_half(2020) != m.TAILLIGHT


def test_a_modern_mid_engined_cars_side_intake_is_a_deep_scoop() -> None:
    # a slot there read as the first NSX's or a Ferrari 348's on the C8
    def high_in_the_scoop(year: int) -> int:
        model = model_of(year=year, body="coupe", doors=2, engine="mid", roof="fastback",
                         height=1230, features=["side_intakes"])  # fmt: skip
        d = model.decal
        z = float(d[m.AXLE_Z] + d[m.ARCH_R] * 0.55) + 0.14
        return side_overlay(model, float(d[m.SIDE_INTAKE]) + 0.15, z)

    assert high_in_the_scoop(2020) == m.BLACKGLOSS
    assert high_in_the_scoop(2005) != m.BLACKGLOSS


def test_a_hot_rod_grille_stands_from_under_the_bonnets_edge_into_the_bumper() -> None:
    # hung from lamps on raised wings, the PT Cruiser's lost its top half over the sunken bonnet
    retro = {"grille": "hot_rod", "headlamps": "round", "hints": {"hood_z": 860},
             "features": ["fender_peaks", "round_body", "separate_fenders"]}  # fmt: skip
    d = model_of(**retro).decal
    top, bottom = float(d[m.GR_Z] + d[m.GR_H]), float(d[m.GR_Z] - d[m.GR_H])
    assert 0.86 - 0.1 < top < 0.86
    assert top - bottom > 0.35
    record = parse_generation({**HATCH, **retro})
    assert _Silhouette(_plan_from_record(record, 2020)).nose_z > 0.86 + 0.05  # the wings


def test_a_modern_cars_bonnet_crowns_from_a_tight_edge_over_its_fascia() -> None:
    # a straight slope rounding off over 20 cm made every modern car's nose a 1990s wedge
    def bonnet(year: int) -> tuple[float, float]:
        sil = _Silhouette(
            _plan_from_record(parse_generation({**HATCH, "years": [1990, 2022]}), year)
        )
        mid = (0.06 + sil.cowl_s) / 2
        chord = (sil.nose_z + sil.cowl_z) / 2
        tip, at_mid = sil.top(np.array([0.0, mid]))
        return float(sil.nose_z - tip), float(at_mid - chord)

    modern_fall, modern_crown = bonnet(2020)
    old_fall, old_crown = bonnet(1995)
    assert modern_fall < old_fall
    assert modern_crown > 0.03
    assert old_crown < 0.01


def test_a_rear_engined_coupes_rear_window_is_short_over_a_long_engine_lid() -> None:
    # run on down the flyline, the 911's glass read as a glass hatch, a 928's
    def glass_length(engine: str) -> float:
        d = model_of(body="coupe", doors=2, roof="fastback", engine=engine, height=1300).decal
        return float(d[m.X_RR] - d[m.X_GH_END])

    assert glass_length("rear") < 0.6
    assert glass_length("front") > 0.6


def test_a_modern_head_lamp_runs_back_along_the_wing() -> None:
    # drawn on the front face alone, every modern lamp read as the same thin brow
    def wing_behind_the_lamp(year: int, headlamps: str = "swept", **changes: Any) -> int:
        model = model_of(year=year, headlamps=headlamps, **changes)
        d = model.decal
        x = float(d[m.X_FRONT]) - 0.25
        z_outer_end = float(d[m.HL_Z] + d[m.HL_SLANT] * d[m.HL_W]) + 0.12 * 0.25
        y = body_half_width_at(model, x)  # on the wing's side, outboard of the front's lamps
        _, overlay, cover, _ = body_decal(x, y, z_outer_end, 0.0, 1.0, 0.0, 0.002, d, model.profile)
        return overlay if cover > 0.5 else m.BODY

    assert wing_behind_the_lamp(2020) == m.HEADLIGHT
    assert wing_behind_the_lamp(2020, headlamps="round") != m.HEADLIGHT
    assert wing_behind_the_lamp(1990) != m.HEADLIGHT  # a 1990s lamp stays on the front
    # the Multipla's lower lamps stay in its bumper's face (wrapped, it read as an Espace)
    stepped = {"body": "minivan", "roof": "van", "features": ["stepped_nose"]}
    assert wing_behind_the_lamp(2002, headlamps="oval", **stepped) != m.HEADLIGHT


def test_a_modern_saloon_has_a_quarter_light_behind_its_rear_door() -> None:
    # door glass alone read as a 1990s saloon's or a four-door coupe's
    def side_lights(year: int, **changes: Any) -> int:
        saloon = {"body": "sedan", "doors": 4, "roof": "three_box", "length": 4700}
        d = model_of(year=year, **{**saloon, **changes}).decal
        return int(d[m.N_PILLARS]) + 1

    assert side_lights(2020) == 3
    assert side_lights(1995) == 2
    assert side_lights(2020, features=["four_light"]) == 2


def test_a_black_pillar_is_black_across_its_width() -> None:
    # only its rims were: between two lights a modern car's B-pillar showed body colour
    model = model_of(year=2022)
    d, profile = model.decal, model.profile
    x = float(d[m.PILLAR0])
    z = (prof(profile, d, x, 0) + prof(profile, d, x, 1)) / 2
    y = prof(profile, d, x, 2) * 0.9
    base, _, cover, _ = body_decal(x, y, z, 0.0, 1.0, 0.0, 0.002, d, profile)
    assert d[m.PILLAR_BLACK] == 1.0
    assert (base, cover) == (m.BLACKGLOSS, 0.0)


def test_a_box_with_four_lights_ends_its_glass_at_a_blind_pillar_behind_the_rear_door() -> None:
    # a third light behind the rear door read as an estate's or a Volvo's (the Kia Soul)
    def side(features: list[str]) -> tuple[int, float]:
        d = model_of(body="suv", roof="box", length=4100, height=1610, wheelbase=2550,
                     features=features).decal  # fmt: skip
        return int(d[m.N_PILLARS]) + 1, float(d[m.WIN_REAR])

    (plain_lights, plain_rear), (four_lights, four_rear) = side([]), side(["four_light"])
    assert (plain_lights, four_lights) == (3, 2)
    assert four_rear > plain_rear + 0.2  # the glass stops further forward (x grows to the nose)


def test_a_front_quarter_light_stands_ahead_of_the_front_door() -> None:
    liftback = {"doors": 5, "roof": "liftback", "length": 4460}
    plain = model_of(**liftback).decal
    d = model_of(**liftback, features=["front_quarter"]).decal
    assert d[m.N_PILLARS] == plain[m.N_PILLARS] + 1
    quarter = float(d[m.PILLAR0])
    assert d[m.WIN_FRONT] - 0.35 < quarter < d[m.WIN_FRONT]  # a small light behind the A-pillar
    assert d[m.DOOR0] == pytest.approx(quarter)  # the front door starts behind it


def test_a_front_quarter_light_puts_the_mirror_on_the_door_behind_it() -> None:
    def liftback(features: list[str]) -> VehicleModel:
        return model_of(doors=5, roof="liftback", length=4460, features=features)

    def mirror_front(model: VehicleModel) -> float:
        # the mirror is what stands out beyond the body's width above the wheels
        verts = model.mesh.verts
        out = (np.abs(verts[:, 1]) > HATCH["width"] / 2000 + 0.05) & (verts[:, 2] > 0.7)
        return float(verts[out, 0].max())

    quartered = liftback(["front_quarter"])
    quarter_pillar = float(quartered.decal[m.PILLAR0])
    assert mirror_front(quartered) < quarter_pillar < mirror_front(liftback([]))  # x: to the nose


def test_a_modern_five_door_fastback_has_a_quarter_light_behind_its_rear_door() -> None:
    # door glass alone under the long sloping roof read as a two-door coupe's (Model S)
    fastback = {"body": "hatchback", "doors": 5, "roof": "liftback", "length": 4900}
    assert int(model_of(**fastback).decal[m.N_PILLARS]) + 1 == 3


def test_a_modern_tail_lamp_turns_the_corner_onto_the_flank() -> None:
    # on the tail's face alone every lamp read as the same pasted-on part
    def flank_behind_the_lamp(year: int, back: float) -> int:
        model = model_of(year=year, taillamps="rect")
        d = model.decal
        x = float(d[m.X_REAR]) + back
        y = body_half_width_at(model, x)  # on the flank, outboard of the tail's lamps
        _, overlay, cover, _ = body_decal(
            x, y, float(d[m.TL_Z]), 0.0, 1.0, 0.0, 0.002, d, model.profile
        )
        return overlay if cover > 0.5 else m.BODY

    assert flank_behind_the_lamp(2020, 0.1) == m.TAILLIGHT
    assert flank_behind_the_lamp(2020, 0.3) != m.TAILLIGHT  # a turn, not a `wrap` lamp's run
    assert flank_behind_the_lamp(1990, 0.1) != m.TAILLIGHT


def test_a_pickups_swept_lamps_climb_to_the_grilles_corners() -> None:
    # at a car's gentle slant the Hilux's face lost its V and read as a Triton's
    def slant(**changes: Any) -> float:
        return float(model_of(headlamps="swept", **changes).decal[m.HL_SLANT])

    pickup = {"body": "pickup", "roof": "cab", "cab": "crew", "length": 5300}
    assert slant(**pickup) > slant() + 0.05


def test_the_noses_lower_edge_turns_under_tightly() -> None:
    # rounded as deep as its top, the bumper curved away into a dark band under every car's nose
    # and hid its lower intake
    model = model_of()
    verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
    centre = verts[np.abs(verts[:, 1]) < 0.05]
    nose = centre[centre[:, 0] > float(model.decal[m.X_FRONT]) - 0.4]
    foot = float(nose[:, 2].min())
    intake_foot = float(model.decal[m.LI_Z] - model.decal[m.LI_H])
    face_at_intake = float(nose[np.abs(nose[:, 2] - intake_foot) < 0.03][:, 0].max())
    assert intake_foot > foot
    assert face_at_intake > float(model.decal[m.X_FRONT]) - 0.03


@pytest.mark.parametrize(("roof", "body"), [("hatch", "hatchback"), ("box", "suv")])
def test_a_modern_hatchs_tail_rounds_in_plan(roof: str, body: str) -> None:
    # a flat, square-cornered back read as a 1990s wagon's or an off-roader's
    model = model_of(roof=roof, body=body)
    x_rear = float(model.decal[m.X_REAR])
    corner = body_half_width_at(model, x_rear + 0.12)
    assert corner < 0.9 * body_half_width_at(model, x_rear + 1.0)


def test_a_v_motion_mouth_wears_dark_bars_not_a_mesh() -> None:
    # a mesh V under the lamps read as a Lexus spindle or an Audi frame (Rogue, Qashqai)
    d = model_of(make="nissan", body="suv", roof="box", grille="v_motion").decal
    assert d[m.GR_TYPE] == 0


def test_a_modern_bmws_halo_rings_fill_the_lamp_under_a_light_eyebrow() -> None:
    # small whole rings in a long lamp read as the E39's on every F30 (rounds 311-318)
    def lamp(year: int) -> np.ndarray:
        return model_of(
            make="bmw", year=year, grille="kidney", features=["halo_rings"], years=[1995, 2022]
        ).decal

    modern, older = lamp(2015), lamp(2005)
    assert modern[m.HL_HALO] == m.HALO_FLAT and older[m.HL_HALO] == 1.0
    brow = float(modern[m.HL_H]) * 0.78
    assert _halo_rings(float(modern[m.HL_Y]), brow, modern) > 0.9
    assert _halo_rings(float(older[m.HL_Y]), float(older[m.HL_H]) * 0.78, older) < 0.1


def test_nissans_boomerang_runs_along_the_lamps_foot_and_up_its_outer_end() -> None:
    w, h = 0.26, 0.055
    assert _boomerang_light(0.0, -0.55 * h, w, h) > 0.9  # along the foot
    assert _boomerang_light(0.72 * w, 0.0, w, h) > 0.9  # up the outer end
    assert _boomerang_light(-0.5 * w, 0.4 * h, w, h) < 0.1  # the inner end's top stays dark


def test_a_mouth_reaching_into_the_bumper_is_the_intake() -> None:
    # a second intake under the MX-5's low oval read as another car
    low_mouth = model_of(grille="trapezoid").decal
    assert low_mouth[m.LI_W] == 0.0
    assert model_of(grille="bars").decal[m.LI_W] > 0.0


def test_a_crossovers_kick_raises_its_window_line_over_the_rear_quarter() -> None:
    def side_overlay(features: list[str], x: float, above_belt: float) -> int:
        suv = model_of(body="suv", roof="box", features=features)
        z = prof(suv.profile, suv.decal, x, 1) + above_belt
        _, overlay, _, _ = body_decal(x, 0.8, z, 0.0, 1.0, 0.0, 0.002, suv.decal, suv.profile)
        return int(overlay)

    d = model_of(body="suv", roof="box", features=["belt_kick"]).decal
    assert d[m.BELT_DROP] < 0.0
    quarter = float(d[m.WIN_REAR]) + 0.05  # in the rear quarter light, by its rear edge
    assert side_overlay([], quarter, 0.06) == m.GLASS
    assert side_overlay(["belt_kick"], quarter, 0.06) != m.GLASS
    front_door = float(d[m.WIN_FRONT]) - 0.3
    assert side_overlay(["belt_kick"], front_door, 0.06) == m.GLASS


def test_a_rear_engined_coupes_tail_rounds_in_plan_between_its_hips() -> None:
    # an upright, square-cornered tail read as a 928's
    coupe = model_of(body="coupe", doors=2, roof="fastback", engine="rear", height=1300)
    d = coupe.decal
    hips = body_half_width_at(coupe, float(d[m.WHEEL_R]))
    assert body_half_width_at(coupe, float(d[m.X_REAR]) + 0.1) < 0.82 * hips


def test_a_rear_engined_coupes_front_wings_are_nearly_as_wide_as_its_hips() -> None:
    # narrow at the nose, the 911 looked tall and narrow from the front (1.29 wide to high)
    coupe = model_of(body="coupe", doors=2, roof="fastback", engine="rear", height=1300)
    d = coupe.decal
    hips = body_half_width_at(coupe, float(d[m.WHEEL_R]))
    assert body_half_width_at(coupe, float(d[m.WHEEL_F])) > 0.95 * hips


def test_a_lower_intake_widens_to_its_foot_and_shows_a_mesh() -> None:
    # a flat black strip under the bumper read as a number plate's blank (rounds 359-382)
    model = model_of()
    d = model.decal
    assert d[m.LI_W] > 0.0
    x = float(d[m.X_FRONT]) - 0.05

    def intake(y: float, z: float) -> tuple[int, float, float]:
        _, overlay, cover, pattern = body_decal(x, y, z, 1.0, 0.0, 0.0, 0.002, d, model.profile)
        return int(overlay), float(cover), float(pattern)

    z_foot, z_top = float(d[m.LI_Z] - 0.6 * d[m.LI_H]), float(d[m.LI_Z] + 0.6 * d[m.LI_H])
    beyond = float(d[m.LI_W]) + 0.03
    assert intake(beyond, z_foot)[:2] == (m.TRIM, 1.0)
    assert intake(beyond, z_top)[1] == 0.0
    patterns = {round(intake(y, float(d[m.LI_Z]))[2], 2) for y in np.linspace(0.0, 0.3, 25)}
    assert max(patterns) - min(patterns) > 0.3


def test_a_triple_intake_is_three_openings_split_by_body_colour() -> None:
    # one wide slot under a Porsche's nose read as a 928's (rounds 375-389)
    model = model_of(body="coupe", doors=2, roof="fastback", engine="rear", grille="none",
                     headlamps="round", features=["fender_peaks", "triple_intake"])  # fmt: skip
    d = model.decal
    z = float(d[m.LI_Z])
    bar = float(d[m.LI_SPLIT]) + 0.04
    assert front_overlay(model, 0.0, z)[0] == m.TRIM
    assert front_overlay(model, bar, z)[0] == m.PAINT
    assert front_overlay(model, bar + 0.1, z)[0] == m.TRIM
    assert float(d[m.LI_W]) > float(d[m.HL_Y])  # the outer ones reach under the lamps


def test_a_rear_engined_coupes_tail_rounds_under_at_its_end() -> None:
    # an upright tail wall, 0.7 m from the bumper's foot to the lid, read as a 928's
    coupe = model_of(body="coupe", doors=2, roof="fastback", engine="rear", height=1300)
    x_end = float(coupe.decal[m.X_REAR]) + 0.06
    verts = coupe.mesh.verts[np.unique(coupe.mesh.tris[coupe.mesh.mats == m.BODY])]
    near = verts[np.abs(verts[:, 0] - x_end) < 0.02]
    assert float(np.ptp(near[:, 2])) < 0.65


def test_a_white_upper_body_comes_down_the_nose_in_a_v() -> None:
    # level across the nose, the ID. Buzz's two-tone read as a Previa's contrasting roof
    van = model_of(body="minivan", roof="van", grille="none", headlamps="slim",
                   features=["white_upper"])  # fmt: skip
    d = van.decal
    z = float(d[m.HL_Z]) - 0.12
    assert front_overlay(van, 0.0, z)[0] == m.WHITEGLOSS  # the V's point, mid-nose
    assert front_overlay(van, float(d[m.HL_Y] - d[m.HL_W]) - 0.02, z)[0] == m.PAINT


def test_a_white_upper_body_takes_in_the_bonnet() -> None:
    van = model_of(body="minivan", roof="van", grille="none", headlamps="slim",
                   features=["white_upper"])  # fmt: skip
    d = van.decal
    x = float(d[m.X_A]) + 0.05
    z = float(d[m.HL_Z] + d[m.HL_H]) + 0.05
    _, overlay, cover, _ = body_decal(x, 0.0, z, 0.0, 0.0, 1.0, 0.002, d, van.profile)
    assert (overlay, cover) == (m.WHITEGLOSS, 1.0)


def test_a_tail_panel_keeps_body_colour_between_a_mid_engined_cars_lamps() -> None:
    # a black band joining round lamps read as a 1990s Ferrari's rear grille (458, C8)
    def between_the_lamps(features: list[str]) -> int:
        model = model_of(year=2015, body="coupe", doors=2, roof="fastback", engine="mid",
                         taillamps="round", features=features)  # fmt: skip
        d = model.decal
        base, overlay, cover, _ = body_decal(
            float(d[m.X_REAR]) + 0.01, 0.0, float(d[m.TL_Z]), -1.0, 0.0, 0.0, 0.002, d,
            model.profile,
        )  # fmt: skip
        return int(overlay) if cover > 0.5 else int(base)

    assert between_the_lamps([]) == m.TRIM
    assert between_the_lamps(["tail_panel"]) == m.PAINT


def test_a_humvees_bonnet_falls_to_its_nose() -> None:
    # held level, the H1 read as a Land Cruiser FJ60 or a Wagoneer (rounds 447-454)
    record = {**HATCH, "body": "suv", "roof": "box", "height": 1900, "clearance": 400,
              "hints": {"cowl": 1000, "hood_z": 1300, "belt_z": 1450}}  # fmt: skip
    plain = _Silhouette(_plan_from_record(parse_generation(record), 2000))
    humvee_record = parse_generation({**record, "features": ["shoulders"]})
    humvee = _Silhouette(_plan_from_record(humvee_record, 2000))
    assert humvee.nose_z == pytest.approx(1.3)  # the published leading edge
    assert plain.nose_z > humvee.nose_z + 0.03


def test_a_round_bodys_separate_wings_swell_broadly_round_its_arches() -> None:
    # a 10 cm lip round the arch read as any hatch's: the New Beetle's wings are domes
    def wing_top(features: list[str]) -> float:
        model = model_of(roof="bubble", features=features)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.PAINT])]
        near = verts[np.abs(verts[:, 0] - float(model.decal[m.WHEEL_F])) < 0.05]
        return float(near[:, 2].max())

    assert wing_top(["separate_fenders", "round_body"]) > wing_top(["separate_fenders"]) + 0.1


def test_a_new_beetles_screen_rises_from_a_crowned_bonnet() -> None:
    # one arch from the nose hid its screen above 1.34 m: a bubble with frog's eyes
    record = {**HATCH, "roof": "bubble", "height": 1500, "doors": 3,
              "features": ["round_body", "separate_fenders"],
              "hints": {"cowl": 0, "hood_z": 830, "belt_z": 1000}}  # fmt: skip
    silhouette = _Silhouette(_plan_from_record(parse_generation(record), 2000))
    ss, zs = zip(*silhouette.points(), strict=True)
    assert float(np.interp(silhouette.cowl_s, ss, zs)) == pytest.approx(silhouette.cowl_z)
    s_mid = (ss[1] + silhouette.cowl_s) / 2
    chord = (zs[1] + silhouette.cowl_z) / 2
    assert float(np.interp(s_mid, ss, zs)) > chord + 0.02  # crowned, not a straight ramp


def test_a_rear_engined_coupes_tail_overhangs_further_than_its_nose() -> None:
    # the other way round, the 911 read as a long-nosed 928 (rounds 447-454)
    record = parse_generation({**HATCH, "body": "coupe", "doors": 2, "roof": "fastback",
                               "engine": "rear"})  # fmt: skip
    plan = _plan_from_record(record, 2020)
    rear_oh = plan.length - plan.wheelbase - plan.front_oh
    assert plan.front_oh < rear_oh - 0.05


def test_an_open_mid_engined_cars_seats_sit_nearer_its_screen() -> None:
    # at a front-engined roadster's distance the Elise's seats stood over its rear axle, and it
    # read as a Corvette convertible (rounds 535-546)
    def seats_front(engine: str) -> float:
        model = model_of(body="convertible", doors=2, roof="soft_top", engine=engine)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.SEAT])]
        return float(verts[:, 0].max())

    assert seats_front("mid") > seats_front("front") + 0.2


def test_a_humvee_wears_neither_roof_rails_nor_arch_cladding() -> None:
    def roof_trim_and_cladding(features: list[str]) -> tuple[int, float]:
        model = model_of(body="suv", roof="box", features=features)
        verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.TRIM])]
        on_roof = int((verts[:, 2] > HATCH["height"] / 1000 - 0.05).sum())
        return on_roof, float(model.decal[m.CLADDING])

    rails, cladding = roof_trim_and_cladding([])
    assert rails > 0 and cladding == 1.0
    assert roof_trim_and_cladding(["shoulders"]) == (0, 0.0)


def test_black_bumpers_run_from_the_body_foot_to_their_shut_lines() -> None:
    plain = model_of(body="suv", roof="box", year=2005)
    bumpers = model_of(body="suv", roof="box", year=2005, features=["black_bumpers"])
    assert plain.decal[m.BUMPER_BAND] == 0.0
    band_foot = bumpers.decal[m.BUMPER_F_Z] - bumpers.decal[m.BUMPER_BAND]
    assert band_foot <= HATCH["clearance"] / 1000 + 0.01
    assert bumpers.decal[m.BUMPER_F_Z] == bumpers.decal[m.BUMPER_R_Z]


def test_a_rolls_royces_grille_is_a_tall_frame_of_bright_vanes() -> None:
    # a wide, low dark box of bars read as a Ghost's or a Hongqi's (rounds 535-546)
    def grille(make: str) -> tuple[float, float]:
        saloon = model_of(make=make, body="sedan", roof="three_box", grille="vertical_bars")
        return float(saloon.decal[m.GR_TYPE]), float(saloon.decal[m.GR_H])

    rolls_type, rolls_h = grille("rolls-royce")
    other_type, other_h = grille("signature")
    assert (rolls_type, other_type) == (m.GR_CHROME_VANES, 2.0)
    assert rolls_h > 2 * other_h


def test_a_rolls_royces_grille_stands_from_the_bonnets_edge_down() -> None:
    record = parse_generation({**HATCH, "make": "rolls-royce", "body": "sedan",
                               "roof": "three_box", "grille": "vertical_bars"})  # fmt: skip
    plan = _plan_from_record(record, 2010)
    decal = build_from_plan(plan).decal
    assert float(decal[m.GR_Z] + decal[m.GR_H]) == pytest.approx(plan.nose_z - 0.02)


def test_side_pipes_hide_behind_a_tall_bright_heat_shield() -> None:
    model = model_of(body="convertible", doors=2, roof="soft_top", features=["side_pipes"])
    verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.CHROME])]
    low = verts[verts[:, 2] < 0.5]
    assert float(low[:, 2].max() - low[:, 2].min()) >= 0.1


def test_a_hoop_wing_is_body_colour_where_a_plain_wing_is_black() -> None:
    def count(features: list[str], material: int) -> int:
        model = model_of(body="coupe", doors=2, roof="liftback", features=features)
        return int((model.mesh.mats == material).sum())

    assert count(["hoop_wing"], m.PAINT) > count([], m.PAINT)
    assert count(["hoop_wing"], m.BLACKGLOSS) == count([], m.BLACKGLOSS)
    assert count(["rear_wing"], m.BLACKGLOSS) > count([], m.BLACKGLOSS)


def wing_legs(feature: str, material: int) -> tuple[float, float, float]:
    """The wing's legs (its added parts' lowest 5 cm): nearest |y|, fore-aft run, blade's |y|."""

    def verts(features: list[str]) -> np.ndarray:
        mesh = model_of(body="coupe", doors=2, roof="liftback", features=features).mesh
        return mesh.verts[np.unique(mesh.tris[mesh.mats == material])]

    before = {tuple(np.round(v, 5)) for v in verts([])}
    wing = np.array([v for v in verts([feature]) if tuple(np.round(v, 5)) not in before])
    legs = wing[wing[:, 2] < wing[:, 2].min() + 0.05]
    run = float(legs[:, 0].max() - legs[:, 0].min())
    return float(np.abs(legs[:, 1]).min()), run, float(np.abs(wing[:, 1]).max())


def test_a_hoop_wings_legs_are_broad_fins_at_the_tails_outer_corners() -> None:
    hoop_y, hoop_run, span = wing_legs("hoop_wing", m.PAINT)
    plain_y, plain_run, _ = wing_legs("rear_wing", m.BLACKGLOSS)
    assert hoop_y >= 0.85 * span and hoop_run >= 0.2
    assert plain_y <= 0.75 * span and plain_run <= 0.1


def test_a_sliding_door_mpvs_window_line_drops_a_hand_behind_its_doors() -> None:
    d = model_of(body="minivan", roof="van", features=["sliding_doors", "belt_drop"]).decal
    assert d[m.BELT_DROP] >= 0.12


def test_a_raked_face_leans_back_from_the_bumper_to_the_bonnets_edge() -> None:
    # on an upright face the H1 read as any square off-roader (a Land Cruiser 60, a Wagoneer)
    def nose_rise(features: list[str]) -> float:
        record = parse_generation({**HATCH, "body": "suv", "roof": "box", "height": 1900,
                                   "clearance": 400, "features": features,
                                   "hints": {"hood_z": 1300}})  # fmt: skip
        sil = _Silhouette(_plan_from_record(record, 2000))
        tip, edge = sil.top(np.array([0.0, 0.3]))
        return float(edge - tip)

    assert nose_rise(["raked_face"]) > 0.3
    assert nose_rise([]) < 0.15


def test_dual_tail_lamps_are_two_lamps_a_side_with_body_colour_between() -> None:
    model = model_of(body="coupe", doors=2, roof="fastback", taillamps="dual")
    d = model.decal
    outer, inner = float(d[m.TL_Y]), float(d[m.TL_Y] + d[m.TL2_DY])
    z = float(d[m.TL_Z])
    assert tail_overlay(model, outer, z) == m.TAILLIGHT
    assert tail_overlay(model, inner, z) == m.TAILLIGHT
    assert tail_overlay(model, (outer + inner) / 2, z) != m.TAILLIGHT


def test_a_published_front_overhang_places_the_front_axle() -> None:
    def front_oh(hints: dict[str, float]) -> float:
        return _plan_from_record(parse_generation({**HATCH, "hints": hints}), 2020).front_oh

    assert front_oh({"front_oh": 800}) == pytest.approx(0.8)
    assert front_oh({}) != pytest.approx(0.8)


def greenhouse_width(model: VehicleModel) -> float:
    """The body shell's width 3 to 8 cm under its top (the cabin's roof edge)."""
    verts = model.mesh.verts[np.unique(model.mesh.tris[model.mesh.mats == m.BODY])]
    top = verts[:, 2].max()
    band = verts[(verts[:, 2] > top - 0.08) & (verts[:, 2] < top - 0.03)]
    return 2 * float(np.abs(band[:, 1]).max())


def test_a_measured_roof_width_narrows_the_greenhouse_to_it() -> None:
    # a sports car's cabin stands well inside its wings; the style's lean drew it nearly full width
    coupe = {"body": "coupe", "roof": "fastback", "doors": 2, "height": 1300, "engine": "mid"}
    measured = greenhouse_width(model_of(**coupe, hints={"roof_w": 1150}))
    assert measured == pytest.approx(1.15, abs=0.06)
    assert greenhouse_width(model_of(**coupe)) > measured + 0.1


def test_a_sill_dip_lowers_the_front_door_glass_ahead_of_its_step_only() -> None:
    # the F-150's front door glass drops under the mirror; behind the step its line is unchanged
    pickup: dict[str, Any] = {"body": "pickup", "roof": "cab", "height": 1950}
    step_x = float(model_of(**pickup, features=["sill_dip"]).decal[m.SILL_DIP_X])

    def glass_under_the_belt(features: list[str], x_from_step: float) -> bool:
        model = model_of(**pickup, features=features)
        x = step_x + x_from_step
        z = prof(model.profile, model.decal, x, 1) - 0.08
        overlay = body_decal(x, 0.9, z, 0.0, 1.0, 0.0, 0.002, model.decal, model.profile)[1]
        return bool(overlay == m.GLASS)

    assert glass_under_the_belt(["sill_dip"], 0.05)
    assert not glass_under_the_belt(["sill_dip"], -0.2)
    assert not glass_under_the_belt([], 0.05)
