"""The `reflection` output option: parsed into the spec, part of its keys only when asked, so
images without one keep the keys and paths they had before reflections existed."""

from __future__ import annotations

import hashlib

import pytest

from carimg.catalog import load_catalog
from carimg.domain.errors import InvalidParameter
from carimg.domain.imagerequest import parse_image_request

ON_WHITE = {
    "make": "toyota", "model": "camry", "year": 2020, "view": "side", "color": "red",
    "background": "white",
}  # fmt: skip


def test_without_a_reflection_the_variant_key_is_the_one_from_before_reflections() -> None:
    spec = parse_image_request(load_catalog(), ON_WHITE)
    parts = (spec.source_key("r1"), "None", "None", "contain", "white", "False", "0", "png")
    before = hashlib.sha256("|".join(parts).encode()).hexdigest()[:40] + ".png"
    assert spec.variant_key("r1") == before


def test_a_reflection_gives_the_image_its_own_variant_key() -> None:
    plain = parse_image_request(load_catalog(), ON_WHITE)
    reflected = parse_image_request(load_catalog(), ON_WHITE | {"reflection": True})
    assert reflected.variant_key("r1") != plain.variant_key("r1")


def test_a_reflection_derives_from_the_same_source_render() -> None:
    plain = parse_image_request(load_catalog(), ON_WHITE)
    reflected = parse_image_request(load_catalog(), ON_WHITE | {"reflection": "yes"})
    assert reflected.source_key("r1") == plain.source_key("r1")
    assert reflected.asset_key == plain.asset_key


def test_the_renderers_output_spec_asks_for_the_reflection() -> None:
    spec = parse_image_request(load_catalog(), ON_WHITE | {"reflection": "true"})
    assert spec.output.reflection is True


def test_the_canonical_path_names_the_reflection_after_the_background() -> None:
    spec = parse_image_request(load_catalog(), ON_WHITE | {"reflection": "on", "format": "webp"})
    assert spec.canonical_path() == (
        "/api/v1/images/car?make=toyota&model=camry&year=2020&view=side&color=red"
        "&background=white&reflection=true&format=webp"
    )


def test_a_stored_record_parses_back_to_the_same_reflection() -> None:
    catalog = load_catalog()
    spec = parse_image_request(catalog, ON_WHITE | {"reflection": True})
    assert parse_image_request(catalog, spec.record()) == spec


def test_a_record_without_a_reflection_has_no_reflection_member() -> None:
    assert "reflection" not in parse_image_request(load_catalog(), ON_WHITE).record()


@pytest.mark.parametrize("image_format", ["png", "webp"])
def test_a_reflection_on_a_transparent_background_is_an_invalid_reflection(
    image_format: str,
) -> None:
    request = ON_WHITE | {"background": "transparent", "reflection": True, "format": image_format}
    with pytest.raises(InvalidParameter) as raised:
        parse_image_request(load_catalog(), request)
    assert raised.value.extensions["parameter"] == "reflection"
    assert "needs a background" in raised.value.detail


def test_a_reflection_on_a_jpeg_lies_on_its_white_default() -> None:
    request = {**ON_WHITE, "reflection": True, "format": "jpg"}
    del request["background"]
    spec = parse_image_request(load_catalog(), request)
    assert (spec.background, spec.reflection) == ("white", True)


def test_a_reflection_that_is_not_a_flag_is_an_invalid_reflection() -> None:
    with pytest.raises(InvalidParameter) as raised:
        parse_image_request(load_catalog(), ON_WHITE | {"reflection": "shiny"})
    assert raised.value.extensions["parameter"] == "reflection"
