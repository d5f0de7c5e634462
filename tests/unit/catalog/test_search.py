"""Catalog search: match kinds, word order, years, punctuation variants, aliases, ranking."""

from __future__ import annotations

import pytest

from carimg.catalog import Catalog, SearchHit


def top(catalog: Catalog, query: str, **kwargs: int) -> SearchHit:
    hits = catalog.search(query, **kwargs)
    assert hits, f"no hits for {query!r}"
    return hits[0]


def named(hit: SearchHit) -> tuple[str, str | None]:
    return hit.make.slug, hit.model.slug if hit.model else None


def test_exact_make_and_model_comes_first(catalog: Catalog) -> None:
    hit = top(catalog, "porsche 911")
    assert named(hit) == ("porsche", "911")
    assert hit.match_kind == "exact"


def test_prefix_of_a_model_name_is_a_prefix_match(catalog: Catalog) -> None:
    hit = top(catalog, "toyota camr")
    assert hit.match_kind == "prefix"


def test_abbreviated_make_and_model_with_a_year(catalog: Catalog) -> None:
    hit = top(catalog, "2020 toy cam")
    assert named(hit) == ("toyota", "camry")
    assert hit.match_kind == "prefix"
    assert hit.years == (2020,)


def test_words_of_a_model_in_any_order_are_a_token_match(catalog: Catalog) -> None:
    hit = top(catalog, "land rover sport range")
    assert named(hit) == ("land-rover", "range-rover-sport")
    assert hit.match_kind == "token"


def test_part_of_a_model_name_is_a_contains_match(catalog: Catalog) -> None:
    hit = top(catalog, "ford 150 heritage")
    assert hit.match_kind in {"exact", "prefix", "token"}
    contains = catalog.search("mercedes lass", limit=25)
    assert contains and all(hit.match_kind == "contains" for hit in contains)


def test_typos_fall_back_to_fuzzy_matching(catalog: Catalog) -> None:
    hit = top(catalog, "toyta camry")
    assert named(hit) == ("toyota", "camry")
    assert hit.match_kind == "fuzzy"


def test_fuzzy_is_not_used_when_something_matches_lexically(catalog: Catalog) -> None:
    assert all(hit.match_kind != "fuzzy" for hit in catalog.search("camry", limit=25))


def test_match_kinds_are_ranked_in_order(catalog: Catalog) -> None:
    order = ["exact", "prefix", "token", "contains", "fuzzy"]
    kinds = [order.index(hit.match_kind) for hit in catalog.search("ford f150", limit=25)]
    assert kinds == sorted(kinds)


def test_make_and_model_in_any_order(catalog: Catalog) -> None:
    assert named(top(catalog, "camry toyota")) == ("toyota", "camry")


@pytest.mark.parametrize("query", ["F-150", "f150", "F 150", "ford f-150"])
def test_punctuation_variants_agree(catalog: Catalog, query: str) -> None:
    assert named(top(catalog, query)) == ("ford", "f-150")


@pytest.mark.parametrize("query", ["CR-V", "crv", "honda crv"])
def test_cr_v_spellings_agree(catalog: Catalog, query: str) -> None:
    assert named(top(catalog, query)) == ("honda", "cr-v")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("vw golf", ("volkswagen", "golf")),
        ("chevy silverado", ("chevrolet", "silverado")),
        ("merc c-class", ("mercedes-benz", "c-class")),
        ("mercedes c class", ("mercedes-benz", "c-class")),
        ("alfa giulia", ("alfa-romeo", "giulia")),
    ],
)
def test_common_make_aliases(catalog: Catalog, query: str, expected: tuple[str, str]) -> None:
    assert named(top(catalog, query)) == expected


def test_a_year_in_the_text_filters_results(catalog: Catalog) -> None:
    hits = catalog.search("tesla model 3 2015", limit=25)
    assert all(2015 in hit.years for hit in hits)
    assert all(hit.model is None or hit.model.slug != "model-3" for hit in hits)


def test_a_number_that_names_a_model_is_not_taken_for_a_year(catalog: Catalog) -> None:
    assert named(top(catalog, "peugeot 2008")) == ("peugeot", "2008")


def test_the_year_argument_filters_like_a_year_in_the_text(catalog: Catalog) -> None:
    assert top(catalog, "toyota camry", year=2001).years == (2001,)


def test_a_make_alone_lists_the_make_first(catalog: Catalog) -> None:
    hit = top(catalog, "porsche")
    assert hit.kind == "make" and hit.make.slug == "porsche" and hit.match_kind == "exact"


def test_limit_caps_results(catalog: Catalog) -> None:
    assert len(catalog.search("ford", limit=3)) == 3


def test_nonsense_finds_nothing(catalog: Catalog) -> None:
    assert catalog.search("qqqq zzzz xxxx") == []


def test_ranking_is_deterministic(catalog: Catalog) -> None:
    first = [named(hit) for hit in catalog.search("cab", limit=25)]
    assert first == [named(hit) for hit in catalog.search("cab", limit=25)]
