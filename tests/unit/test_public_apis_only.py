"""carimg uses only the public names of the packages it depends on (tests/unit/foreign_privates
says how the source is read): a private name can change or vanish in any release, silently."""

from __future__ import annotations

from pathlib import Path

import pytest

import carimg
from tests.unit.foreign_privates import (
    Source,
    base_privates_touched,
    own_privates,
    private_attributes,
    private_imports,
    sources,
)


@pytest.fixture(scope="module")
def carimg_sources() -> dict[str, Source]:
    return sources(Path(carimg.__file__).parent)


def test_no_module_imports_a_private_name_of_another_package(
    carimg_sources: dict[str, Source],
) -> None:
    found = [hit for source in carimg_sources.values() for hit in private_imports(source)]
    assert found == []


def test_no_module_uses_a_private_attribute_of_another_package(
    carimg_sources: dict[str, Source],
) -> None:
    own = own_privates(carimg_sources)
    found = [hit for source in carimg_sources.values() for hit in private_attributes(source, own)]
    assert found == []


def test_no_class_touches_a_private_of_its_base_from_another_package(
    carimg_sources: dict[str, Source],
) -> None:
    found = [
        hit
        for source in carimg_sources.values()
        for hit in base_privates_touched(source, carimg_sources)
    ]
    assert found == []


def _sample(text: str) -> dict[str, Source]:
    return {"carimg.sample": Source.parse("carimg.sample", text)}


@pytest.mark.parametrize(
    "line",
    [
        "from uvicorn.protocols.http.httptools_impl import _get_status_line",
        "from prometheus_client import _private",
        "import uvicorn._types",
    ],
)
def test_the_scan_finds_an_import_of_a_private_module_or_name(line: str) -> None:
    (source,) = _sample(line).values()
    assert len(list(private_imports(source))) == 1


def test_the_scan_allows_carimg_s_own_private_modules() -> None:
    (source,) = _sample("from carimg.catalog._search import SearchIndex").values()
    assert list(private_imports(source)) == []


def test_the_scan_finds_a_private_attribute_of_an_imported_module() -> None:
    samples = _sample("import sys\n_getframe = 1\nsys._getframe()")
    (source,) = samples.values()
    assert len(list(private_attributes(source, own_privates(samples)))) == 1


def test_the_scan_finds_a_private_attribute_carimg_never_defines() -> None:
    samples = _sample("def headers(request):\n    return request._headers")
    (source,) = samples.values()
    assert len(list(private_attributes(source, own_privates(samples)))) == 1


def test_the_scan_finds_a_subclass_that_sets_a_private_of_its_base() -> None:
    samples = _sample(
        "from starlette.requests import Request\n"
        "class Hot(Request):\n"
        "    def __init__(self, scope):\n"
        "        self._headers = None\n"
    )
    (source,) = samples.values()
    assert len(list(base_privates_touched(source, samples))) == 1


def test_the_scan_allows_a_subclass_its_own_private_attributes() -> None:
    samples = _sample(
        "from starlette.requests import Request\n"
        "class Hot(Request):\n"
        "    def __init__(self, scope):\n"
        "        self._indexed = None\n"
    )
    (source,) = samples.values()
    assert list(base_privates_touched(source, samples)) == []
