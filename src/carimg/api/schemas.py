"""Response schemas of the catalog and options endpoints (they shape the OpenAPI document)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from carimg.catalog import MatchKind


class _Schema(BaseModel):
    model_config = ConfigDict(extra="allow")


class CatalogMake(_Schema):
    id: int = Field(description="Integer make id from the source data.")
    name: str = Field(description="Display name, written the way people write it.")
    slug: str = Field(description="Lower-case, hyphenated, unique among makes.")


class CatalogModel(_Schema):
    name: str
    slug: str = Field(description="Unique among the make's models; a unique prefix also matches.")
    vehicle_type: str | None = None
    body_style: str | None = Field(default=None, description="The shape the renderer draws.")


class CatalogVehicle(_Schema):
    id: str = Field(description="Stable vehicle id (`veh_` + 13 characters of [0-9a-z]).")
    year: int


class CatalogSearchHit(_Schema):
    kind: Literal["make", "model"]
    make_name: str
    make_slug: str
    years: list[int]
    match_kind: MatchKind
    model_name: str | None = None
    model_slug: str | None = None
    vehicle_type: str | None = None


class YearsData(_Schema):
    years: list[int]


class YearMakesData(_Schema):
    year: int
    makes: list[CatalogMake]


class YearMakeModelsData(_Schema):
    year: int
    make_id: int
    models: list[CatalogModel]


class SearchData(_Schema):
    query: str
    year: int | None = None
    results: list[CatalogSearchHit]


class MakeModelsData(_Schema):
    make: CatalogMake
    year: int | None = None
    models: list[CatalogModel]


class MakeModelYearsData(_Schema):
    make: CatalogMake
    model: CatalogModel
    years: list[int]
    vehicles: list[CatalogVehicle] = Field(description="The vehicle id of every year.")


class VehiclesResponse(_Schema):
    data: (
        YearsData
        | YearMakesData
        | YearMakeModelsData
        | SearchData
        | MakeModelsData
        | MakeModelYearsData
    )
    request_id: str


class OptionsResponse(_Schema):
    data: dict[str, object] = Field(
        description="views, colors, sizes, formats, pricing, catalog, limits, links."
    )
    request_id: str


class DependencyHealth(_Schema):
    state: str = Field(description="`ok`, `timeout`, or `error: <kind of error>`.")
    kind: str = Field(
        description="database: sqlite or postgresql; render_cache: local or s3 (the object "
        "store); redis; renderer: pool (in-process workers), queue (`carimg worker`) or openai "
        "(a generative image model; `error: CircuitOpen` or `error: RateLimited` while it "
        "takes no new renders)."
    )
    latency_ms: float = Field(description="How long the probe took.")


class HealthResponse(_Schema):
    status: Literal["ok", "degraded"]
    checks: dict[str, str] = Field(description="Each dependency and `ok` or what is wrong.")
    dependencies: dict[str, DependencyHealth] = Field(
        default_factory=dict, description="The probed dependencies: kind, state and latency."
    )
    failing: list[str] | None = Field(
        default=None, description="The dependencies that are not `ok` (only when degraded)."
    )
