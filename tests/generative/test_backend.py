"""The generative backend through the official SDK against the local images server."""

from __future__ import annotations

import asyncio
import io
import logging

import numpy as np
import pytest
from PIL import Image

from carimg.backends.generative import (
    PROMPT_VERSION,
    REFERENCE_VIEW,
    CircuitOpen,
    GenerationFailed,
    GenerativeBackend,
)
from carimg.catalog import Vehicle
from carimg.domain.errors import Unavailable
from carimg.logs import scrub
from carimg.render import VIEW_YAWS, Appearance, alpha_bounds, render_source
from carimg.store.render_cache import RenderCache
from tests.generative.conftest import source_request
from tests.generative.fakeimages import API_KEY, FakeImages

VIEWS = tuple(VIEW_YAWS)


def rgba(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as opened:
        assert opened.mode == "RGBA"
        return np.asarray(opened)


async def test_the_reference_view_is_one_generation_and_no_edit(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, REFERENCE_VIEW))
    assert images_server.calls == {"generations": 1}


async def test_the_six_views_of_one_vehicle_share_one_reference_generation(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await asyncio.gather(*(backend.render(source_request(backend, camry, v)) for v in VIEWS))
    assert images_server.calls == {"generations": 1, "edits": 5}
    assert all(size > 1000 for size in images_server.edit_inputs)  # the reference went along


async def test_a_second_view_costs_one_edit_once_the_reference_is_cached(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, "side"))
    await backend.render(source_request(backend, camry, "rear"))
    assert images_server.calls == {"generations": 1, "edits": 2}


async def test_another_paint_is_another_reference(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, "side", "red"))
    await backend.render(source_request(backend, camry, "side", "#336699"))
    assert images_server.calls["generations"] == 2


async def test_a_source_is_stored_in_the_render_cache_under_its_key(
    backend: GenerativeBackend, cache: RenderCache, camry: Vehicle
) -> None:
    request = source_request(backend, camry, "side")
    png = await backend.render(request)
    assert await cache.get_source(request.key) == png


async def test_sources_are_1024_square_rgba_with_a_transparent_background(
    backend: GenerativeBackend, camry: Vehicle
) -> None:
    pixels = rgba(await backend.render(source_request(backend, camry, "side")))
    assert pixels.shape == (1024, 1024, 4)
    assert pixels[:8, :, 3].max() == 0 and pixels[:, :8, 3].max() == 0  # corners clear
    assert pixels[512, 512, 3] == 255  # the vehicle, centred


async def test_an_opaque_picture_is_matted_to_a_transparent_background(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.default = "opaque"
    pixels = rgba(await backend.render(source_request(backend, camry, REFERENCE_VIEW)))
    assert pixels[:8, :, 3].max() == 0
    assert (pixels[..., 3] == 0).mean() > 0.5  # the white studio is gone
    assert pixels[512, 512, 3] == 255


async def test_sources_have_a_soft_contact_shadow_under_the_vehicle(
    backend: GenerativeBackend, camry: Vehicle
) -> None:
    pixels = rgba(await backend.render(source_request(backend, camry, "front")))
    box = alpha_bounds(pixels)
    assert box is not None
    bottom_row = pixels[box[3] - 2, box[0] : box[2]]
    partial = bottom_row[(bottom_row[:, 3] > 0) & (bottom_row[:, 3] < 200)]
    assert len(partial) > 0 and partial[:, :3].max() < 40  # soft and dark


def opaque_bounds(pixels: np.ndarray) -> tuple[int, int, int, int]:
    """(left, top, right, bottom) of the vehicle itself (its shadow is not opaque)."""
    mask = pixels[..., 3] > 250
    rows, cols = np.flatnonzero(mask.any(axis=1)), np.flatnonzero(mask.any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


@pytest.mark.parametrize("view", VIEWS)
async def test_sources_are_centred_and_framed_like_procedural_renders(
    backend: GenerativeBackend, camry: Vehicle, view: str
) -> None:
    """The vehicle takes the procedural camera's share of the width, centred; with its shadow,
    the alpha bounding boxes agree within 5 % of the square beside the vehicle, and the shadow
    reaches as far below it."""
    procedural = render_source(Appearance("toyota", "camry", 2020, "sedan"), view, "red")
    generated = rgba(await backend.render(source_request(backend, camry, view)))
    body, made = opaque_bounds(procedural), opaque_bounds(generated)
    assert abs(body[0] - made[0]) <= 0.02 * 1024 and abs(body[2] - made[2]) <= 0.02 * 1024
    assert abs((body[1] + body[3]) - (made[1] + made[3])) / 2 <= 0.03 * 1024
    whole, whole_made = alpha_bounds(procedural), alpha_bounds(generated)
    assert whole is not None and whole_made is not None
    assert abs(whole[0] - whole_made[0]) <= 0.05 * 1024
    assert abs(whole[2] - whole_made[2]) <= 0.05 * 1024
    below, below_made = whole[3] - body[3], whole_made[3] - made[3]  # the shadow's reach
    assert abs(below - below_made) <= 0.05 * 1024


async def test_prompts_name_the_vehicle_year_body_style_view_and_paint(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, "side", "burgundy"))
    (_, generation), (_, edit) = images_server.prompts
    for words in ("2020", camry.make.name, camry.model.name, "sedan", "burgundy", "#6B1527"):
        assert words in generation and words in edit
    assert "yaw 35 degrees" in generation and "yaw 90 degrees" in edit
    assert "transparent background" in generation.lower() and "licence plates" in generation


async def test_the_prompt_version_is_part_of_the_render_version(backend: GenerativeBackend) -> None:
    assert PROMPT_VERSION in backend.version and "gpt-image-test" in backend.version


async def test_a_new_variation_is_a_new_reference_with_another_prompt(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, REFERENCE_VIEW, variation=0))
    await backend.render(source_request(backend, camry, REFERENCE_VIEW, variation=1))
    assert images_server.calls == {"generations": 2}
    first, second = (prompt for _, prompt in images_server.prompts)
    assert first != second and "take 2" in second


