"""The bundled catalog: counts, slugs, ids, lookups and the body styles of common cars."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from carimg.catalog import BODY_STYLES, Catalog, vehicle_id


def test_counts_are_the_packages_numbers(catalog: Catalog) -> None:
    stats = catalog.stats
    assert (stats.makes, stats.models, stats.model_year_entries) == (1145, 14841, 132491)
    assert (stats.year_from, stats.year_to) == (1990, 2026)


def test_five_sources_with_names_regions_and_licences(catalog: Catalog) -> None:
    assert [source.id for source in catalog.sources] == [
        "nhtsa-vpic",
        "uk-dft-vehicle-licensing",
        "atul-auto-catalog",
        "nzta-asia-pacific-mvr",
        "malaysia-jpj-registrations",
    ]
    assert all(source.name and source.region and source.license for source in catalog.sources)


def test_make_slugs_are_unique_and_hyphenated(catalog: Catalog) -> None:
    slugs = [make.slug for make in catalog.makes]
    assert len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug) for slug in slugs)


def test_model_slugs_are_unique_within_each_make(catalog: Catalog) -> None:
    per_make = Counter((model.make.id, model.slug) for model in catalog.models)
    assert max(per_make.values()) == 1


def test_slug_collisions_get_a_numbered_suffix(catalog: Catalog) -> None:
    # "IVECO FORD" and "IVECO-FORD" are two makes of the source data with one natural slug.
    slugs = {make.registry_name: make.slug for make in catalog.makes}
    assert sorted([slugs["IVECO FORD"], slugs["IVECO-FORD"]]) == ["iveco-ford", "iveco-ford-2"]


def test_display_names_are_written_as_people_write_them(catalog: Catalog) -> None:
    names = {make.slug: make.name for make in catalog.makes}
    assert names["toyota"] == "Toyota"
    assert names["bmw"] == "BMW"
    assert names["mercedes-benz"] == "Mercedes-Benz"
    assert names["mclaren"] == "McLaren"


def test_spelling_variants_of_one_model_are_one_model(catalog: Catalog) -> None:
    toyota = catalog.find_make("toyota")
    assert toyota is not None
    runners = [m for m in catalog.models_of(toyota) if m.key == "4runner"]
    assert [m.name for m in runners] == ["4Runner"]


def test_vehicle_ids_are_derived_from_names_and_year() -> None:
    # Pinned: ids must survive catalog rebuilds, so they may never change.
    assert vehicle_id("TOYOTA", "camry", 2020) == "veh_4f79b819fda94"
    assert vehicle_id("PORSCHE", "911", 1995) == "veh_355a375a25f94"


def test_vehicle_ids_have_the_documented_shape_and_are_unique(catalog: Catalog) -> None:
    ids = [catalog.vehicle(model, year).id for model in catalog.models for year in model.years]
    assert all(re.fullmatch(r"veh_[0-9a-z]{13}", identifier) for identifier in ids)
    assert len(set(ids)) == len(ids) == catalog.vehicle_count


def test_vehicle_by_id_returns_the_same_vehicle(catalog: Catalog) -> None:
    camry = catalog.find_vehicle("toyota", "camry", 2020)
    assert camry is not None
    assert catalog.vehicle_by_id(camry.id) == camry
    assert catalog.vehicle_by_id("veh_0000000000000") is None


@pytest.mark.parametrize(
    ("make", "model"),
    [("toyota", "camry"), ("TOYOTA", "Camry"), ("Toyota", "CAM"[:3] + "ry"), ("ford", "f150")],
)
def test_find_vehicle_accepts_names_slugs_and_spellings(
    catalog: Catalog, make: str, model: str
) -> None:
    assert catalog.find_vehicle(make, model, 2020) is not None


def test_a_unique_prefix_of_a_model_slug_matches(catalog: Catalog) -> None:
    vehicle = catalog.find_vehicle("porsche", "cayen", 2020)
    assert vehicle is not None and vehicle.model.slug == "cayenne"


def test_an_ambiguous_prefix_matches_nothing(catalog: Catalog) -> None:
    assert catalog.find_vehicle("toyota", "cam", 2020) is None


def test_a_vehicle_must_exist_for_the_year(catalog: Catalog) -> None:
    assert catalog.find_vehicle("toyota", "camry", 1989) is None
    assert catalog.find_vehicle("tesla", "model-3", 2005) is None


def test_make_aliases_find_makes(catalog: Catalog) -> None:
    for alias, slug in [("VW", "volkswagen"), ("Chevy", "chevrolet"), ("Merc", "mercedes-benz")]:
        make = catalog.find_make(alias)
        assert make is not None and make.slug == slug


def test_every_model_has_a_body_style_from_the_fixed_list(catalog: Catalog) -> None:
    assert {model.body_style for model in catalog.models} <= set(BODY_STYLES)


@pytest.mark.parametrize(
    ("make", "model", "styles"),
    [
        ("toyota", "camry", {"sedan"}),
        ("honda", "cr-v", {"suv", "crossover"}),
        ("ford", "f-150", {"pickup"}),
        ("porsche", "911", {"coupe"}),
        ("toyota", "sienna", {"minivan"}),
        ("honda", "civic", {"sedan", "hatchback"}),
        ("toyota", "rav4", {"suv", "crossover"}),
        ("toyota", "tacoma", {"pickup"}),
        ("honda", "odyssey", {"minivan"}),
        ("ford", "transit", {"van"}),
        ("mazda", "mx-5-miata", {"convertible"}),
        ("honda", "n-box", {"kei"}),
        ("harley-davidson", "road-glide", {"motorcycle"}),
        ("vespa", "gts", {"scooter"}),
        ("subaru", "outback", {"wagon", "suv", "crossover"}),
    ],
)
def test_common_cars_have_the_right_body_style(
    catalog: Catalog, make: str, model: str, styles: set[str]
) -> None:
    found_make = catalog.find_make(make)
    assert found_make is not None
    found = catalog.find_model(found_make, model)
    assert found is not None, f"{make} {model} missing"
    assert found.body_style in styles


def test_body_style_sources_are_recorded(catalog: Catalog) -> None:
    sources = {model.body_style_source.split(":")[0] for model in catalog.models}
    assert "vpic" in sources and "rules" in sources


def test_a_prefix_matching_a_stem_and_its_variants_picks_the_stem(catalog: Catalog) -> None:
    # "cayen" starts both "cayenne" and "cayenne-s"; the stem of the family wins.
    vehicle = catalog.find_vehicle("porsche", "cayen", 2012)
    assert vehicle is not None and vehicle.model.slug == "cayenne"
