"""Finds where carimg's source uses a private name (`_x`, not `__x__`) of another package.

Three ways, each read from the syntax tree, so nothing is imported but the other packages'
classes that carimg subclasses:
- an import of a private module or name: `import x._y`, `from x._y import z`, `from x import _y`;
- a private attribute read or set on anything but carimg's own: `x._y` where `x` is a name
  imported from another package, or where carimg itself never defines `_y`;
- a class that touches a private of its base from another package: `self._y` (or a class
  attribute `_y`) where a base class outside carimg defines `_y` (in its namespace, its slots
  or as `self._y = …` in its source).

carimg's own private modules and names (`carimg.catalog._search`, `self._cache`) are carimg's.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

OWN = "carimg"

# Underscored names that their package documents as public.
DOCUMENTED = {
    "_mapping": "SQLAlchemy's Row._mapping, underscored so that it cannot clash with a column",
}


def private(name: str) -> bool:
    """`_x`; not `__x__` (special) nor `_x_` (enum's documented names, `_missing_`)."""
    return name.startswith("_") and not name.endswith("_")


def foreign(module: str) -> bool:
    return module.split(".")[0] != OWN


@dataclass
class Source:
    """One module's syntax tree and the names it imports from other packages."""

    name: str  # dotted, e.g. carimg.api.images
    tree: ast.Module
    imported: dict[str, str] = field(default_factory=dict)  # local name -> dotted origin
    own_imports: dict[str, str] = field(default_factory=dict)  # local name -> carimg origin

    @classmethod
    def parse(cls, name: str, text: str) -> Source:
        source = cls(name, ast.parse(text))
        for node in ast.walk(source.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    origin = alias.name if alias.asname else alias.name.split(".")[0]
                    target = source.imported if foreign(alias.name) else source.own_imports
                    target[local] = origin
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = source.imported if foreign(node.module) else source.own_imports
                    target[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return source


def sources(root: Path) -> dict[str, Source]:
    """Every module under `root` (the carimg package), by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = Source.parse(name, path.read_text(encoding="utf-8"))
    return found


def private_imports(source: Source) -> Iterator[str]:
    for node in ast.walk(source.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if foreign(alias.name) and any(map(private, alias.name.split("."))):
                    yield f"{source.name}:{node.lineno}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not foreign(node.module):
                continue
            for alias in node.names:
                if any(map(private, node.module.split("."))) or private(alias.name):
                    yield f"{source.name}:{node.lineno}: from {node.module} import {alias.name}"


def own_privates(all_sources: dict[str, Source]) -> set[str]:
    """Every private name carimg binds itself: functions, classes, variables, attributes it
    sets, slots, and names it imports under a private alias."""
    names: set[str] = set()
    for source in all_sources.values():
        for node in ast.walk(source.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.alias) and node.asname:
                names.add(node.asname)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)  # __slots__ entries, getattr(self, "_x")
    return {name for name in names if private(name)}


def private_attributes(source: Source, own: set[str]) -> Iterator[str]:
    for node in ast.walk(source.tree):
        if not isinstance(node, ast.Attribute) or not private(node.attr):
            continue
        value = node.value
        of_import = isinstance(value, ast.Name) and value.id in source.imported
        if of_import or (node.attr not in own and node.attr not in DOCUMENTED):
            yield f"{source.name}:{node.lineno}: {ast.unparse(node)}"


def _foreign_class(origin: str) -> type | None:
    module, _, name = origin.rpartition(".")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) else None


def _bases(cls: ast.ClassDef, source: Source, all_sources: dict[str, Source]) -> Iterator[type]:
    """The classes from other packages that `cls` derives from, through carimg's own."""
    for base in cls.bases:
        if isinstance(base, ast.Name) and base.id in source.imported:
            found = _foreign_class(source.imported[base.id])
            if found is not None:
                yield found
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            module = source.imported.get(base.value.id)
            found = None if module is None else _foreign_class(f"{module}.{base.attr}")
            if found is not None:
                yield found
        elif isinstance(base, ast.Name):
            origin = source.own_imports.get(base.id, f"{source.name}.{base.id}")
            module, _, name = origin.rpartition(".")
            owner = all_sources.get(module)
            for node in [] if owner is None else owner.tree.body:
                if isinstance(node, ast.ClassDef) and node.name == name:
                    yield from _bases(node, owner, all_sources)  # type: ignore[arg-type]


def _privates_of(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        names |= _own_privates_of(klass)
    return names


@functools.cache
def _own_privates_of(klass: type) -> frozenset[str]:
    """The private names one class (not its bases) defines."""
    names: set[str] = set()
    if klass is not object:
        names.update(name for name in vars(klass) if private(name))
        slots = vars(klass).get("__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
        try:
            tree = ast.parse(inspect.getsource(klass))
        except (OSError, TypeError, SyntaxError):  # built in, or no source shipped
            tree = None
        for node in [] if tree is None else ast.walk(tree):
            names.add(_self_attribute(node) or "")
    return frozenset(name for name in names if private(name))


def base_privates_touched(source: Source, all_sources: dict[str, Source]) -> Iterator[str]:
    for cls in ast.walk(source.tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        theirs: set[str] = set()
        for base in _bases(cls, source, all_sources):
            theirs |= _privates_of(base)
        if not theirs:
            continue
        for line, name in _names_used(cls):
            if name in theirs:
                yield f"{source.name}:{line}: {cls.name} uses its base's {name}"


def _names_used(cls: ast.ClassDef) -> Iterator[tuple[int, str]]:
    """The attributes a class reads or sets on `self`/`cls`, and the names its body defines."""
    for node in ast.walk(cls):
        name = _self_attribute(node)
        if name is not None:
            yield getattr(node, "lineno", cls.lineno), name
    for statement in cls.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield statement.lineno, statement.name
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    yield statement.lineno, target.id
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            yield statement.lineno, statement.target.id


def _self_attribute(node: ast.AST) -> str | None:
    """`x` of `self.x` or `cls.x`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id in ("self", "cls") else None
    return None