@pytest.mark.parametrize("behaviour", ["500", "refusal", "truncated", "malformed"])
async def test_a_provider_failure_is_a_generation_failure(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle, behaviour: str
) -> None:
    images_server.script = [behaviour]
    with pytest.raises(GenerationFailed):
        await backend.render(source_request(backend, camry, REFERENCE_VIEW))


async def test_a_slow_answer_past_the_timeout_is_a_generation_failure(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    backend._timeout = 0.5
    images_server.script = ["slow:2"]
    with pytest.raises(GenerationFailed):
        await backend.render(source_request(backend, camry, REFERENCE_VIEW))


async def test_a_slow_answer_within_the_timeout_is_served(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.script = ["slow:0.5"]
    assert await backend.render(source_request(backend, camry, REFERENCE_VIEW))


async def test_a_429_is_unavailable_with_the_providers_retry_after(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.script = ["429"]
    with pytest.raises(Unavailable) as raised:
        await backend.render(source_request(backend, camry, REFERENCE_VIEW))
    assert raised.value.headers["Retry-After"] == "7"


async def test_after_a_429_new_renders_are_refused_before_any_call(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.script = ["429"]
    with pytest.raises(Unavailable):
        await backend.render(source_request(backend, camry, REFERENCE_VIEW))
    with pytest.raises(Unavailable):
        backend.admit()
    assert images_server.calls == {"generations": 1}


async def test_repeated_failures_open_the_circuit_breaker(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.default = "500"
    for paint in ("red", "blue", "green"):  # the breaker opens after 3
        with pytest.raises(GenerationFailed):
            await backend.render(source_request(backend, camry, REFERENCE_VIEW, paint))
    with pytest.raises(Unavailable) as raised:
        backend.admit()
    assert int(raised.value.headers["Retry-After"]) > 0
    with pytest.raises(CircuitOpen):
        await backend.probe()  # /api/health: "error: CircuitOpen"


async def test_refusals_leave_the_circuit_breaker_closed(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    images_server.default = "refusal"
    for paint in ("red", "blue", "green", "white"):
        with pytest.raises(GenerationFailed):
            await backend.render(source_request(backend, camry, REFERENCE_VIEW, paint))
    backend.admit()


async def test_the_sdk_sends_the_configured_key(
    backend: GenerativeBackend, images_server: FakeImages, camry: Vehicle
) -> None:
    await backend.render(source_request(backend, camry, REFERENCE_VIEW))
    assert images_server.authorizations == [f"Bearer {API_KEY}"]


@pytest.mark.parametrize("behaviour", ["500", "refusal", "429", "truncated"])
async def test_the_key_never_appears_in_log_lines_or_errors(
    backend: GenerativeBackend,
    images_server: FakeImages,
    camry: Vehicle,
    caplog: pytest.LogCaptureFixture,
    behaviour: str,
) -> None:
    images_server.script = [behaviour]
    caplog.set_level(logging.DEBUG)
    with pytest.raises((GenerationFailed, Unavailable)) as raised:
        await backend.render(source_request(backend, camry, REFERENCE_VIEW))
    assert API_KEY not in caplog.text
    assert API_KEY not in str(raised.value) and API_KEY not in repr(raised.value.__cause__)


def test_the_log_scrubber_redacts_openai_style_keys() -> None:
    line = scrub(f"calling the model with {API_KEY} failed")
    assert API_KEY not in line and "sk-[redacted]" in line
