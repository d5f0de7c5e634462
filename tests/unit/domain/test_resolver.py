"""The free-text resolver: extraction, catalog choice, years, confidence, arguments, image path."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest

from carimg.catalog import Catalog, SearchHit
from carimg.domain.resolver import MAX_CANDIDATES, Resolution, Unresolved, resolve

EVAL_SET = Path(__file__).resolve().parents[2] / "data" / "resolver_eval.jsonl"
HELDOUT_SET = EVAL_SET.with_name("resolver_heldout.jsonl")


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


def _misses(catalog: Catalog, path: Path) -> tuple[int, list[str]]:
    """Phrases of an evaluation set and the ones whose top-1 is wrong; every row is checked
    against the catalog (the model exists, and has the year where one is expected)."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    misses = []
    for row in rows:
        make = catalog.find_make(row["make"])
        assert make is not None, row
        accepted = [row["model"], *row.get("also", ())]
        models = [catalog.find_model(make, slug) for slug in accepted]
        assert all(
            m is not None and m.slug == slug for m, slug in zip(models, accepted, strict=True)
        ), row
        assert row["year"] is None or all(row["year"] in m.years for m in models if m), row
        try:
            result = resolve(catalog, row["query"])
        except Unresolved:
            misses.append(row["query"])
            continue
        if (result.vehicle.make.slug, result.vehicle.model.slug) not in {
            (row["make"], slug) for slug in accepted
        }:
            misses.append(row["query"])
    return len(rows), misses


def test_evaluation_set_top1_at_least_95_percent(catalog: Catalog) -> None:
    count, misses = _misses(catalog, EVAL_SET)
    assert count >= 300
    assert 1 - len(misses) / count >= 0.95, misses


def test_held_out_set_top1_at_least_98_percent(catalog: Catalog) -> None:
    count, misses = _misses(catalog, HELDOUT_SET)
    assert count >= 300
    assert 1 - len(misses) / count >= 0.98, misses


# -- issue 28: years in words, one vehicle under several entries, long texts, bounded work ------


@pytest.mark.parametrize(
    ("words", "year"),
    [
        ("two thousand eleven", 2011),
        ("two thousand and eleven", 2011),
        ("two-thousand-and-eight", 2008),
        ("two thousand and twenty three", 2023),
        ("nineteen ninety-one", 1991),
        ("nineteen ninety one", 1991),
        ("nineteen hundred and ninety five", 1995),
        ("twenty-twelve", 2012),
        ("twenty twenty-two", 2022),
        ("twenty oh five", 2005),
        ("Twenty-Oh-Six", 2006),
    ],
)
def test_year_written_in_words_is_the_year(catalog: Catalog, words: str, year: int) -> None:
    result = resolve(catalog, f"{words} toyota corolla")
    assert (result.extracted.year, slugs(result)) == (year, ("toyota", "corolla", year))


def test_number_words_that_are_no_model_year_stay_words(catalog: Catalog) -> None:
    assert resolve(catalog, "twenty one toyota corolla").extracted.year is None


@pytest.mark.parametrize(
    "text", ["2019MY", "MY2019", "MY19", "model year 2019", "2019/20", "2019-20"]
)
def test_model_year_forms(catalog: Catalog, text: str) -> None:
    assert resolve(catalog, f"{text} toyota hilux").vehicle.year == 2019


def test_year_pair_that_is_not_consecutive_is_no_year(catalog: Catalog) -> None:
    assert resolve(catalog, "2019/25 toyota hilux").extracted.year is None


def test_entry_of_the_same_vehicle_with_the_stated_year_is_preferred(catalog: Catalog) -> None:
    result = resolve(catalog, "2019 mercedes gle")  # GLE lacks 2019, GLE-Class has it
    assert slugs(result) == ("mercedes-benz", "gle-class", 2019)
    assert [hit.model.slug for hit in result.candidates[:2] if hit.model] == ["gle-class", "gle"]


def test_name_with_a_series_prefix_is_the_same_vehicle(catalog: Catalog) -> None:
    assert slugs(resolve(catalog, "2025 yamaha r1")) == ("yamaha", "yzf-r1", 2025)


def test_trim_entry_without_the_year_falls_back_to_its_base_name(catalog: Catalog) -> None:
    assert slugs(resolve(catalog, "2021 mercedes gle 350")) == ("mercedes-benz", "gle-class", 2021)


def test_nickname_entry_without_the_year_uses_the_named_entry(catalog: Catalog) -> None:
    assert slugs(resolve(catalog, "2020 mazda miata")) == ("mazda", "mx-5", 2020)


def test_short_prefix_makes_another_vehicle(catalog: Catalog) -> None:
    result = resolve(catalog, "1995 mazda 3")  # CX-3 is not the Mazda 3
    assert result.vehicle.model.slug == "3"


def test_other_entry_is_not_used_without_a_year(catalog: Catalog) -> None:
    assert resolve(catalog, "mercedes gle").vehicle.model.slug == "gle"


def test_year_no_entry_has_is_moved_with_medium_confidence(catalog: Catalog) -> None:
    result = resolve(catalog, "1995 mercedes gle")
    assert result.extracted.year == 1995 and result.vehicle.year != 1995
    assert result.confidence == "medium"
    assert {"gle", "gle-class"} <= {hit.model.slug for hit in result.candidates if hit.model}


def test_named_make_and_model_win_over_filler_in_a_long_sentence(catalog: Catalog) -> None:
    result = resolve(
        catalog,
        "hi, could you please make me a nice picture of a 2018 toyota camry for the header of "
        "my blog post about family cars",
    )
    assert slugs(result) == ("toyota", "camry", 2018)
    assert result.confidence == "medium"


def test_long_sentence_without_a_make_matches_no_ordinary_word(catalog: Catalog) -> None:
    with pytest.raises(Unresolved):
        resolve(catalog, "a nice picture for the header of my blog post about family holidays")


def test_type_word_that_is_part_of_a_name_is_kept(catalog: Catalog) -> None:
    assert resolve(catalog, "bajaj auto rickshaw").vehicle.model.slug == "auto-rickshaw"


_WORST_CASES = [
    ("toyota " * 29)[:200],
    ("red 2019 " * 23)[:200],
    ("two thousand and eleven " * 9)[:200],
    ("camry corolla " * 15)[:200],
    ("a b c d e f g h i j k l m n o p q r s t u v w x y z " * 4)[:200],
    ("red blue green gold 1999 2000 2001 2002 toyota camry honda civic ford focus " * 3)[:200],
    ("zzzz qqqq wwww xxxx yyyy vvvv " * 7)[:200],
    ("toyta camary hondaa civc fordd focuss " * 6)[:200],
    ("land rover range rover " * 9)[:200],
    ("please make a picture of a toyota camry honda civic ford focus mazda miata bmw x5 audi a4 "
     "kia rio for my blog post about the cars my family owned over the years, thank you")[:200],
]  # fmt: skip


@pytest.mark.parametrize("query", _WORST_CASES)
def test_work_is_bounded_on_long_and_repetitive_queries(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    searches: list[tuple[str, bool]] = []
    search = catalog.search

    def counting(text: str, **options: Any) -> list[SearchHit]:
        searches.append((text, options.get("typos", True)))
        return search(text, **options)

    monkeypatch.setattr(catalog, "search", counting)
    with contextlib.suppress(Unresolved):
        resolve(catalog, query)
    assert len(searches) <= 40
    assert sum(typos for _, typos in searches) <= 3  # typo matching scans the whole catalog
    assert all(len(text.split()) <= 8 for text, _ in searches)
