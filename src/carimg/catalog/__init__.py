"""carimg.catalog: the vehicle catalog (makes, models, model years, body styles) and its search.

A library with no service imports. Data comes from `@meterapp/vehicle-db@2.6.0`, compiled into
`data/catalog.json.gz` by `scripts/build_catalog.py`. The vehicle design data (one record per
model generation, read by the renderer) is `data/generations.jsonl`, see docs/VEHICLE_DATA.md.
"""

from carimg.bodystyles import BODY_STYLES
from carimg.catalog._catalog import Catalog, load_catalog, parse_catalog, read_catalog
from carimg.catalog._design import (
    DesignData,
    DesignDataError,
    Generation,
    Tyre,
    load_design_data,
    parse_design_data,
    parse_generation,
    read_design_data,
)
from carimg.catalog._model import CatalogStats, Make, Model, Source, Vehicle, vehicle_id
from carimg.catalog._search import MAKE_ALIASES, MATCH_KINDS, MatchKind, SearchHit
from carimg.catalog._text import norm, slugify

__all__ = [
    "BODY_STYLES",
    "MAKE_ALIASES",
    "MATCH_KINDS",
    "Catalog",
    "CatalogStats",
    "DesignData",
    "DesignDataError",
    "Generation",
    "Make",
    "MatchKind",
    "Model",
    "SearchHit",
    "Source",
    "Tyre",
    "Vehicle",
    "load_catalog",
    "load_design_data",
    "norm",
    "parse_catalog",
    "parse_design_data",
    "parse_generation",
    "read_catalog",
    "read_design_data",
    "slugify",
    "vehicle_id",
]
