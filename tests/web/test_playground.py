"""The playground: its page, and the per-cookie daily limit of free previews on /images/car.png."""

from __future__ import annotations

import re

import httpx
import pytest

from carimg.domain.clock import FixedClock
from carimg.domain.embed import PLAYGROUND_COOKIE
from carimg.services import Services
from tests.web.helpers import sign_up

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
LIMIT_OF_TWO = pytest.mark.parametrize("overrides", [{"playground_daily_limit": 2}])
EMBED = "/images/car.png"


def preview(width: int) -> str:
    """One variant per width, all derived from one source render (cheap)."""
    return f"{EMBED}?brand=honda&model=civic&year=2019&w={width}"


def with_cookie(services: Services) -> dict[str, str]:
    cookie, _ = services.embed.playground_cookie()
    return {"Cookie": f"{PLAYGROUND_COOKIE}={cookie}"}


async def spend_allowance_of_two(client: httpx.AsyncClient, headers: dict[str, str]) -> None:
    for width in (64, 65):
        assert (await client.get(preview(width), headers=headers)).status_code == 200


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_a_playground_cookie_previews_its_daily_limit_of_new_variants_then_429(
    client: httpx.AsyncClient, services: Services
) -> None:
    headers = with_cookie(services)
    await spend_allowance_of_two(client, headers)
    refused = await client.get(preview(66), headers=headers)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    problem = refused.json()
    assert problem["code"] == "playground_daily_limit"
    assert problem["limit"] == 2
    assert problem["reset_at"].endswith("T00:00:00Z")
    assert 0 < int(refused.headers["retry-after"]) <= 86400


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_reloading_a_previewed_variant_does_not_count_again(
    client: httpx.AsyncClient, services: Services
) -> None:
    headers = with_cookie(services)
    for _ in range(3):
        assert (await client.get(preview(64), headers=headers)).status_code == 200
    assert (await client.get(preview(65), headers=headers)).status_code == 200
    assert (await client.get(preview(64), headers=headers)).status_code == 200


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_each_playground_cookie_has_its_own_allowance(
    client: httpx.AsyncClient, services: Services
) -> None:
    first, second = with_cookie(services), with_cookie(services)
    await spend_allowance_of_two(client, first)
    assert (await client.get(preview(66), headers=first)).status_code == 429
    assert (await client.get(preview(66), headers=second)).status_code == 200


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_the_allowance_resets_at_midnight_utc(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    headers = with_cookie(services)
    await spend_allowance_of_two(client, headers)
    refused = await client.get(preview(66), headers=headers)
    assert refused.status_code == 429
    clock.advance(int(refused.headers["retry-after"]))
    assert (await client.get(preview(66), headers=headers)).status_code == 200


@SQLITE_ONLY
@pytest.mark.parametrize(
    "overrides",
    [{"playground_daily_limit": 2, "password_hash_memory_kib": 64, "password_hash_iterations": 1}],
)
async def test_a_signed_in_person_previews_past_the_playground_limit(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    await client.get("/playground")
    await spend_allowance_of_two(client, {})
    assert (await client.get(preview(66))).status_code == 200  # the session grant comes first


@SQLITE_ONLY
async def test_a_playground_cookie_expires_after_a_day(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    headers = with_cookie(services)
    assert (await client.get(preview(64), headers=headers)).status_code == 200
    clock.advance(86401)
    assert (await client.get(preview(64), headers=headers)).status_code == 401


@SQLITE_ONLY
async def test_the_playground_page_sets_a_playground_cookie_that_pays_for_previews(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/playground")
    assert page.status_code == 200
    set_cookie = page.headers["set-cookie"]
    assert set_cookie.startswith(f"{PLAYGROUND_COOKIE}=")
    assert "HttpOnly" in set_cookie and "Path=/;" in set_cookie
    assert "samesite=lax" in set_cookie.lower()
    image = await client.get(preview(64))
    assert image.status_code == 200
    assert image.headers["x-credits-charged"] == "0"


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_revisiting_the_playground_keeps_the_days_count(client: httpx.AsyncClient) -> None:
    await client.get("/playground")
    await spend_allowance_of_two(client, {})
    await client.get("/playground")  # renews the cookie's expiry, not its allowance
    assert (await client.get(preview(66))).status_code == 429


@SQLITE_ONLY
async def test_the_playground_offers_every_view_paint_size_and_format(
    client: httpx.AsyncClient,
) -> None:
    html = (await client.get("/playground")).text
    options = await client.get("/api/v1/images/options")
    data = options.json()["data"]
    for view in data["views"]:
        assert f'<option value="{view["id"]}"' in html
    for color in data["colors"]:
        assert f'id="paint-{color["name"]}" value="{color["name"]}"' in html
        assert f'data-hex="{color["hex"]}"' in html
    for name in data["sizes"]["presets"]:
        assert f'<option value="{name}"' in html
    for image_format in data["formats"]:
        assert f'<option value="{image_format["id"]}"' in html
    assert 'type="color"' in html


@SQLITE_ONLY
async def test_every_playground_control_has_a_label(client: httpx.AsyncClient) -> None:
    html = (await client.get("/playground")).text
    ids = re.findall(r"<(?:input|select)\b[^>]*\bid=\"([^\"]+)\"", html)
    assert len(ids) > 20
    for control in ids:
        assert f'<label for="{control}"' in html, control


@SQLITE_ONLY
async def test_the_playground_starts_from_the_vehicle_in_the_address(
    client: httpx.AsyncClient,
) -> None:
    html = (await client.get("/playground?make=honda&model=civic&year=2019")).text
    assert 'data-make="honda" data-model="civic"' in html
    assert '<option value="2019" selected>' in html


@SQLITE_ONLY
async def test_an_unknown_vehicle_in_the_address_falls_back_to_an_example(
    client: httpx.AsyncClient,
) -> None:
    html = (await client.get("/playground?make=nope&model=nothing&year=2019")).text
    assert 'data-make="toyota" data-model="camry"' in html


@SQLITE_ONLY
@pytest.mark.parametrize(
    "overrides", [{"playground_daily_limit": 2, "preview_address_daily_limit": 3}]
)
async def test_new_cookies_from_one_address_share_its_daily_limit(
    client: httpx.AsyncClient, services: Services
) -> None:
    await spend_allowance_of_two(client, with_cookie(services))
    fresh = with_cookie(services)  # a dropped cookie and a new one: the address's count goes on
    assert (await client.get(preview(66), headers=fresh)).status_code == 200
    refused = await client.get(preview(67), headers=fresh)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    problem = refused.json()
    assert (problem["code"], problem["scope"], problem["limit"]) == (
        "playground_daily_limit",
        "address",
        3,
    )


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"playground_cookies_per_minute": 2}])
async def test_an_address_is_given_a_limited_number_of_new_playground_cookies_a_minute(
    client: httpx.AsyncClient,
) -> None:
    for _ in range(2):
        client.cookies.clear()
        assert (await client.get("/playground")).status_code == 200
    client.cookies.clear()
    refused = await client.get("/playground")
    assert refused.status_code == 429
    assert 0 < int(refused.headers["retry-after"]) <= 60
    assert PLAYGROUND_COOKIE not in refused.headers.get("set-cookie", "")


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"playground_cookies_per_minute": 1}])
async def test_revisits_with_a_valid_playground_cookie_are_not_new_cookies(
    client: httpx.AsyncClient,
) -> None:
    for _ in range(3):
        page = await client.get("/playground")
        assert page.status_code == 200
        assert page.headers["set-cookie"].startswith(f"{PLAYGROUND_COOKIE}=")


SIGNED_IN_CHEAPLY = {"password_hash_memory_kib": 64, "password_hash_iterations": 1}


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"session_daily_limit": 2, **SIGNED_IN_CHEAPLY}])
async def test_a_signed_in_session_previews_its_daily_limit_of_new_variants_then_429(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    await spend_allowance_of_two(client, {})
    refused = await client.get(preview(66))
    assert refused.status_code == 429
    problem = refused.json()
    assert (problem["code"], problem["scope"], problem["limit"]) == (
        "session_daily_limit",
        "account",
        2,
    )
    assert (await client.get(preview(64))).status_code == 200  # a variant it previewed: free


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"preview_address_daily_limit": 2, **SIGNED_IN_CHEAPLY}])
async def test_signed_in_previews_count_against_the_address_daily_limit(
    client: httpx.AsyncClient, services: Services
) -> None:
    await spend_allowance_of_two(client, with_cookie(services))
    await sign_up(client)  # a new account from the same address
    refused = await client.get(preview(66))
    assert refused.status_code == 429
    assert refused.json()["scope"] == "address"
