"""Request heads over their limits are refused before any route runs, as problem documents:
431 for a header over its own limit, for headers over the total, for too many headers; 414 for
a request target over its limit. The hot routes (paid images, delivery loads) are no way around
them. (Under the server granian refuses longer heads before they end, and slow heads:
tests/e2e/test_request_heads.py.)"""

from __future__ import annotations

import httpx
import pytest

from carimg.domain.etags import etag_matches
from carimg.domain.limits import (
    MAX_HEADER_BYTES,
    MAX_HEADER_FIELD_BYTES,
    MAX_HEADERS,
    MAX_REQUEST_TARGET_BYTES,
)

SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
HEALTH = "/api/health"


def assert_problem(response: httpx.Response, status: int) -> None:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status
    assert problem["type"] == f"http://testserver/docs/errors#{status}"
    assert problem["request_id"] == response.headers["x-request-id"]


@SQLITE
async def test_a_header_over_its_own_limit_is_431(client: httpx.AsyncClient) -> None:
    response = await client.get(HEALTH, headers={"X-Big": "x" * MAX_HEADER_FIELD_BYTES})
    assert_problem(response, 431)
    assert "x-big" in response.json()["detail"]


@SQLITE
async def test_headers_over_the_total_limit_together_are_431(client: httpx.AsyncClient) -> None:
    each = MAX_HEADER_FIELD_BYTES - 100
    headers = {f"X-Part-{n}": "x" * each for n in range(MAX_HEADER_BYTES // each + 1)}
    assert_problem(await client.get(HEALTH, headers=headers), 431)


@SQLITE
async def test_more_headers_than_the_limit_are_431(client: httpx.AsyncClient) -> None:
    headers = {f"X-Header-{n}": "1" for n in range(MAX_HEADERS + 1)}
    assert_problem(await client.get(HEALTH, headers=headers), 431)


@SQLITE
async def test_a_request_target_over_its_limit_is_414(client: httpx.AsyncClient) -> None:
    response = await client.get(f"/api/v1/vehicles?q={'x' * MAX_REQUEST_TARGET_BYTES}")
    assert_problem(response, 414)


@SQLITE
async def test_the_paid_image_route_refuses_a_header_over_its_limit(
    client: httpx.AsyncClient,
) -> None:
    big = {"Authorization": "Bearer cimg_" + "x" * MAX_HEADER_FIELD_BYTES}
    response = await client.get("/api/v1/images/car?make=toyota&model=camry&year=2020", headers=big)
    assert_problem(response, 431)


def test_an_if_none_match_longer_than_its_bound_is_not_parsed() -> None:
    """The work per request is bounded: a longer list is compared as if absent (the servers
    refuse such a header before it gets here)."""
    etag = '"abc"'
    assert etag_matches('"x", ' * 10 + etag, etag)
    assert not etag_matches('"x", ' * (MAX_HEADER_FIELD_BYTES // 5) + etag, etag)
