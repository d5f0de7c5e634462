"""`carimg.domain.errors` draws the tree of domain errors: every one, under its parent, with its
HTTP status."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import carimg
from carimg.domain import errors
from carimg.domain.errors import DomainError

_BRANCH = re.compile(r"^(?P<indent>(?:[│ ]   )*)[├└]── (?P<name>\w+) +(?P<status>\d{3}) ")


def _drawn() -> dict[str, tuple[str, int]]:
    """Each error the docstring draws: its parent's name and its status."""
    assert errors.__doc__ is not None
    drawn: dict[str, tuple[str, int]] = {}
    parents = ["DomainError"]
    for line in errors.__doc__.splitlines():
        branch = _BRANCH.match(line)
        if branch is None:
            continue
        depth = len(branch["indent"]) // 4
        del parents[depth + 1 :]
        drawn[branch["name"]] = (parents[depth], int(branch["status"]))
        parents.append(branch["name"])
    return drawn


def _defined() -> list[type[DomainError]]:
    """Every subclass of DomainError in carimg (each module imported, so none hides)."""
    for module in pkgutil.walk_packages(carimg.__path__, "carimg."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    found: list[type[DomainError]] = []
    pending = [DomainError]
    while pending:
        children = pending.pop().__subclasses__()
        found += children
        pending += children
    return found


@pytest.fixture(scope="module")
def defined() -> list[type[DomainError]]:
    return _defined()


def test_the_tree_draws_every_domain_error_under_its_parent(
    defined: list[type[DomainError]],
) -> None:
    expected = {error.__name__: error.__bases__[0].__name__ for error in defined}
    assert {name: parent for name, (parent, _) in _drawn().items()} == expected


def test_the_tree_gives_each_domain_error_its_status(defined: list[type[DomainError]]) -> None:
    statuses = {error.__name__: error.status for error in defined}
    assert {name: status for name, (_, status) in _drawn().items()} == statuses
