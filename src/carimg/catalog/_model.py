"""The catalog's records: sources, makes, models and vehicles (a model in one year)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

VEHICLE_ID_PREFIX = "veh_"
VEHICLE_ID_LENGTH = 13


@dataclass(frozen=True, slots=True)
class Source:
    """One upstream data source with its provenance and licence."""

    id: str
    name: str
    region: str
    license: str
    license_url: str | None
    url: str
    retrieved_at: str


@dataclass(frozen=True, slots=True)
class Make:
    """A manufacturer: integer id from the source data, display name, unique slug."""

    id: int
    name: str
    slug: str
    registry_name: str = field(repr=False)
    key: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Model:
    """A model name of one make, with every year it exists and the body style the renderer draws."""

    make: Make
    name: str
    slug: str
    key: str = field(repr=False)
    vehicle_type_id: int = field(repr=False)
    vehicle_type: str
    body_style: str
    body_style_source: str = field(repr=False)
    years: tuple[int, ...] = field(repr=False)
    source_ids: tuple[str, ...] = field(repr=False)
    model_year_entries: int = field(repr=False)


@dataclass(frozen=True, slots=True)
class Vehicle:
    """One catalog vehicle: a model in one model year, with its stable id."""

    model: Model
    year: int
    id: str

    @property
    def make(self) -> Make:
        return self.model.make


@dataclass(frozen=True, slots=True)
class CatalogStats:
    """Counts the service reports, computed from the data."""

    makes: int
    models: int
    model_year_entries: int
    year_from: int
    year_to: int


def vehicle_id(make_registry_name: str, model_key: str, year: int) -> str:
    """Stable id `veh_` + 13 characters of [0-9a-z] (52 bits of SHA-256) from names and year.

    Derived from the make's registry name (two makes may share a match key: `IVECO FORD` and
    `IVECO-FORD`) and the model's match key rather than row numbers, so it survives rebuilds.
    """
    seed = f"carimg-vehicle:1|{make_registry_name.casefold()}|{model_key}|{year}".encode()
    return VEHICLE_ID_PREFIX + hashlib.sha256(seed).hexdigest()[:VEHICLE_ID_LENGTH]
