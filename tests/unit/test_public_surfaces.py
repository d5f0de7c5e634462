"""Each package with a public surface lists it in `__all__`: every listed name exists and is
public, and every public name the package defines or takes from its own modules is listed."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest

import carimg

_ROOT = Path(carimg.__file__).parent


def _declares_all(init: Path) -> bool:
    return any(
        isinstance(node, ast.Assign)
        and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        for node in ast.parse(init.read_text()).body
    )


PACKAGES = sorted(
    ".".join(("carimg", *init.parent.relative_to(_ROOT).parts))
    for init in _ROOT.rglob("__init__.py")
    if _declares_all(init)
)


def _own_names(package: ModuleType) -> set[str]:
    """The names the package's `__init__` defines, or imports from its own modules."""
    assert package.__file__ is not None
    names: set[str] = set()
    for node in ast.parse(Path(package.__file__).read_text()).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package.__name__):
            names |= {alias.asname or alias.name for alias in node.names}
    return {
        name
        for name in names
        if not name.startswith("_") and not isinstance(getattr(package, name), ModuleType)
    }


def test_the_surfaces_are_found() -> None:
    assert {"carimg.catalog", "carimg.render", "carimg.client"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_each_listed_name_is_public_and_importable(name: str) -> None:
    package = importlib.import_module(name)
    for listed in package.__all__:
        assert not listed.startswith("_"), listed
        assert hasattr(package, listed), listed


@pytest.mark.parametrize("name", PACKAGES)
def test_each_name_is_listed_once(name: str) -> None:
    listed = importlib.import_module(name).__all__
    assert len(listed) == len(set(listed))


@pytest.mark.parametrize("name", PACKAGES)
def test_each_public_name_of_the_package_is_listed(name: str) -> None:
    package = importlib.import_module(name)
    assert _own_names(package) <= set(package.__all__)
