"""GET /api/v1/vehicles: browse years, makes and models, or search them."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from carimg.api.caching import envelope_response
from carimg.api.deps import CatalogDep
from carimg.api.per_address import CatalogRate
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.api.schemas import VehiclesResponse
from carimg.catalog import Catalog, Make, Model, SearchHit
from carimg.domain import limits
from carimg.domain.catalogsearch import bounded_text, check_query
from carimg.domain.errors import InvalidParameter, NotFound
from carimg.domain.imagerequest import MAX_NAME_LENGTH
from carimg.years import MIN_YEAR

CATALOG_MAX_AGE = 86400
router = APIRouter(tags=["catalog"])


def make_json(make: Make) -> dict[str, Any]:
    return {"id": make.id, "name": make.name, "slug": make.slug}


def model_json(model: Model) -> dict[str, Any]:
    return {
        "name": model.name,
        "slug": model.slug,
        "vehicle_type": model.vehicle_type,
        "body_style": model.body_style,
    }


def hit_json(hit: SearchHit) -> dict[str, Any]:
    found: dict[str, Any] = {
        "kind": hit.kind,
        "make_id": hit.make.id,
        "make_name": hit.make.name,
        "make_slug": hit.make.slug,
    }
    if hit.model is not None:
        found |= {
            "model_name": hit.model.name,
            "model_slug": hit.model.slug,
            "vehicle_type": hit.model.vehicle_type,
            "body_style": hit.model.body_style,
        }
    return found | {"years": list(hit.years), "match_kind": hit.match_kind}


def _find_make(catalog: Catalog, text: str) -> Make:
    make = catalog.find_make(text)
    if make is None:
        near = [hit.make for hit in catalog.search(bounded_text(text), limit=5) if not hit.model]
        raise NotFound(
            f"No make '{text}' in the catalog."
            + (f" Did you mean: {', '.join(m.slug for m in near)}?" if near else ""),
            suggestions=[make_json(m) for m in near],
        )
    return make


def _find_model(catalog: Catalog, make: Make, text: str) -> Model:
    model = catalog.find_model(make, text)
    if model is not None:
        return model
    candidates = catalog.models_with_prefix(make, text)
    if candidates:
        names = ", ".join(m.slug for m in candidates[:10])
        detail = f"'{text}' is a prefix of several {make.name} models ({names}); send more of it."
    else:
        hits = catalog.search(f"{make.slug} {bounded_text(text)}", limit=5)
        candidates = [hit.model for hit in hits if hit.model and hit.make.id == make.id]
        detail = f"No {make.name} model '{text}' in the catalog." + (
            f" Did you mean: {', '.join(m.slug for m in candidates)}?" if candidates else ""
        )
    raise NotFound(detail, suggestions=[model_json(m) for m in candidates[:10]])


def vehicles_data(
    catalog: Catalog,
    *,
    year: int | None,
    make_id: int | None,
    q: str | None,
    limit: int,
    make: str | None,
    model: str | None,
) -> dict[str, Any]:
    """Pick the response shape the parameters ask for (the spec's six shapes)."""
    if q is not None:
        for name, value in (("make", make), ("model", model), ("makeId", make_id)):
            if value is not None:
                raise InvalidParameter(name, f"'q' searches on its own; drop '{name}'.")
        if not q.strip():
            raise InvalidParameter("q", "'q' is empty; send some words to search for.")
        check_query(q)
        hits = catalog.search(q, year=year, limit=limit)
        return {"query": q, **({"year": year} if year is not None else {})} | {
            "results": [hit_json(hit) for hit in hits]
        }
    if model is not None and make is None:
        raise InvalidParameter("model", "'model' needs 'make' (a make slug or name).")
    if make is not None:
        if make_id is not None:
            raise InvalidParameter("makeId", "Send either 'make' or 'makeId', not both.")
        found_make = _find_make(catalog, make)
        if model is None:
            models = catalog.models_of(found_make, year)
            return (
                {"make": make_json(found_make)}
                | ({"year": year} if year is not None else {})
                | {"models": [model_json(m) for m in models]}
            )
        found_model = _find_model(catalog, found_make, model)
        years = list(found_model.years)
        if year is not None and year not in found_model.years:
            raise NotFound(
                f"{found_make.name} {found_model.name} is not in the catalog for {year}; "
                f"available years: {', '.join(map(str, years))}.",
                years=years,
            )
        return {
            "make": make_json(found_make),
            "model": model_json(found_model),
            "years": years,
            "vehicles": [
                {"id": catalog.vehicle(found_model, y).id, "year": y}
                for y in years
                if year is None or y == year
            ],
        }
    if make_id is not None:
        if year is None:
            raise InvalidParameter("makeId", "'makeId' needs 'year' (or use 'make' with a slug).")
        by_id = catalog.make_by_id(make_id)
        if by_id is None:
            raise NotFound(f"No make with id {make_id} in the catalog.")
        models = catalog.models_of(by_id, year)
        return {"year": year, "make_id": make_id, "models": [model_json(m) for m in models]}
    if year is not None:
        return {"year": year, "makes": [make_json(m) for m in catalog.makes_in_year(year)]}
    return {"years": list(catalog.years)}


@router.get(
    "/api/v1/vehicles",
    operation_id="list_vehicles",
    summary="Browse or search the vehicle catalog",
    response_model=VehiclesResponse,
    responses=problem_responses(400, 404, 429),
    dependencies=[StrictQuery, CatalogRate],
)
async def list_vehicles(
    request: Request,
    catalog: CatalogDep,
    year: Annotated[
        int | None, Query(ge=MIN_YEAR, le=limits.JSON_INT_MAX, description="Model year.")
    ] = None,
    make_id: Annotated[
        int | None,
        Query(
            alias="makeId",
            description="Make id; needs year; not with make or q (400).",
        ),
    ] = None,
    q: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=limits.SEARCH_QUERY_MAX,
            description="Free-text search (not blank); only with year and limit (400 with make, "
            "model or makeId).",
            json_schema_extra={"pattern": r"\S"},
        ),
    ] = None,
    limit: Annotated[
        int, Query(ge=1, le=limits.SEARCH_LIMIT_MAX, description="Search results.")
    ] = limits.SEARCH_LIMIT_DEFAULT,
    make: Annotated[
        str | None,
        Query(
            max_length=MAX_NAME_LENGTH,
            description="Make slug or name; not with makeId or q (400).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        Query(
            max_length=MAX_NAME_LENGTH,
            description="Model slug or unique prefix; needs make (400 without).",
        ),
    ] = None,
) -> Response:
    """Public and free (per address: `CARIMG_CATALOG_REQUESTS_PER_MINUTE`); a search reads at
    most 12 words, 2 of them years. The parameters pick one of six shapes of `data`:
    none → years; year → makes; year + makeId → models; q (+ year, limit) → search results;
    make (+ year) → models; make + model → years and vehicle ids. Cacheable for a day."""
    find = partial(
        vehicles_data, catalog, year=year, make_id=make_id, q=q, limit=limit, make=make, model=model
    )
    # a search, bounded but still long for the event loop, runs off it
    data = await asyncio.to_thread(find) if q is not None or make is not None else find()
    return envelope_response(request, data, max_age=CATALOG_MAX_AGE)
