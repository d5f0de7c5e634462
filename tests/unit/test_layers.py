"""Storage stays below the rules: the ways in take records from the domain, the domain never
picks a store's connection, and only `domain/outages.py` turns a store's outage into a 503."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import carimg
from carimg.store.outage import DependencyUnavailable

_ROOT = Path(carimg.__file__).parent


def _imports(path: Path) -> set[tuple[str, str]]:
    """(module, name) of each `from module import name` in the file, nested ones included."""
    return {
        (node.module, alias.name)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def _modules(*packages: str) -> list[Path]:
    return [path for package in packages for path in sorted((_ROOT / package).rglob("*.py"))]


def test_the_ways_in_take_records_from_the_domain() -> None:
    reaching = [
        path.relative_to(_ROOT)
        for path in _modules("api", "web", "mcp", "cli")
        if any(module == "carimg.store.records" for module, _ in _imports(path))
    ]
    assert reaching == []


def test_the_domain_never_picks_the_inline_connection() -> None:
    picking = [
        path.relative_to(_ROOT)
        for path in _modules("domain")
        if any(module == "carimg.store.inline" for module, _ in _imports(path))
    ]
    assert picking == []


def _names_an_outage(module: str, name: str) -> bool:
    if not module.startswith("carimg.store"):
        return False
    member = getattr(importlib.import_module(module), name, None)
    return isinstance(member, type) and issubclass(member, DependencyUnavailable)


def test_only_the_domains_outages_module_turns_an_outage_into_a_503() -> None:
    above_the_store = [
        path for path in _ROOT.rglob("*.py") if "store" not in path.relative_to(_ROOT).parts
    ]
    naming = [
        str(path.relative_to(_ROOT))
        for path in above_the_store
        if any(_names_an_outage(module, name) for module, name in _imports(path))
    ]
    assert naming == ["domain/outages.py"]
