"""The playground: its page, and the per-cookie daily limit of free previews on /images/car.png."""

from __future__ import annotations

import httpx
import pytest

from carimg.domain.clock import FixedClock
from carimg.domain.embed import PLAYGROUND_COOKIE
from carimg.services import Services

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
LIMIT_OF_TWO = pytest.mark.parametrize("overrides", [{"playground_daily_limit": 2}])
EMBED = "/images/car.png"


def preview(width: int) -> str:
    """One variant per width, all derived from one source render (cheap)."""
    return f"{EMBED}?brand=honda&model=civic&year=2019&w={width}"


def with_cookie(services: Services) -> dict[str, str]:
    cookie, _ = services.embed.playground_cookie()
    return {"Cookie": f"{PLAYGROUND_COOKIE}={cookie}"}


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_a_playground_cookie_previews_its_daily_limit_of_new_variants_then_429(
    client: httpx.AsyncClient, services: Services
) -> None:
    headers = with_cookie(services)
    assert (await client.get(preview(64), headers=headers)).status_code == 200
    assert (await client.get(preview(65), headers=headers)).status_code == 200
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
    for width in (64, 65):
        assert (await client.get(preview(width), headers=first)).status_code == 200
    assert (await client.get(preview(66), headers=first)).status_code == 429
    assert (await client.get(preview(66), headers=second)).status_code == 200


@SQLITE_ONLY
@LIMIT_OF_TWO
async def test_the_allowance_resets_at_midnight_utc(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    headers = with_cookie(services)
    for width in (64, 65):
        assert (await client.get(preview(width), headers=headers)).status_code == 200
    refused = await client.get(preview(66), headers=headers)
    assert refused.status_code == 429
    clock.advance(int(refused.headers["retry-after"]))
    assert (await client.get(preview(66), headers=headers)).status_code == 200


@SQLITE_ONLY
async def test_a_playground_cookie_expires_after_a_day(
    client: httpx.AsyncClient, services: Services, clock: FixedClock
) -> None:
    headers = with_cookie(services)
    assert (await client.get(preview(64), headers=headers)).status_code == 200
    clock.advance(86401)
    assert (await client.get(preview(64), headers=headers)).status_code == 401
