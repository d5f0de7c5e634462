"""GET /api/v1/images/car: delivery, headers, billing, caching and the request rules."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from carimg.domain.errors import InvalidParameter
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint, pixels
from tests.conftest import Customer


async def get(client: httpx.AsyncClient, customer: Customer, **params: str | int) -> httpx.Response:
    return await client.get(IMAGE_URL, params={**CAMRY, **params}, headers=customer.headers)


async def test_a_new_variant_is_generated_and_billed_one_credit(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, color=fresh_paint(), view="side")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["x-image-source"] == "generated"
    assert response.headers["x-credits-charged"] == "1"
    assert response.headers["x-credits-remaining"] == "99"
    image = pixels(response)
    assert image.size == (1024, 1024) and image.mode == "RGBA"
    assert (response.headers["x-image-width"], response.headers["x-image-height"]) == (
        "1024",
        "1024",
    )


async def test_a_cached_variant_is_served_from_cache_and_still_billed(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    paint = fresh_paint()
    first = await get(client, customer, color=paint)
    second = await get(client, customer, color=paint)
    assert second.headers["x-image-source"] == "cache"
    assert second.headers["x-credits-charged"] == "1"
    assert second.headers["x-credits-remaining"] == "98"
    assert second.content == first.content


async def test_image_responses_carry_every_header_of_the_spec(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, size="thumb", format="webp")
    headers = response.headers
    assert headers["content-location"] == (
        "http://testserver/api/v1/images/car?make=toyota&model=camry&year=2020"
        "&view=front-3-4&color=silver&w=256&format=webp"
    )
    assert headers["etag"].startswith('"') and headers["etag"].endswith('"')
    assert headers["cache-control"] == "private, max-age=86400"
    assert headers["ratelimit-limit"] == "120"
    assert int(headers["ratelimit-remaining"]) == 119
    assert 1 <= int(headers["ratelimit-reset"]) <= 60
    assert headers["vary"] == "Accept"
    assert headers["x-request-id"]


async def test_etags_are_stable_per_variant(client: httpx.AsyncClient, customer: Customer) -> None:
    first = await get(client, customer, size="thumb")
    again = await get(client, customer, size="thumb")
    other = await get(client, customer, size="small")
    assert first.headers["etag"] == again.headers["etag"] != other.headers["etag"]


@pytest.mark.parametrize("prefix", ["", "W/"])
async def test_if_none_match_gives_a_free_304_that_counts_against_the_rate_limit(
    client: httpx.AsyncClient, customer: Customer, prefix: str
) -> None:
    first = await get(client, customer, size="thumb")
    response = await client.get(
        IMAGE_URL,
        params={**CAMRY, "size": "thumb"},
        headers={**customer.headers, "If-None-Match": prefix + first.headers["etag"]},
    )
    assert response.status_code == 304 and response.content == b""
    assert response.headers["x-credits-charged"] == "0"
    assert response.headers["etag"] == first.headers["etag"]
    assert int(response.headers["ratelimit-remaining"]) == 118
    after = await get(client, customer, size="thumb")
    assert after.headers["x-credits-remaining"] == "98"


async def test_sizes_fit_inside_and_never_enlarge(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    assert pixels(await get(client, customer, w=300)).size == (300, 300)
    assert pixels(await get(client, customer, size="small")).size == (512, 512)
    assert pixels(await get(client, customer, size="small", w=200)).size == (200, 200)


@pytest.mark.parametrize(
    ("fit", "size"), [("contain", (300, 200)), ("cover", (300, 200)), ("inside", (200, 200))]
)
async def test_fit_with_both_width_and_height(
    client: httpx.AsyncClient, customer: Customer, fit: str, size: tuple[int, int]
) -> None:
    response = await get(client, customer, w=300, h=200, fit=fit)
    assert pixels(response).size == size


async def test_jpeg_is_flattened_on_white_and_jpeg_means_jpg(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, size="thumb", format="jpeg")
    assert response.headers["content-type"] == "image/jpeg"
    assert "format=jpg" in response.headers["content-location"]
    image = pixels(response)
    assert image.mode == "RGB"
    assert image.getpixel((0, 0)) == (255, 255, 255)


async def test_transparent_background_with_jpg_is_400(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, format="jpg", background="transparent")
    assert response.status_code == 400 and response.json()["parameter"] == "background"


async def test_a_hex_background_fills_the_corners(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, size="thumb", bg="#00ff00")
    assert pixels(response).convert("RGBA").getpixel((0, 0)) == (0, 255, 0, 255)


async def test_format_auto_negotiates_webp_from_accept(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(
        IMAGE_URL,
        params={**CAMRY, "size": "thumb", "format": "auto"},
        headers={**customer.headers, "Accept": "image/avif,image/webp,*/*"},
    )
    assert response.headers["content-type"] == "image/webp"
    assert response.headers["vary"] == "Accept"
    plain = await client.get(
        IMAGE_URL,
        params={**CAMRY, "size": "thumb", "format": "auto"},
        headers={**customer.headers, "Accept": "image/png"},
    )
    assert plain.headers["content-type"] == "image/png"


async def test_trim_with_padding_frames_the_vehicle(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    trimmed = pixels(await get(client, customer, view="side", trim="true", padding=0))
    padded = pixels(await get(client, customer, view="side", trim="true", padding=20))
    assert trimmed.width > trimmed.height  # a side view is wider than tall once trimmed
    assert padded.width > trimmed.width


async def test_padding_without_trim_is_400(client: httpx.AsyncClient, customer: Customer) -> None:
    response = await get(client, customer, padding=10)
    assert response.status_code == 400 and response.json()["parameter"] == "padding"


@pytest.mark.parametrize(
    ("value", "echo"), [("1a2b3c", "%231a2b3c"), ("#1A2B3C", "%231a2b3c"), ("#abc", "%23aabbcc")]
)
async def test_hex_colors_are_echoed_as_rrggbb(
    client: httpx.AsyncClient, customer: Customer, value: str, echo: str
) -> None:
    response = await get(client, customer, color=value, size="thumb")
    assert response.status_code == 200
    assert f"color={echo}" in response.headers["content-location"]


@pytest.mark.parametrize(
    ("params", "canonical"),
    [
        ({"angle": "hero"}, "view=front-3-4"),
        ({"view": "profile"}, "view=side"),
        ({"view": "rear34"}, "view=rear-3-4"),
        ({"view": "back"}, "view=rear"),
        ({"view": "side-r"}, "view=side-right"),
        ({"paint": "red"}, "color=red"),
    ],
)
async def test_parameter_and_view_aliases(
    client: httpx.AsyncClient, customer: Customer, params: dict[str, str], canonical: str
) -> None:
    response = await get(client, customer, size="thumb", **params)
    assert response.status_code == 200, response.text
    assert canonical in response.headers["content-location"]


async def test_brand_is_another_spelling_of_make(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(
        IMAGE_URL,
        params={"brand": "Toyota", "model": "Camry", "year": 2020, "size": "thumb"},
        headers=customer.headers,
    )
    assert response.status_code == 200
    assert "make=toyota&model=camry" in response.headers["content-location"]


async def test_a_vehicle_id_names_the_vehicle(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(
        IMAGE_URL,
        params={"vehicle": "veh_4f79b819fda94", "size": "thumb"},
        headers=customer.headers,
    )
    assert response.status_code == 200
    assert "make=toyota&model=camry&year=2020" in response.headers["content-location"]


async def test_a_vehicle_id_with_make_is_400(client: httpx.AsyncClient, customer: Customer) -> None:
    response = await client.get(
        IMAGE_URL,
        params={"vehicle": "veh_4f79b819fda94", "make": "toyota"},
        headers=customer.headers,
    )
    assert response.status_code == 400 and response.json()["parameter"] == "vehicle"


async def test_an_unknown_vehicle_id_is_404_without_suggestions(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(
        IMAGE_URL, params={"vehicle": "veh_0000000000000"}, headers=customer.headers
    )
    assert response.status_code == 404 and "suggestions" not in response.json()


async def test_a_vehicle_miss_is_404_with_five_suggestions(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(
        IMAGE_URL,
        params={"make": "toyota", "model": "camri", "year": 2020},
        headers=customer.headers,
    )
    assert response.status_code == 404
    body = response.json()
    assert 1 <= len(body["suggestions"]) <= 5
    for suggestion in body["suggestions"]:
        assert suggestion["id"].startswith("veh_")
        assert suggestion["image_path"].startswith("/api/v1/images/car?")
        assert suggestion["id"] in body["detail"] and suggestion["image_path"] in body["detail"]


async def test_a_year_outside_the_models_years_is_404(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, year=1995, model="model-3", make="tesla")
    assert response.status_code == 404


async def test_errors_cost_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for params in ({"color": "plaid"}, {"year": 1989}, {"model": "zzz"}, {"view": "top"}):
        response = await get(client, customer, **params)
        assert response.status_code in (400, 404)
    assert await services.ledger.balance(customer.account_id) == 100


@pytest.mark.parametrize(
    "query",
    [
        "make=toyota&model=camry&year=2020&colour=red",
        "make=toyota&model=camry&year=2020&width=20",
    ],
)
async def test_an_unknown_parameter_is_400_naming_what_is_read(
    client: httpx.AsyncClient, customer: Customer, query: str
) -> None:
    response = await client.get(f"{IMAGE_URL}?{query}", headers=customer.headers)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_params" and body["retryable"] is False
    assert {"make", "brand", "vehicle", "w", "h", "fit", "trim", "response"} <= set(body["allowed"])


async def test_tracking_tags_and_cache_busters_are_ignored_and_named(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, size="thumb", utm_source="news", v="3", gclid="x")
    assert response.status_code == 200
    assert response.headers["x-ignored-parameters"] == "gclid, utm_source, v"


@pytest.mark.parametrize(
    "query",
    [
        "make=toyota&make=toyota&model=camry&year=2020",
        "make=toyota&brand=toyota&model=camry&year=2020",
    ],
)
async def test_repeated_parameters_and_make_with_brand_are_400(
    client: httpx.AsyncClient, customer: Customer, query: str
) -> None:
    response = await client.get(f"{IMAGE_URL}?{query}", headers=customer.headers)
    assert response.status_code == 400


@pytest.mark.parametrize(
    ("params", "parameter"),
    [
        ({"w": 2000}, "w"),
        ({"size": "huge"}, "size"),
        ({"color": "plaid"}, "color"),
        ({"fit": "fill"}, "fit"),
    ],
)
async def test_out_of_range_values_are_400(
    client: httpx.AsyncClient, customer: Customer, params: dict[str, object], parameter: str
) -> None:
    response = await get(client, customer, **params)  # type: ignore[arg-type]
    assert response.status_code == 400 and response.json()["parameter"] == parameter


async def test_concurrent_requests_for_one_new_variant_share_one_render(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    calls = 0
    pool = services.render_pool
    original = pool.render

    async def counting(*args: object) -> bytes:
        nonlocal calls
        calls += 1
        return await original(*args)  # type: ignore[arg-type]

    pool.render = counting  # type: ignore[method-assign]
    paint = fresh_paint()
    responses = await asyncio.gather(*(get(client, customer, color=paint) for _ in range(5)))
    assert [r.status_code for r in responses] == [200] * 5
    assert calls == 1
    assert await services.ledger.balance(customer.account_id) == 95


async def test_an_enterprise_key_may_carry_its_own_rate_limit(
    client: httpx.AsyncClient, make_customer: object, services: Services
) -> None:
    enterprise = await make_customer(plan="enterprise")  # type: ignore[operator]
    account = await services.accounts.by_email(enterprise.email)
    key, _ = await services.accounts.create_key(account, rate_limit_per_minute=5000)
    response = await client.get(
        IMAGE_URL, params={**CAMRY, "size": "thumb"}, headers={"Authorization": f"Bearer {key}"}
    )
    assert response.headers["ratelimit-limit"] == "5000"


async def test_only_enterprise_keys_may_carry_their_own_rate_limit(
    customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    with pytest.raises(InvalidParameter):
        await services.accounts.create_key(account, rate_limit_per_minute=5000)


async def test_a_make_longer_than_any_catalog_name_is_400(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await get(client, customer, make="x" * 101)
    assert response.status_code == 400 and response.json()["parameter"] == "make"
