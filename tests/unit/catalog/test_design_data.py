"""Vehicle design data: the format, the bundled records and how a vehicle finds its record."""

from __future__ import annotations

import json
from typing import Any

import pytest

from carimg.catalog import (
    DesignData,
    DesignDataError,
    Generation,
    Tyre,
    load_catalog,
    load_design_data,
    parse_design_data,
    parse_generation,
)

RECORD: dict[str, Any] = {
    "make": "honda",
    "model": "civic",
    "generation": "EG",
    "years": [1992, 1995],
    "body": "hatchback",
    "doors": 3,
    "length": 4070,
    "width": 1695,
    "height": 1350,
    "wheelbase": 2570,
    "track_f": 1475,
    "track_r": 1460,
    "clearance": 150,
    "tyre": "175/70R13",
    "source": "maker specification sheet",
}


def record(**changes: Any) -> dict[str, Any]:
    return {**RECORD, **changes}


def test_every_bundled_record_is_valid() -> None:
    assert len(load_design_data()) >= 300


def test_every_bundled_record_names_a_catalog_model_in_its_years() -> None:
    catalog = load_catalog()
    problems = []
    for g in load_design_data().generations:
        make = catalog.find_make(g.make)
        models = {m.slug: m for m in catalog.models_of(make)} if make else {}
        for slug in g.model_slugs:
            model = models.get(slug)
            if make is None or make.slug != g.make or model is None:
                problems.append(f"{g.make}/{slug}: not in the catalog")
            elif not set(range(g.years[0], g.years[1] + 1)) & set(model.years):
                problems.append(f"{g.make}/{slug} {g.years}: no catalog year")
    assert problems == []


def test_every_bundled_record_is_the_one_found_for_some_year() -> None:
    # a record that another covers in every year of its own never renders (a duplicate)
    data = load_design_data()
    unreachable = [
        f"{g.make}/{g.model} {g.generation} {g.years}"
        for g in data.generations
        if not any(
            data.find(g.make, slug, year, g.body) is g
            for slug in g.model_slugs
            for year in range(g.years[0], g.years[1] + 1)
        )
    ]
    assert unreachable == []


def test_every_generation_is_recorded_once_under_its_name() -> None:
    # a second record of the same generation (the Cube's as a wagon beside its tall-box hatchback)
    # leaves the drawn shell to file order wherever the catalog's body style matches neither
    seen: dict[tuple[str, str, str], int] = {}
    for g in load_design_data().generations:
        key = (g.make, g.model, g.generation)
        seen[key] = seen.get(key, 0) + 1
    assert [key for key, count in seen.items() if count > 1] == []


# body labels that name one shell: a second record under the other label is a duplicate
_SAME_SHELL = ({"suv", "crossover"}, {"coupe", "fastback"})


def test_no_generation_is_recorded_twice_under_two_names_for_one_shell() -> None:
    # the Soul AM was an SUV and a crossover, the Charger LB a coupe and a fastback: a request
    # with either label drew a different shell of one car
    by_model: dict[tuple[str, str], list[Generation]] = {}
    for g in load_design_data().generations:
        by_model.setdefault((g.make, g.model), []).append(g)
    twice = [
        f"{a.make}/{a.model} {a.generation} ({a.body}) and {b.generation} ({b.body})"
        for records in by_model.values()
        for i, a in enumerate(records)
        for b in records[i + 1 :]
        if a.doors == b.doors
        and {a.body, b.body} in _SAME_SHELL
        and min(a.years[1], b.years[1]) - max(a.years[0], b.years[0]) >= 1
    ]
    assert twice == []


def test_a_bad_record_is_reported_with_its_line_number() -> None:
    lines = [json.dumps(RECORD), "# a comment", json.dumps(record(length="long"))]
    with pytest.raises(DesignDataError, match=r"generations.jsonl:3: length must be a number"):
        parse_design_data(lines)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"grille": "chrome"}, "grille 'chrome' is not one of"),
        ({"features": ["wings"]}, "features must be a list from"),
        ({"wheels": "spinners"}, "wheels 'spinners' is not one of"),
        ({"wheelbase": 5000}, "wheelbase must be shorter than the length"),
        ({"years": [1995, 1992]}, "years must be"),
        ({"source": "a forum"}, "source 'a forum' is not one of"),
        ({"tyre": "big"}, "tyre 'big' is not a size"),
        ({"colour": "red"}, "unknown keys"),
        ({"hints": {"screen_rake": 120}}, "screen_rake 120 is outside"),
        ({"hints": {"front_oh": 2000}}, "front_oh must leave a rear overhang"),
    ],
)
def test_a_record_outside_the_vocabulary_is_refused(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(DesignDataError, match=message):
        parse_generation(record(**changes))


def test_a_tyre_size_gives_its_overall_diameter() -> None:
    assert Tyre.parse("225/45R17").diameter == pytest.approx(17 * 25.4 + 2 * 225 * 0.45)


def test_the_model_year_picks_the_generation() -> None:
    civic_1995 = load_design_data().find("honda", "civic", 1995, "sedan")
    civic_2020 = load_design_data().find("honda", "civic", 2020, "sedan")
    assert civic_1995 is not None and civic_2020 is not None
    assert civic_1995.generation != civic_2020.generation
    assert civic_2020.length > civic_1995.length + 200


def test_a_model_year_before_a_facelift_gets_the_face_it_was_sold_with() -> None:
    # the Model 3's slim Highland lamps came in 2024; a 2020 car has the first face
    first = load_design_data().find("tesla", "model-3", 2020, "sedan")
    highland = load_design_data().find("tesla", "model-3", 2024, "sedan")
    assert first is not None and highland is not None
    assert (first.headlamps, highland.headlamps) == ("swept", "slim")


def test_the_asked_body_style_wins_within_a_generation() -> None:
    data = DesignData([parse_generation(record(body="sedan", doors=4)), parse_generation(record())])
    found = data.find("honda", "civic", 1993, "sedan")
    assert found is not None and found.body == "sedan"


def test_overlapping_years_go_to_the_newer_generation() -> None:
    older = parse_generation(record(generation="EG", years=[1992, 1996]))
    newer = parse_generation(record(generation="EK", years=[1996, 2000]))
    found = DesignData([older, newer]).find("honda", "civic", 1996)
    assert found is not None and found.generation == "EK"


def test_a_trim_slug_finds_its_model_record() -> None:
    data = DesignData([parse_generation(record())])
    found = data.find("honda", "civic-type-r", 1993)
    assert found is not None and found.model == "civic"


def test_a_year_outside_every_generation_finds_nothing() -> None:
    assert DesignData([parse_generation(record())]).find("honda", "civic", 2005) is None
