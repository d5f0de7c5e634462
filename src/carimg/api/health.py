"""GET /api/health: the service and each dependency's state."""

from __future__ import annotations

import os

from fastapi import APIRouter
from starlette.responses import Response

from carimg.api.deps import CatalogDep, SettingsDep
from carimg.api.jsonresponse import JSONBody
from carimg.api.schemas import HealthResponse

router = APIRouter(tags=["operations"])


@router.get(
    "/api/health",
    operation_id="get_health",
    summary="Service health",
    response_model=HealthResponse,
)
async def get_health(settings: SettingsDep, catalog: CatalogDep) -> Response:
    """`ok` when every dependency works, otherwise `degraded` with the failing ones named."""
    checks = {
        "catalog": "ok" if catalog.stats.makes > 0 else "empty",
        "data_dir": "ok" if os.access(settings.data_dir, os.W_OK) else "not writable",
    }
    status = "ok" if all(state == "ok" for state in checks.values()) else "degraded"
    failing = sorted(name for name, state in checks.items() if state != "ok")
    body = {"status": status, "checks": checks} | ({"failing": failing} if failing else {})
    return JSONBody(body, headers={"Cache-Control": "no-store"})
