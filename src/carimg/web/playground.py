"""The playground: pick a vehicle and options, see a free preview, copy the API call.

Previews load from the embed endpoint under the playground cookie grant, which this page sets;
each cookie previews `playground_daily_limit` new variants a day, and one address is given
`playground_cookies_per_minute` new cookies (then the page is a 429 without one). The embed
endpoint reads no framing parameters (fit, background, reflection, trim, padding), so those shape
the copied API calls only.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.api.per_address import client_ip
from carimg.catalog import Vehicle
from carimg.domain.embed import PLAYGROUND_COOKIE
from carimg.domain.errors import RateLimited
from carimg.domain.imagerequest import BACKGROUNDS, FITS
from carimg.domain.signing import EMBED_PATH
from carimg.domain.views import COLORS, FINISHES, FORMATS, SIZE_PRESETS, VIEWS
from carimg.services import Services
from carimg.web.pages import render_page
from carimg.web.sessions import is_secure

router = APIRouter(include_in_schema=False)


def starting_vehicle(services: Services, request: Request) -> Vehicle | None:
    """The vehicle named by `?make=&model=&year=`, else the first home-page example."""
    catalog, query = services.catalog, request.query_params
    make, model, year = query.get("make"), query.get("model"), query.get("year", "")
    if make and model and year.isdigit():
        found = catalog.find_vehicle(make, model, int(year))
        if found is not None:
            return found
    for entry in services.settings.embed_examples:
        make, model, year = entry.split("/")[:3]
        found = catalog.find_vehicle(make, model, int(year))
        if found is not None:
            return found
    return None


@router.get("/playground")
async def playground_page(request: Request) -> Response:
    services: Services = request.app.state.services
    vehicle = starting_vehicle(services, request)
    context: dict[str, Any] = {
        "vehicle": vehicle,
        "views": VIEWS,
        "colors": COLORS,
        "finishes": FINISHES,
        "sizes": SIZE_PRESETS,
        "formats": FORMATS,
        "fits": FITS,
        "backgrounds": [name for name in BACKGROUNDS if name != "transparent"],
        "embed_path": EMBED_PATH,
        "daily_limit": services.settings.playground_daily_limit,
    }
    try:
        cookie, lifetime = await services.embed.issue_playground_cookie(
            request.cookies.get(PLAYGROUND_COOKIE), client_ip(request)
        )
    except RateLimited as refused:  # the page, without a cookie: its previews cannot load
        return await render_page(
            request,
            "playground.html",
            refused.status,
            headers=refused.headers,
            notice=refused.detail,
            **context,
        )
    response = await render_page(request, "playground.html", **context)
    response.set_cookie(
        PLAYGROUND_COOKIE,
        cookie,
        max_age=lifetime,
        path="/",  # the page reads it back on the next visit
        httponly=True,
        samesite="lax",
        secure=is_secure(request),
    )
    return response
