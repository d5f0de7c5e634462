"""GET /api/v1/images/options: every enumeration, price and limit, with live catalog numbers."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.api.caching import envelope_response
from carimg.api.deps import CatalogDep, SettingsDep
from carimg.api.per_address import CatalogRate
from carimg.api.problems import problem_responses
from carimg.api.query import StrictQuery
from carimg.api.schemas import OptionsResponse
from carimg.domain.options import build_options

OPTIONS_MAX_AGE = 3600
router = APIRouter(tags=["images"])


@router.get(
    "/api/v1/images/options",
    operation_id="get_image_options",
    summary="Views, colors, sizes, formats, pricing, catalog numbers and limits",
    response_model=OptionsResponse,
    responses=problem_responses(400, 429),
    dependencies=[StrictQuery, CatalogRate],
)
async def get_options(request: Request, settings: SettingsDep, catalog: CatalogDep) -> Response:
    """Public and free (per address: `CARIMG_CATALOG_REQUESTS_PER_MINUTE`, with the catalog);
    cacheable for an hour."""
    return envelope_response(request, build_options(settings, catalog), max_age=OPTIONS_MAX_AGE)
