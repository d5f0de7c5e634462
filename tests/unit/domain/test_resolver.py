"""The free-text resolver: extraction, catalog choice, years, confidence, arguments, image path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from carimg.catalog import Catalog
from carimg.domain.resolver import MAX_CANDIDATES, Resolution, Unresolved, resolve

EVAL_SET = Path(__file__).resolve().parents[2] / "data" / "resolver_eval.jsonl"


def slugs(resolution: Resolution) -> tuple[str, str, int]:
    vehicle = resolution.vehicle
    return vehicle.make.slug, vehicle.model.slug, vehicle.year


# -- years ---------------------------------------------------------------------------------------


def test_four_digit_year_is_extracted_and_used(catalog: Catalog) -> None:
    result = resolve(catalog, "2019 toyota camry")
    assert result.extracted.year == 2019
    assert slugs(result) == ("toyota", "camry", 2019)


def test_year_after_the_model_is_extracted(catalog: Catalog) -> None:
    assert slugs(resolve(catalog, "honda civic 2016")) == ("honda", "civic", 2016)


def test_apostrophe_two_digit_year(catalog: Catalog) -> None:
    assert resolve(catalog, "'08 honda civic").extracted.year == 2008


def test_two_digit_year_in_the_nineties(catalog: Catalog) -> None:
    assert resolve(catalog, "toyota supra '95").vehicle.year == 1995


def test_model_year_phrase(catalog: Catalog) -> None:
    result = resolve(catalog, "ford mustang model year 2010")
    assert slugs(result) == ("ford", "mustang", 2010)


def test_my_prefixed_year(catalog: Catalog) -> None:
    assert resolve(catalog, "my2019 volkswagen golf").extracted.year == 2019


def test_no_year_picks_the_latest_year(catalog: Catalog) -> None:
    result = resolve(catalog, "toyota camry")
    assert result.extracted.year is None
    assert result.vehicle.year == max(result.vehicle.model.years)


def test_number_model_name_is_not_a_year(catalog: Catalog) -> None:
    result = resolve(catalog, "peugeot 2008")
    assert result.extracted.year is None
    assert result.vehicle.model.slug == "2008"


def test_year_and_number_model_name_together(catalog: Catalog) -> None:
    assert slugs(resolve(catalog, "2021 peugeot 2008")) == ("peugeot", "2008", 2021)


def test_three_digit_model_number_is_not_a_year(catalog: Catalog) -> None:
    result = resolve(catalog, "porsche 911")
    assert (result.vehicle.model.slug, result.extracted.year) == ("911", None)


# -- colors --------------------------------------------------------------------------------------


def test_preset_color(catalog: Catalog) -> None:
    assert resolve(catalog, "red honda civic").color == "red"


def test_grey_spelling_is_gray(catalog: Catalog) -> None:
    assert resolve(catalog, "grey volvo xc60").color == "gray"


@pytest.mark.parametrize(
    ("word", "preset"),
    [
        ("navy", "blue"),
        ("charcoal", "gray"),
        ("cream", "beige"),
        ("maroon", "burgundy"),
        ("champagne", "beige"),
        ("graphite", "gray"),
        ("ivory", "white"),
        ("crimson", "red"),
        ("teal", "green"),
        ("bronze", "brown"),
    ],
)
def test_color_synonym_maps_to_a_preset(catalog: Catalog, word: str, preset: str) -> None:
    result = resolve(catalog, f"{word} toyota corolla")
    assert (result.color, result.extracted.color) == (preset, preset)
    assert result.vehicle.model.slug == "corolla"


@pytest.mark.parametrize(
    ("phrase", "preset"),
    [
        ("dark blue", "blue"),
        ("light gray", "silver"),
        ("light grey", "silver"),
        ("dark red", "burgundy"),
        ("navy blue", "blue"),
        ("metallic silver", "silver"),
        ("pearl white", "white"),
        ("wine red", "burgundy"),
    ],
)
def test_modified_color_phrase(catalog: Catalog, phrase: str, preset: str) -> None:
    result = resolve(catalog, f"{phrase} subaru forester")
    assert result.color == preset
    assert result.vehicle.model.slug == "forester"


def test_hex_color(catalog: Catalog) -> None:
    assert resolve(catalog, "#1A2B3C toyota supra").color == "#1a2b3c"


def test_short_hex_color_is_expanded(catalog: Catalog) -> None:
    assert resolve(catalog, "ford mustang #0a5").color == "#00aa55"


def test_bare_hex_after_the_word_color(catalog: Catalog) -> None:
    assert resolve(catalog, "ford mustang color 0a5c3d").color == "#0a5c3d"


def test_color_defaults_to_silver(catalog: Catalog) -> None:
    result = resolve(catalog, "honda civic")
    assert (result.color, result.extracted.color) == ("silver", None)


def test_color_word_inside_a_model_name_stays_a_model_word(catalog: Catalog) -> None:
    result = resolve(catalog, "honda gold wing")
    assert (result.vehicle.model.slug, result.extracted.color) == ("gold-wing", None)


def test_color_word_before_a_model_with_the_same_word(catalog: Catalog) -> None:
    result = resolve(catalog, "gold honda gold wing")
    assert (result.vehicle.model.slug, result.color) == ("gold-wing", "gold")


def test_color_word_that_is_part_of_a_make(catalog: Catalog) -> None:
    result = resolve(catalog, "blue bird all american school bus")
    assert result.vehicle.make.slug == "blue-bird"


# -- views ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phrase", "view"),
    [
        ("side profile", "side"),
        ("profile", "side"),
        ("from the side", "side"),
        ("left side", "side"),
        ("right side", "side-right"),
        ("passenger side", "side-right"),
        ("from behind", "rear"),
        ("rear view", "rear"),
        ("back", "rear"),
        ("rear three-quarter", "rear-3-4"),
        ("rear 3/4", "rear-3-4"),
        ("front 3/4", "front-3-4"),
        ("front three quarter", "front-3-4"),
        ("head-on", "front"),
        ("head on", "front"),
        ("front view", "front"),
        ("hero shot", "front-3-4"),
        ("rear34", "rear-3-4"),
        ("side-r", "side-right"),
    ],
)
def test_view_phrase(catalog: Catalog, phrase: str, view: str) -> None:
    result = resolve(catalog, f"jeep wrangler {phrase}")
    assert (result.view, result.extracted.view) == (view, view)
    assert result.vehicle.model.slug == "wrangler"


def test_view_defaults_to_front_three_quarter(catalog: Catalog) -> None:
    result = resolve(catalog, "jeep wrangler")
    assert (result.view, result.extracted.view) == ("front-3-4", None)


# -- sizes and formats ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "size"),
    [("thumbnail", "thumb"), ("thumb", "thumb"), ("small", "small"), ("medium", "medium"),
     ("large", "large"), ("hi-res", "large")],
)  # fmt: skip
def test_size_word(catalog: Catalog, word: str, size: str) -> None:
    result = resolve(catalog, f"{word} honda accord")
    assert (result.size, result.extracted.size) == (size, size)
    assert result.vehicle.model.slug == "accord"


@pytest.mark.parametrize("phrase", ["512px", "512 px", "512 wide", "512w", "w=512", "512x512"])
def test_width(catalog: Catalog, phrase: str) -> None:
    result = resolve(catalog, f"nissan frontier {phrase}")
    assert (result.width, result.extracted.width) == (512, 512)
    assert result.vehicle.model.slug == "frontier"


def test_width_over_the_maximum_is_clamped(catalog: Catalog) -> None:
    result = resolve(catalog, "nissan frontier 2000px")
    assert (result.width, result.extracted.width) == (1024, 2000)


@pytest.mark.parametrize(("word", "fmt"), [("png", "png"), ("webp", "webp"), ("jpg", "jpg"),
                                           ("jpeg", "jpg")])  # fmt: skip
def test_format(catalog: Catalog, word: str, fmt: str) -> None:
    result = resolve(catalog, f"tesla model x {word}")
    assert (result.format, result.extracted.format) == (fmt, fmt)


def test_nothing_extracted_means_nulls(catalog: Catalog) -> None:
    extracted = resolve(catalog, "tesla model x").extracted
    assert (extracted.year, extracted.color, extracted.view) == (None, None, None)
    assert (extracted.size, extracted.width, extracted.format) == (None, None, None)


# -- fillers, aliases, typos ---------------------------------------------------------------------


def test_filler_words_are_ignored(catalog: Catalog) -> None:
    plain = resolve(catalog, "honda civic")
    wordy = resolve(catalog, "please show me a photo of the car, a honda civic image render")
    assert wordy.vehicle == plain.vehicle
    assert wordy.confidence == "high"


def test_body_words_are_ignored(catalog: Catalog) -> None:
    assert resolve(catalog, "suzuki every van").vehicle.model.slug == "every"


def test_body_word_that_is_part_of_a_model_name(catalog: Catalog) -> None:
    assert resolve(catalog, "mini cooper convertible").vehicle.model.slug == "cooper-convertible"


def test_everyday_alias_unknown_to_the_catalog(catalog: Catalog) -> None:
    assert resolve(catalog, "vette 2005").vehicle.model.slug == "corvette"


def test_heavy_duty_model_numbers(catalog: Catalog) -> None:
    assert resolve(catalog, "chevy silverado 2500").vehicle.model.slug == "silverado-hd"


def test_misspelt_model_of_a_named_make(catalog: Catalog) -> None:
    assert resolve(catalog, "chevy camero").vehicle.model.slug == "camaro"


def test_unknown_extra_word_is_left_out(catalog: Catalog) -> None:
    assert resolve(catalog, "subaru wrx sti").vehicle.model.slug == "wrx"


# -- nearest year --------------------------------------------------------------------------------


def test_missing_year_falls_back_to_the_nearest(catalog: Catalog) -> None:
    result = resolve(catalog, "2010 tesla model 3")
    assert result.extracted.year == 2010
    assert result.vehicle.year == min(result.vehicle.model.years)


def test_nearest_year_fallback_lowers_confidence(catalog: Catalog) -> None:
    assert resolve(catalog, "2019 tesla model 3").confidence == "high"
    assert resolve(catalog, "2010 tesla model 3").confidence == "medium"


def test_nearest_year_tie_prefers_the_later_year(catalog: Catalog) -> None:
    result = resolve(catalog, "2008 honda gold wing")
    years = result.vehicle.model.years
    assert 2008 not in years and 2007 in years and 2009 in years
    assert result.vehicle.year == 2009


# -- confidence ----------------------------------------------------------------------------------


def test_confidence_high_for_named_make_and_exact_model(catalog: Catalog) -> None:
    assert resolve(catalog, "2019 toyota camry").confidence == "high"


def test_confidence_medium_when_the_make_is_not_named(catalog: Catalog) -> None:
    result = resolve(catalog, "camry 2018")
    assert (result.vehicle.make.slug, result.confidence) == ("toyota", "medium")


def test_confidence_medium_for_an_ambiguous_prefix(catalog: Catalog) -> None:
    result = resolve(catalog, "toyota cam")
    assert (result.vehicle.model.slug, result.confidence) == ("camry", "medium")


def test_confidence_low_for_a_typo(catalog: Catalog) -> None:
    result = resolve(catalog, "toyta camry")
    assert (result.vehicle.model.slug, result.confidence) == ("camry", "low")


def test_confidence_low_when_a_word_was_left_out(catalog: Catalog) -> None:
    assert resolve(catalog, "subaru wrx sti").confidence == "low"


# -- unresolved ----------------------------------------------------------------------------------


def test_make_alone_is_unresolved_with_the_make(catalog: Catalog) -> None:
    with pytest.raises(Unresolved) as caught:
        resolve(catalog, "red toyota from the side")
    assert [make.slug for make in caught.value.makes] == ["toyota"]


def test_unknown_model_of_a_known_make_carries_the_make(catalog: Catalog) -> None:
    with pytest.raises(Unresolved) as caught:
        resolve(catalog, "toyota qqqqzzzz")
    assert [make.slug for make in caught.value.makes] == ["toyota"]


def test_gibberish_is_unresolved_without_makes(catalog: Catalog) -> None:
    with pytest.raises(Unresolved) as caught:
        resolve(catalog, "zzzz qqqq xxxx")
    assert caught.value.makes == []


def test_only_parameters_is_unresolved(catalog: Catalog) -> None:
    with pytest.raises(Unresolved):
        resolve(catalog, "red png")


# -- arguments -----------------------------------------------------------------------------------


def test_year_argument_overrides_the_text(catalog: Catalog) -> None:
    result = resolve(catalog, "2018 toyota camry", year=2020)
    assert (result.vehicle.year, result.extracted.year) == (2020, 2020)


def test_year_argument_out_of_range_falls_back(catalog: Catalog) -> None:
    result = resolve(catalog, "toyota camry", year=1985)
    assert (result.vehicle.year, result.extracted.year, result.confidence) == (1990, 1985, "medium")


def test_make_and_model_arguments(catalog: Catalog) -> None:
    result = resolve(catalog, "red, side view", make="toyota", model="camry")
    assert slugs(result)[:2] == ("toyota", "camry")
    assert (result.color, result.view, result.confidence) == ("red", "side", "high")


def test_make_argument_restricts_the_search(catalog: Catalog) -> None:
    result = resolve(catalog, "ram 1500", make="dodge")
    assert (result.vehicle.make.slug, result.vehicle.model.slug) == ("dodge", "ram-1500")


def test_make_argument_alias(catalog: Catalog) -> None:
    result = resolve(catalog, "silverado", make="chevy")
    assert result.vehicle.make.slug == "chevrolet"


def test_make_argument_excludes_other_makes(catalog: Catalog) -> None:
    with pytest.raises(Unresolved) as caught:
        resolve(catalog, "camry", make="honda")
    assert "honda" in [make.slug for make in caught.value.makes]


def test_unknown_make_argument_is_unresolved(catalog: Catalog) -> None:
    with pytest.raises(Unresolved):
        resolve(catalog, "civic", make="nosuchmake")


def test_model_argument_without_make(catalog: Catalog) -> None:
    result = resolve(catalog, "blue, from behind", model="civic")
    assert (result.vehicle.make.slug, result.vehicle.model.slug) == ("honda", "civic")
    assert (result.color, result.view) == ("blue", "rear")


# -- result --------------------------------------------------------------------------------------


def test_image_path_carries_every_parameter(catalog: Catalog) -> None:
    result = resolve(catalog, "2019 honda civic #ff0000 side view thumbnail 300px webp")
    assert result.image_path() == (
        "/api/v1/images/car?make=honda&model=civic&year=2019&view=side&color=%23ff0000"
        "&size=thumb&w=300&format=webp"
    )


def test_image_path_without_optional_parameters(catalog: Catalog) -> None:
    assert resolve(catalog, "2019 honda civic").image_path() == (
        "/api/v1/images/car?make=honda&model=civic&year=2019&view=front-3-4&color=silver"
    )


def test_vehicle_is_the_catalog_vehicle(catalog: Catalog) -> None:
    result = resolve(catalog, "2019 honda civic")
    assert result.vehicle == catalog.find_vehicle("honda", "civic", 2019)


def test_candidates_best_first_with_all_years(catalog: Catalog) -> None:
    result = resolve(catalog, "2019 honda civic")
    assert 1 <= len(result.candidates) <= MAX_CANDIDATES
    first = result.candidates[0]
    assert first.model == result.vehicle.model
    assert first.years == result.vehicle.model.years
    assert first.match_kind == "exact"


def test_candidates_are_at_most_five(catalog: Catalog) -> None:
    assert len(resolve(catalog, "toyota co").candidates) == MAX_CANDIDATES


def test_deterministic(catalog: Catalog) -> None:
    query = "dark blue 2017 subaru forester rear 3/4 png"
    assert resolve(catalog, query) == resolve(catalog, query)


# -- evaluation set ------------------------------------------------------------------------------


def test_evaluation_set_top1_at_least_95_percent(catalog: Catalog) -> None:
    rows = [json.loads(line) for line in EVAL_SET.read_text("utf-8").splitlines() if line]
    assert len(rows) >= 300
    misses = []
    for row in rows:
        model = catalog.find_model(catalog.find_make(row["make"]), row["model"])  # type: ignore[arg-type]
        assert model is not None and model.slug == row["model"], row
        assert row["year"] is None or row["year"] in model.years, row
        try:
            result = resolve(catalog, row["query"])
        except Unresolved:
            misses.append(row["query"])
            continue
        if (result.vehicle.make.slug, result.vehicle.model.slug) != (row["make"], row["model"]):
            misses.append(row["query"])
    top1 = 1 - len(misses) / len(rows)
    assert top1 >= 0.95, misses
