"""The loaded catalog: lookups by slug, name, prefix and id, year listings and search."""

from __future__ import annotations

import functools
import gzip
import json
from collections import defaultdict
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from carimg.catalog._model import CatalogStats, Make, Model, Source, Vehicle, vehicle_id
from carimg.catalog._search import SearchHit, SearchIndex
from carimg.catalog._text import norm, slugify


class Catalog:
    """Every make, model and model year of the bundled data, immutable once loaded."""

    def __init__(
        self,
        sources: Sequence[Source],
        makes: Sequence[Make],
        models: Sequence[Model],
        stats: CatalogStats,
    ) -> None:
        self.sources = tuple(sources)
        self.makes = tuple(sorted(makes, key=lambda make: (make.name.lower(), make.id)))
        self.models = tuple(models)
        self.stats = stats
        self._make_by_id = {make.id: make for make in makes}
        self._make_by_slug = {make.slug: make for make in makes}
        self._models_by_make: dict[int, list[Model]] = defaultdict(list)
        for model in sorted(models, key=lambda m: (m.name.lower(), m.slug)):
            self._models_by_make[model.make.id].append(model)
        self.years = tuple(range(stats.year_from, stats.year_to + 1))
        self._index = SearchIndex(self.makes, self.models)

    # -- makes ---------------------------------------------------------------------------------

    def make_by_id(self, make_id: int) -> Make | None:
        return self._make_by_id.get(make_id)

    def find_make(self, text: str) -> Make | None:
        """A make by slug, by name in any spelling, or by a common alias (VW, Chevy …)."""
        make = self._make_by_slug.get(text) or self._make_by_slug.get(slugify(text))
        if make is not None:
            return make
        named = self._index.makes_matching([norm(text)])
        return named[0] if named else None

    # -- models --------------------------------------------------------------------------------

    def models_of(self, make: Make, year: int | None = None) -> list[Model]:
        models = self._models_by_make.get(make.id, [])
        return models if year is None else [m for m in models if year in m.years]

    def find_model(self, make: Make, text: str) -> Model | None:
        """A model of `make` by slug, by name in any spelling, or by a unique slug prefix.

        A prefix is unique when it matches one model, or when one of its matches is the stem of
        all the others (`cayen` → `cayenne`, not `cayenne-s`).
        """
        models = self._models_by_make.get(make.id, [])
        slug, key = slugify(text), norm(text)
        for model in models:
            if model.slug == slug or model.key == key:
                return model
        return _unique_by_prefix(self.models_with_prefix(make, text))

    def models_with_prefix(self, make: Make, text: str) -> list[Model]:
        """Models of `make` whose slug starts with the slug of `text`."""
        slug = slugify(text)
        return [m for m in self._models_by_make.get(make.id, []) if m.slug.startswith(slug)]

    # -- vehicles ------------------------------------------------------------------------------

    def find_vehicle(self, make: str, model: str, year: int) -> Vehicle | None:
        """The vehicle for a make and model (names, slugs or unique prefix) in one year."""
        found_make = self.find_make(make)
        found_model = self.find_model(found_make, model) if found_make else None
        if found_model is None or year not in found_model.years:
            return None
        return self.vehicle(found_model, year)

    def vehicle(self, model: Model, year: int) -> Vehicle:
        """The vehicle of a model in one of its years."""
        if year not in model.years:
            raise ValueError(f"{model.make.name} {model.name} is not in the catalog for {year}")
        return Vehicle(
            model=model, year=year, id=vehicle_id(model.make.registry_name, model.key, year)
        )

    @functools.cached_property
    def _vehicles(self) -> dict[str, tuple[Model, int]]:
        """Reverse index of vehicle ids, built on first use."""
        return {
            vehicle_id(model.make.registry_name, model.key, year): (model, year)
            for model in self.models
            for year in model.years
        }

    def vehicle_by_id(self, identifier: str) -> Vehicle | None:
        found = self._vehicles.get(identifier)
        return Vehicle(model=found[0], year=found[1], id=identifier) if found else None

    @functools.cached_property
    def vehicle_count(self) -> int:
        """Vehicles (model × year) in the catalog."""
        return sum(len(model.years) for model in self.models)

    def makes_in_year(self, year: int) -> list[Make]:
        """Makes with at least one model in `year`, by name."""
        return self._makes_by_year.get(year, [])

    @functools.cached_property
    def _makes_by_year(self) -> dict[int, list[Make]]:
        years: dict[int, set[int]] = defaultdict(set)
        for model in self.models:
            for year in model.years:
                years[year].add(model.make.id)
        return {year: [m for m in self.makes if m.id in ids] for year, ids in years.items()}

    # -- search --------------------------------------------------------------------------------

    def search(
        self, query: str, *, year: int | None = None, limit: int = 10, typos: bool = True
    ) -> list[SearchHit]:
        """Free-text search over makes and models (see `SearchIndex.search`)."""
        return self._index.search(query, year=year, limit=limit, typos=typos)


def _unique_by_prefix(matches: list[Model]) -> Model | None:
    stems = [m for m in matches if all(o.slug.startswith(m.slug) for o in matches)]
    return stems[0] if len(stems) == 1 else None


def parse_catalog(document: dict[str, Any]) -> Catalog:
    """Build a Catalog from the decoded data file."""
    sources = [Source(**source) for source in document["sources"]]
    source_ids = [source.id for source in sources]
    vehicle_types = dict(document["vehicle_types"])
    makes = {
        make_id: Make(id=make_id, name=name, slug=slug, registry_name=registry, key=norm(registry))
        for make_id, registry, name, slug in document["makes"]
    }
    models = [
        Model(
            make=makes[make_id],
            name=name,
            slug=slug,
            key=norm(name),
            vehicle_type_id=type_id,
            vehicle_type=vehicle_types[type_id],
            body_style=style,
            body_style_source=style_source,
            years=tuple(years),
            source_ids=tuple(sid for bit, sid in enumerate(source_ids) if mask & (1 << bit)),
            model_year_entries=entries,
        )
        for make_id, name, slug, type_id, style, style_source, mask, entries, years in document[
            "models"
        ]
    ]
    all_years = [year for model in models for year in model.years]
    stats = CatalogStats(
        makes=len(makes),
        models=document["stats"]["model_names"],
        model_year_entries=sum(model.model_year_entries for model in models),
        year_from=min(all_years),
        year_to=max(all_years),
    )
    return Catalog(sources, list(makes.values()), models, stats)


def read_catalog(path: Path) -> Catalog:
    """Load a catalog data file (gzip JSON, as written by `scripts/build_catalog.py`)."""
    return parse_catalog(json.loads(gzip.decompress(path.read_bytes())))


@functools.lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The bundled catalog (read once per process; it is immutable)."""
    data = resources.files("carimg.catalog").joinpath("data", "catalog.json.gz")
    return parse_catalog(json.loads(gzip.decompress(data.read_bytes())))
