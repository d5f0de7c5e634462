"""ImageSpec.variant_key: remembered per spec, never carried over to a changed spec."""

from __future__ import annotations

from dataclasses import replace

from carimg.catalog import load_catalog
from carimg.domain.imagerequest import parse_image_request

CAMRY = {"make": "toyota", "model": "camry", "year": 2020}


def test_a_variant_key_depends_on_the_renderer_version() -> None:
    spec = parse_image_request(load_catalog(), CAMRY)
    assert spec.variant_key("r1") == spec.variant_key("r1")
    assert spec.variant_key("r1") != spec.variant_key("r2")


def test_a_spec_at_another_variation_or_size_has_a_key_of_its_own() -> None:
    spec = parse_image_request(load_catalog(), CAMRY)
    key = spec.variant_key("r1")
    assert replace(spec, variation=1).variant_key("r1") != key
    assert replace(spec, width=300).variant_key("r1") != key
    assert replace(spec, width=300, variation=0).variant_key("r1") == replace(
        spec, width=300
    ).variant_key("r1")


def test_equal_specs_have_equal_keys_whether_or_not_either_was_asked_before() -> None:
    spec = parse_image_request(load_catalog(), CAMRY)
    spec.variant_key("r1")
    assert replace(spec) == spec
    assert replace(spec).variant_key("r1") == spec.variant_key("r1")
