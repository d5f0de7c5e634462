"""A real `carimg serve` on the generative backend, against the local images server."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import httpx
import pytest

from carimg.render import VIEW_YAWS
from tests.e2e.conftest import Server, running_server
from tests.generative.fakeimages import API_KEY, FakeImages, fake_images

pytestmark = pytest.mark.e2e
IMAGE = "/api/v1/images/car"
CAMRY = {"make": "toyota", "model": "camry", "year": "2020", "w": "256", "format": "png"}


@pytest.fixture(scope="module")
def images_server() -> Iterator[FakeImages]:
    with fake_images() as server:
        yield server


@pytest.fixture(scope="module")
def server(images_server: FakeImages, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    settings = {
        "render_backend": "openai",
        "openai_api_key": API_KEY,
        "openai_base_url": images_server.url,
        "openai_timeout": "20",
        "log_level": "info",
    }
    with running_server(tmp_path_factory.mktemp("var"), **settings) as running:
        yield running


@pytest.fixture
def headers(server: Server) -> dict[str, str]:
    email = f"gen-{uuid.uuid4().hex[:8]}@example.com"
    server.admin("create-account", "--email", email)
    key = server.admin("create-key", "--email", email)["key"]
    return {"Authorization": f"Bearer {key}"}


def credits(server: Server, headers: dict[str, str]) -> int:
    account = httpx.get(f"{server.url}/api/v1/account", headers=headers, timeout=10)
    value: int = account.json()["data"]["credits"]
    return value


async def test_two_concurrent_paid_requests_share_one_generation_each_charged_once(
    server: Server, images_server: FakeImages, headers: dict[str, str]
) -> None:
    images_server.calls.clear()
    images_server.script = ["slow:1"]
    params = {**CAMRY, "view": "front-3-4", "color": "purple"}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60) as client:
        first, second = await asyncio.gather(
            client.get(IMAGE, params=params), client.get(IMAGE, params=params)
        )
        assert first.status_code == second.status_code == 200
        assert first.content == second.content
        assert images_server.calls == {"generations": 1}
        assert credits(server, headers) == 98  # one credit per delivered image
        cached = await client.get(IMAGE, params=params)
    assert cached.headers["X-Image-Source"] == "cache"
    assert images_server.calls == {"generations": 1}


async def test_a_provider_failure_is_refunded(
    server: Server, images_server: FakeImages, headers: dict[str, str]
) -> None:
    images_server.script = ["500"]
    params = {**CAMRY, "view": "side", "color": "orange"}
    response = httpx.get(f"{server.url}{IMAGE}", params=params, headers=headers, timeout=60)
    assert response.status_code == 502
    assert credits(server, headers) == 100


async def test_the_six_views_share_one_reference_generation(
    server: Server, images_server: FakeImages, headers: dict[str, str]
) -> None:
    images_server.calls.clear()
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=60) as client:
        answers = await asyncio.gather(
            *(
                client.get(IMAGE, params={**CAMRY, "view": view, "color": "gold"})
                for view in VIEW_YAWS
            )
        )
    assert [a.status_code for a in answers] == [200] * 6
    assert images_server.calls == {"generations": 1, "edits": 5}


def test_the_key_never_appears_in_the_server_log(server: Server) -> None:
    for log in server.data_dir.parent.glob("server-*.log"):
        assert API_KEY not in log.read_text()
