"""The `finish` image parameter: parsed into the spec, part of its keys only when it changes the
image, so images without a finish keep the keys and paths they had before finishes existed."""

from __future__ import annotations

import hashlib

import pytest

from carimg.catalog import load_catalog
from carimg.domain.errors import InvalidParameter
from carimg.domain.imagerequest import parse_image_request
from carimg.domain.views import FINISHES
from carimg.render import FINISHES as RENDER_FINISHES

CAMRY = {"make": "toyota", "model": "camry", "year": 2020, "view": "side", "color": "red"}


def test_the_finishes_offered_are_the_renderers_in_its_order() -> None:
    assert tuple(FINISHES) == RENDER_FINISHES


def test_without_a_finish_the_source_key_is_the_one_from_before_finishes() -> None:
    spec = parse_image_request(load_catalog(), CAMRY)
    before = "|".join(("r1", spec.vehicle.id, "side", "red", "0"))  # vehicle × view × colour × seed
    assert spec.source_key("r1") == hashlib.sha256(before.encode()).hexdigest()[:40] + ".png"


def test_a_finish_gives_the_image_its_own_source_and_variant_keys() -> None:
    plain = parse_image_request(load_catalog(), CAMRY)
    matte = parse_image_request(load_catalog(), CAMRY | {"finish": "matte"})
    assert matte.paint == "red:matte"
    assert matte.source_key("r1") != plain.source_key("r1")
    assert matte.variant_key("r1") != plain.variant_key("r1")
    assert matte.asset_key != plain.asset_key


def test_the_colours_own_finish_is_the_image_without_a_finish() -> None:
    catalog = load_catalog()
    assert parse_image_request(catalog, CAMRY | {"finish": "gloss"}).finish is None
    silver = CAMRY | {"color": "silver"}
    assert parse_image_request(catalog, silver | {"finish": "metallic"}).finish is None
    assert parse_image_request(catalog, silver | {"finish": "gloss"}).paint == "silver:gloss"


def test_a_finish_is_read_in_any_case() -> None:
    assert parse_image_request(load_catalog(), CAMRY | {"finish": " Matte "}).finish == "matte"


def test_an_unknown_finish_is_an_invalid_parameter_listing_the_finishes() -> None:
    with pytest.raises(InvalidParameter) as raised:
        parse_image_request(load_catalog(), CAMRY | {"finish": "chrome"})
    assert raised.value.extensions["parameter"] == "finish"
    assert raised.value.extensions["allowed"] == ["gloss", "metallic", "satin", "matte"]
    assert "gloss, metallic, satin, matte" in raised.value.detail


def test_the_canonical_path_names_the_finish_after_the_color() -> None:
    spec = parse_image_request(load_catalog(), CAMRY | {"finish": "satin", "format": "webp"})
    assert spec.canonical_path() == (
        "/api/v1/images/car?make=toyota&model=camry&year=2020&view=side&color=red"
        "&finish=satin&format=webp"
    )


def test_a_stored_record_parses_back_to_the_same_finish() -> None:
    catalog = load_catalog()
    spec = parse_image_request(catalog, CAMRY | {"finish": "matte"})
    assert parse_image_request(catalog, spec.record()) == spec


def test_a_record_without_a_finish_has_no_finish_member() -> None:
    assert "finish" not in parse_image_request(load_catalog(), CAMRY).record()
