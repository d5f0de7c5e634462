"""The home page: what the service is, the free example renders, the ways in."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from starlette.responses import Response

from carimg.catalog import Catalog
from carimg.domain.embed import EXAMPLE_SIZE
from carimg.domain.signing import EMBED_PATH
from carimg.domain.views import VIEWS
from carimg.web.pages import render_page

router = APIRouter(include_in_schema=False)
_VIEW_LABELS = {view.id: view.label for view in VIEWS}


@dataclass(frozen=True, slots=True)
class Example:
    """One free home-page render: its embed URL (the example grant) and what it shows."""

    url: str
    name: str
    caption: str


def example_renders(
    catalog: Catalog, entries: tuple[str, ...], size: str = EXAMPLE_SIZE
) -> list[Example]:
    """The configured examples (make/model/year/view/color) that exist in the catalog, as
    canonical embed URLs: no redirect, and free under the example grant."""
    examples = []
    for entry in entries:
        make, model, year, view, color = entry.split("/")
        vehicle = catalog.find_vehicle(make, model, int(year))
        if vehicle is None:
            continue
        query = urlencode(
            {"brand": make, "model": model, "year": year, "view": view, "color": color,
             "size": size}
        )  # fmt: skip
        name = f"{vehicle.year} {vehicle.make.name} {vehicle.model.name}"
        caption = f"{_VIEW_LABELS.get(view, view)}, {color}"
        examples.append(Example(f"{EMBED_PATH}?{query}", name, caption))
    return examples


@router.get("/")
async def home_page(request: Request) -> Response:
    services = request.app.state.services
    return await render_page(
        request,
        "home.html",
        examples=example_renders(services.catalog, services.settings.embed_examples),
        stats=services.catalog.stats,
        pricing=services.pricing,
    )
