"""With Redis: one reference per vehicle and paint across processes, and a fleet-wide cap."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable

import openai
import pytest

from carimg.backends.generative import Breaker, FleetBusy, FleetLimits, GenerativeBackend
from carimg.catalog import Vehicle
from carimg.render import VIEW_YAWS
from carimg.store.render_cache import RenderCache
from tests.conftest import REDIS_URL
from tests.generative.conftest import source_request
from tests.generative.fakeimages import API_KEY, FakeImages

MakeBackend = Callable[..., GenerativeBackend]


@pytest.fixture
def prefix(redis_url: str) -> str:
    return f"carimg-test:{uuid.uuid4().hex[:12]}:"


@pytest.fixture
async def make_backend(
    images_server: FakeImages, cache: RenderCache, prefix: str
) -> AsyncIterator[MakeBackend]:
    """Backends as separate server processes have them: own client, breaker and flights."""
    made: list[GenerativeBackend] = []

    def make(cap: int = 4) -> GenerativeBackend:
        client = openai.AsyncOpenAI(api_key=API_KEY, base_url=images_server.url, max_retries=0)
        backend = GenerativeBackend(
            client, cache, model="gpt-image-test", quality="low", timeout=10, concurrency=4,
            breaker=Breaker(3, 30), fleet=FleetLimits(REDIS_URL, prefix, cap, 20),
        )  # fmt: skip
        made.append(backend)
        return backend

    yield make
    for backend in made:
        await backend.close()


async def test_two_processes_share_one_reference_generation(
    make_backend: MakeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    first, second = make_backend(), make_backend()
    images_server.default = "slow:0.3"
    views = list(VIEW_YAWS)
    await asyncio.gather(
        *(first.render(source_request(first, camry, view)) for view in views[:3]),
        *(second.render(source_request(second, camry, view)) for view in views[3:]),
    )
    assert images_server.calls == {"generations": 1, "edits": 5}


async def test_two_processes_make_one_view_once(
    make_backend: MakeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    first, second = make_backend(), make_backend()
    images_server.default = "slow:0.3"
    one, two = await asyncio.gather(
        first.render(source_request(first, camry, "side")),
        second.render(source_request(second, camry, "side")),
    )
    assert one == two
    assert images_server.calls == {"generations": 1, "edits": 1}


async def test_a_full_fleet_cap_is_busy_until_a_slot_frees(prefix: str) -> None:
    limits = FleetLimits(REDIS_URL, prefix, 1, 20)
    loop = asyncio.get_running_loop()
    try:
        async with limits.slot(loop.time() + 1):
            with pytest.raises(FleetBusy):
                async with limits.slot(loop.time() + 0.5):
                    pass
        async with limits.slot(loop.time() + 0.5):
            pass
    finally:
        await limits.close()
