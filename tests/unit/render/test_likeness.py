"""Likeness: models built from generation records have the real dimensions and features."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from carimg.catalog import Generation, load_design_data
from carimg.render import Appearance
from carimg.render import _materials as m
from carimg.render._cars import build_from_plan
from carimg.render._model import VehicleModel
from carimg.render._plan import _plan_from_record, plan_for
from carimg.render._render import build_model

CARS = [
    g
    for g in load_design_data().generations
    if g.body not in ("motorcycle", "scooter", "auto-rickshaw")
]
TOLERANCE = 0.03


def measured(model: VehicleModel) -> tuple[float, float, float]:
    """Overall length and height of the mesh, and the distance between the axles' tyres.

    A taxi's roof sign is an accessory fitted on top of the published height: it is left out.
    """
    mesh = model.mesh
    verts = mesh.verts[np.unique(mesh.tris[mesh.mats != m.SIGN])]
    tyres = mesh.verts[np.unique(mesh.tris[mesh.mats == m.TIRE])]
    # the road wheels: tyres out at the sides, not a spare hung behind the body
    road = tyres[(np.abs(tyres[:, 1]) > 0.3) & (tyres[:, 0] > model.decal[m.X_REAR])]
    middle = (road[:, 0].min() + road[:, 0].max()) / 2
    front, rear = road[road[:, 0] > middle, 0], road[road[:, 0] <= middle, 0]
    wheelbase = (front.min() + front.max()) / 2 - (rear.min() + rear.max()) / 2
    return float(np.ptp(verts[:, 0])), float(verts[:, 2].max()), float(wheelbase)


def test_every_record_model_has_its_length_height_and_wheelbase() -> None:
    off = []
    for g in CARS:
        length, height, wheelbase = measured(build_from_plan(_plan_from_record(g, g.years[0])))
        for name, got, want in (
            ("length", length, g.length),
            ("height", height, g.height),
            ("wheelbase", wheelbase, g.wheelbase),
        ):
            if abs(got * 1000 / want - 1) > TOLERANCE:
                off.append(
                    f"{g.make} {g.model} {g.generation}: {name} {got * 1000:.0f} vs {want:.0f}"
                )
    assert off == []


TWO_WHEELERS = [g for g in load_design_data().generations if g.body in ("motorcycle", "scooter")]


def test_every_two_wheeler_record_model_has_its_length_height_and_wheelbase() -> None:
    off = []
    for g in TWO_WHEELERS:
        model = build_model(Appearance(g.make, g.model, g.years[0], g.body))
        verts = model.mesh.verts
        tyres = verts[np.unique(model.mesh.tris[model.mesh.mats == m.TIRE])]
        middle = (tyres[:, 0].min() + tyres[:, 0].max()) / 2
        front, rear = tyres[tyres[:, 0] > middle, 0], tyres[tyres[:, 0] <= middle, 0]
        wheelbase = (front.min() + front.max()) / 2 - (rear.min() + rear.max()) / 2
        for name, got, want in (
            ("length", float(np.ptp(verts[:, 0])), g.length),
            ("height", float(verts[:, 2].max()), g.height),
            ("wheelbase", float(wheelbase), g.wheelbase),
        ):
            if abs(got * 1000 / want - 1) > TOLERANCE:
                off.append(
                    f"{g.make} {g.model} {g.generation}: {name} {got * 1000:.0f} vs {want:.0f}"
                )
    assert TWO_WHEELERS and off == []


def record_of(make: str, model: str, year: int) -> Generation:
    found = load_design_data().find(make, model, year)
    assert found is not None
    return found


def test_a_spare_wheel_is_within_the_published_length() -> None:
    wrangler = record_of("jeep", "wrangler", 2015)
    assert wrangler.has("spare_wheel")
    length, _, _ = measured(build_from_plan(_plan_from_record(wrangler, 2015)))
    assert length * 1000 == pytest.approx(wrangler.length, rel=0.01)


def test_two_generations_of_one_model_give_different_shells() -> None:
    old = plan_for(Appearance("honda", "civic", 1995, "sedan"))
    new = plan_for(Appearance("honda", "civic", 2020, "sedan"))
    assert new.length > old.length + 0.2 and new.wheelbase > old.wheelbase


def test_a_record_gives_the_plan_its_signature_features() -> None:
    plan = plan_for(Appearance("jeep", "wrangler", 2015, "suv"))
    assert plan.recorded and plan.grille == "seven_slot" and plan.has("spare_wheel")


def test_a_model_without_a_record_takes_its_segments_real_proportions() -> None:
    plan = plan_for(Appearance("carimg", "unknown-model", 2020, "kei"))
    keis = [g.length for g in load_design_data().generations if g.body == "kei"]
    assert not plan.recorded
    assert plan.length * 1000 == pytest.approx(statistics.median(keis), rel=0.05)


def test_a_model_without_a_record_wears_its_makes_design_language() -> None:
    grilles = [g.grille for g in load_design_data().generations if g.make == "bmw"]
    assert grilles.count("kidney") > len(grilles) / 2
    plan = plan_for(Appearance("bmw", "no-such-model", 2015, "sedan"))
    assert plan.grille == "kidney"


def test_feedback_variation_keeps_the_recorded_dimensions() -> None:
    plain = plan_for(Appearance("toyota", "camry", 2020, "sedan"))
    varied = plan_for(Appearance("toyota", "camry", 2020, "sedan", variation=2))
    assert (varied.length, varied.wheelbase) == (plain.length, plain.wheelbase)
    assert varied != plain


def test_decal_slots_are_declared_once_each() -> None:
    assert len(m.SLOT_NAMES) == m.N_PARAMS
    assert len(set(m.SLOT_NAMES)) == m.N_PARAMS
