"""GET /api/v1/images/options: every member of the spec's Options response."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.render import RenderPool


async def options(client: httpx.AsyncClient) -> dict:
    response = await client.get("/api/v1/images/options")
    assert response.status_code == 200
    return response.json()["data"]


async def test_options_has_every_member_of_the_spec_and_the_finishes(
    client: httpx.AsyncClient,
) -> None:
    body = await options(client)
    assert set(body) == {
        "views",
        "colors",
        "finishes",  # carimg's own
        "sizes",
        "formats",
        "pricing",
        "catalog",
        "limits",
        "links",
    }


async def test_views_carry_yaw_degrees_and_aliases(client: httpx.AsyncClient) -> None:
    views = {view["id"]: view for view in (await options(client))["views"]}
    assert {v: views[v]["yaw_degrees"] for v in views} == {
        "front": 0,
        "front-3-4": 35,
        "side": 90,
        "rear-3-4": 145,
        "rear": 180,
        "side-right": 270,
    }
    assert views["front-3-4"]["aliases"] == ["front34", "hero"]
    assert views["side"]["aliases"] == ["profile", "side-left"]
    assert views["rear"]["aliases"] == ["back"]
    assert all(view["label"] and view["description"] for view in views.values())


async def test_the_fifteen_colors_with_hex_values(client: httpx.AsyncClient) -> None:
    colors = (await options(client))["colors"]
    assert [c["name"] for c in colors] == [
        "white", "black", "gray", "silver", "blue", "red", "green", "brown",
        "beige", "tan", "orange", "yellow", "gold", "burgundy", "purple",
    ]  # fmt: skip
    assert all(len(c["hex"]) == 7 and c["hex"].startswith("#") for c in colors)


async def test_sizes_and_formats(client: httpx.AsyncClient) -> None:
    body = await options(client)
    assert body["sizes"] == {
        "presets": {"thumb": 256, "small": 512, "medium": 768, "large": 1024},
        "max": 1024,
        "source": 1024,
    }
    assert body["formats"] == [
        {"id": "png", "mime": "image/png", "transparent": True},
        {"id": "webp", "mime": "image/webp", "transparent": True},
        {"id": "jpg", "mime": "image/jpeg", "transparent": False},
    ]


async def test_catalog_numbers_are_live(client: httpx.AsyncClient) -> None:
    catalog = (await options(client))["catalog"]
    assert (catalog["makes"], catalog["models"]) == (1145, 14841)
    assert catalog["years"] == {"from": 1990, "to": 2026}
    assert len(catalog["sources"]) == 5
    assert all({"id", "name", "region", "license"} <= set(s) for s in catalog["sources"])


async def test_pricing_variant_a_by_default(client: httpx.AsyncClient) -> None:
    pricing = (await options(client))["pricing"]
    assert pricing["credits_per_image"] == 1 and pricing["free_credits"] == 100
    assert pricing["credits_per_dollar"] == 1000
    assert [(p["credits"], p["cents"]) for p in pricing["packs"]] == [
        (5000, 500),
        (10000, 1000),
        (25000, 2500),
        (100000, 10000),
    ]
    assert "plans" not in pricing


@asynccontextmanager
async def running(settings: Settings, catalog: Catalog) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app of its own, started (its services count the per-address window)."""
    app = create_app(settings, catalog=catalog, render_pool=RenderPool(0))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


async def test_pricing_variant_b_by_setting(tmp_path: Path, catalog: Catalog) -> None:
    settings = Settings(data_dir=tmp_path, pricing_variant="B")
    async with running(settings, catalog) as c:
        pricing = (await options(c))["pricing"]
    assert pricing["credits_per_dollar"] == 100
    assert [p["credits"] for p in pricing["packs"]] == [100, 500, 1000, 2500, 10000]
    assert [plan["id"] for plan in pricing["plans"]] == ["free", "pro", "business", "enterprise"]


async def test_limits_follow_the_settings(tmp_path: Path, catalog: Catalog) -> None:
    settings = Settings(data_dir=tmp_path, delivery_ttl_max=86400)
    async with running(settings, catalog) as c:
        limits = (await options(c))["limits"]
    assert limits == {
        "rate_limit_per_minute_default": 120,
        "max_batch_urls": 50,
        "delivery_ttl": {"default": 3600, "min": 60, "max": 86400},
    }


async def test_options_are_cacheable_for_an_hour(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/images/options")
    assert response.headers["cache-control"] == "public, max-age=3600"


async def test_options_take_no_parameters(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v1/images/options?make=bmw")
    assert response.status_code == 400
    assert response.json()["allowed"] == []
