"""With S3 settings, an image rendered by one server is served by another from the bucket."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.render import RenderPool
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint
from tests.s3 import S3Server, s3_bucket, s3_server  # noqa: F401  (fixtures)


class CountingPool(RenderPool):
    def __init__(self) -> None:
        super().__init__(0)
        self.calls = 0

    async def render(self, *args: Any) -> bytes:
        self.calls += 1
        return await super().render(*args)


def settings_for(root: Path, database: Path, extra: dict[str, Any]) -> Settings:
    return Settings(
        data_dir=root,
        database_url=f"sqlite+aiosqlite:///{database}",
        base_url="http://testserver",
        render_workers=0,
        **extra,
    )


async def get_image(settings: Settings, catalog: Catalog, pool: RenderPool, params: dict[str, str],
                    key: str | None = None) -> tuple[httpx.Response, str]:  # fmt: skip
    """One image request on a fresh app instance (creating the customer when `key` is None)."""
    app = create_app(settings, catalog=catalog, clock=FixedClock(), render_pool=pool)
    async with app.router.lifespan_context(app):
        services: Services = app.state.services
        if key is None:
            account = await services.accounts.create_account("s3@example.com", credits=10)
            key, _ = await services.accounts.create_key(account, scopes=("images:read",))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get(
                IMAGE_URL, params=params, headers={"Authorization": f"Bearer {key}"}
            )
    return response, key


async def test_a_second_instance_serves_the_render_from_the_bucket(
    tmp_path: Path,
    catalog: Catalog,
    s3_server: S3Server,  # noqa: F811
    s3_bucket: str,  # noqa: F811
) -> None:
    params = {**CAMRY, "color": fresh_paint(), "size": "thumb", "format": "webp"}
    database = tmp_path / "shared.db"
    first_pool, second_pool = CountingPool(), CountingPool()
    first = settings_for(tmp_path / "one", database, s3_server.settings(s3_bucket))
    rendered, key = await get_image(first, catalog, first_pool, params)
    assert rendered.status_code == 200 and rendered.headers["x-image-source"] == "generated"

    second = settings_for(tmp_path / "two", database, s3_server.settings(s3_bucket))
    served, _ = await get_image(second, catalog, second_pool, params, key)
    assert served.status_code == 200 and served.headers["x-image-source"] == "cache"
    assert served.content == rendered.content
    assert (first_pool.calls, second_pool.calls) == (1, 0)
    assert not (tmp_path / "one" / "renders").exists()
    assert not (tmp_path / "two" / "renders").exists()
    kinds = sorted({key.split("/")[1] for key in s3_server.keys(s3_bucket)})
    assert kinds == ["derived", "source"]


async def test_an_unreachable_bucket_answers_503_and_charges_nothing(
    tmp_path: Path, catalog: Catalog
) -> None:
    unreachable = {
        "s3_bucket": "b",
        "s3_endpoint_url": "http://127.0.0.1:9",
        "s3_access_key_id": "x",
        "s3_secret_access_key": "y",
        "s3_region": "us-east-1",
    }
    settings = settings_for(tmp_path, tmp_path / "db.sqlite", unreachable)
    params = {**CAMRY, "color": fresh_paint()}
    response, _ = await get_image(settings, catalog, RenderPool(0), params)
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == "5"
