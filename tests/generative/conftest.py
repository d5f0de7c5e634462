"""The generative backend against a local images server (`fakeimages`): no network."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from carimg.backends.generative import Breaker, GenerativeBackend
from carimg.catalog import Catalog, Vehicle
from carimg.config import Settings
from carimg.domain.images import SourceRequest
from carimg.store.blobs import LocalBlobStore
from carimg.store.render_cache import RenderCache
from tests.generative.fakeimages import API_KEY, FakeImages, fake_images


@pytest.fixture
def images_server() -> Iterator[FakeImages]:
    with fake_images() as server:
        yield server


@pytest.fixture
def cache(tmp_path: Path) -> RenderCache:
    return RenderCache(LocalBlobStore(tmp_path / "renders"), 0)


@pytest.fixture
async def backend(
    images_server: FakeImages, cache: RenderCache
) -> AsyncIterator[GenerativeBackend]:
    client = openai.AsyncOpenAI(api_key=API_KEY, base_url=images_server.url, max_retries=0)
    running = GenerativeBackend(
        client, cache, model="gpt-image-test", quality="low", timeout=10, concurrency=4,
        breaker=Breaker(3, 30),
    )  # fmt: skip
    yield running
    await running.close()


@pytest.fixture
def camry(catalog: Catalog) -> Vehicle:
    vehicle = catalog.find_vehicle("toyota", "camry", 2020)
    assert vehicle is not None
    return vehicle


def source_request(
    backend: GenerativeBackend, vehicle: Vehicle, view: str, paint: str = "red", variation: int = 0
) -> SourceRequest:
    key = f"{backend.version}-{vehicle.id}-{view}-{paint}-{variation}".replace("#", "") + ".png"
    return SourceRequest(key, vehicle, view, paint, variation)


@pytest.fixture
def settings(
    tmp_path: Path, database_url: str, images_server: FakeImages, overrides: dict[str, Any]
) -> Settings:
    """The app on the generative backend, against the local images server, with its own cache."""
    values: dict[str, Any] = {
        "data_dir": tmp_path / "var",
        "database_url": database_url,
        "base_url": "http://testserver",
        "render_workers": 0,
        "render_backend": "openai",
        "openai_api_key": API_KEY,
        "openai_base_url": images_server.url,
        "openai_timeout": 10,
        "openai_breaker_failures": 3,
    }
    return Settings(**(values | overrides))
