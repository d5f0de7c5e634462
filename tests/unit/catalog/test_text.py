"""Match keys, slugs and display casing."""

from __future__ import annotations

import pytest

from carimg.catalog._text import display_case, norm, slugify, tokens


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("F-150", "f150"),
        ("f150", "f150"),
        ("F 150", "f150"),
        ("CR-V", "crv"),
        ("Citroën", "citroen"),
    ],
)
def test_norm_ignores_case_punctuation_spaces_and_accents(text: str, key: str) -> None:
    assert norm(text) == key


@pytest.mark.parametrize(
    ("text", "slug"),
    [
        ("Mercedes-Benz", "mercedes-benz"),
        ("CR-V", "cr-v"),
        ("Range Rover Sport", "range-rover-sport"),
        ("  Model  3 ", "model-3"),
        ("Citroën C4", "citroen-c4"),
        ("A & O", "a-o"),
    ],
)
def test_slugs_are_lower_case_and_hyphenated(text: str, slug: str) -> None:
    assert slugify(text) == slug


def test_slug_of_punctuation_only_is_never_empty() -> None:
    assert slugify("-?-") == "x"


def test_tokens_keep_words_and_drop_punctuation_inside_them() -> None:
    assert tokens("2020 Honda CR-V, blue") == ["2020", "honda", "crv", "blue"]


@pytest.mark.parametrize(
    ("registry", "display"),
    [
        ("TOYOTA", "Toyota"),
        ("BMW", "BMW"),
        ("MERCEDES-BENZ", "Mercedes-Benz"),
        ("MCLAREN", "McLaren"),
        ("ALFA ROMEO", "Alfa Romeo"),
        ("ROLLS-ROYCE", "Rolls-Royce"),
        ("GMC", "GMC"),
        ("MG", "MG"),
        ("KIA", "Kia"),
        ("DELOREAN", "DeLorean"),
        ("AM GENERAL", "AM General"),
        ("HARLEY-DAVIDSON", "Harley-Davidson"),
    ],
)
def test_make_names_are_written_the_way_people_write_them(registry: str, display: str) -> None:
    assert display_case(registry, make=True) == display


def test_mixed_case_names_are_kept_as_the_maker_writes_them() -> None:
    assert display_case("4Runner") == "4Runner"


def test_upper_case_model_names_keep_codes_and_capitalise_words() -> None:
    assert display_case("RANGE ROVER SPORT") == "Range Rover Sport"
    assert display_case("MX-5 MIATA") == "MX-5 Miata"
    assert display_case("S-TYPE") == "S-Type"
