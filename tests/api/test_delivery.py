"""GET and HEAD /api/v1/delivery/{token}: what browsers load, with no key.

The spec's Delivery URL states: valid, exhausted (410), expired (403), revoked with the minting key
(403), consumed by a failed first load (502, that URL's credit refunded); a 503 leaves the URL
valid; HEAD neither renders nor uses a load. Unlimited URLs are publicly cacheable, capped ones not.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import secrets
from typing import Any

import httpx
import pytest
from PIL import Image

from carimg.domain.clock import FixedClock
from carimg.domain.errors import Unavailable
from carimg.domain.imagerequest import parse_image_request
from carimg.logs import REDACTED, JsonFormatter
from carimg.services import Services
from tests.api.delivery_helpers import (
    THUMB,
    RenderCalls,
    mint,
    mint_url,
    path_of,
    sqlite_only,
    token_of,
)
from tests.api.images_helpers import fresh_paint
from tests.conftest import Customer

SHOP = "https://shop.example"


@pytest.fixture
def render_calls(services: Services) -> RenderCalls:
    return RenderCalls(services)


def size_of(response: httpx.Response) -> tuple[int, int]:
    with Image.open(io.BytesIO(response.content)) as image:
        return image.size


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    problem: dict[str, Any] = response.json()
    assert problem["status"] == status
    assert problem["request_id"] == response.headers["x-request-id"]
    return problem


# -- loads ----------------------------------------------------------------------------------------


async def test_the_first_load_renders_and_later_loads_come_from_the_cache(
    client: httpx.AsyncClient, customer: Customer, services: Services, render_calls: RenderCalls
) -> None:
    path = await mint_url(client, customer.headers, {**THUMB, "color": fresh_paint()})
    first = await client.get(path)
    second = await client.get(path)
    assert first.status_code == second.status_code == 200
    assert first.headers["x-image-source"] == "generated"
    assert second.headers["x-image-source"] == "cache"
    assert second.content == first.content
    assert second.headers["etag"] == first.headers["etag"]
    assert render_calls.count == 1
    assert await services.ledger.balance(customer.account_id) == 99  # loads are free


async def test_a_load_carries_the_image_headers(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, {**THUMB, "format": "webp"})
    response = await client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/webp"
    etag = response.headers["etag"]
    assert etag.startswith('"') and etag.endswith('"') and len(etag) > 2
    assert response.headers["cache-control"].startswith("public, ")
    assert response.headers["x-image-source"] in ("cache", "generated")
    assert (response.headers["x-image-width"], response.headers["x-image-height"]) == (
        "256",
        "256",
    )
    assert size_of(response) == (256, 256)
    assert response.headers["x-request-id"].startswith("req_")
    echoed = await client.get(path, headers={"X-Request-Id": "page-load.42"})
    assert echoed.headers["x-request-id"] == "page-load.42"


async def test_a_load_needs_no_key_and_ignores_one(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    path = await mint_url(client, customer.headers)
    anonymous = await client.get(path)
    keyed = await client.get(path, headers=customer.headers)
    assert anonymous.status_code == keyed.status_code == 200
    assert await services.ledger.balance(customer.account_id) == 99


@pytest.mark.parametrize("prefix", ["", "W/"])
async def test_if_none_match_gives_a_304_without_a_body(
    client: httpx.AsyncClient, customer: Customer, prefix: str
) -> None:
    path = await mint_url(client, customer.headers)
    first = await client.get(path)
    response = await client.get(path, headers={"If-None-Match": prefix + first.headers["etag"]})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["etag"] == first.headers["etag"]
    assert response.headers["cache-control"] == first.headers["cache-control"]
    stale = await client.get(path, headers={"If-None-Match": '"not-the-etag"'})
    assert stale.status_code == 200 and stale.content == first.content


# -- HEAD -----------------------------------------------------------------------------------------


async def test_head_answers_the_content_type_without_rendering(
    client: httpx.AsyncClient, customer: Customer, services: Services, render_calls: RenderCalls
) -> None:
    image = {**THUMB, "color": fresh_paint(), "format": "webp"}
    path = await mint_url(client, customer.headers, image)
    response = await client.head(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/webp"
    assert response.content == b""
    assert "content-length" not in response.headers  # unknown without rendering; never 0
    assert response.headers["etag"]
    assert render_calls.count == 0
    spec = parse_image_request(services.catalog, image)
    assert await services.images.renderer.is_cold(spec)


async def test_head_uses_no_load_of_a_capped_url(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, max_uses=1)
    for _ in range(3):
        assert (await client.head(path)).status_code == 200
    assert (await client.get(path)).status_code == 200
    assert (await client.get(path)).status_code == 410


# -- invalid URLs: 403 ----------------------------------------------------------------------------


async def test_a_tampered_or_unknown_token_is_403(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers)
    last = path[-1]
    tampered = path[:-1] + ("A" if last != "A" else "B")
    unknown = "/api/v1/delivery/" + secrets.token_urlsafe(32)
    for candidate in (tampered, path[:-1], path + "x", unknown, "/api/v1/delivery/x"):
        assert_problem(await client.get(candidate), 403)
        assert (await client.head(candidate)).status_code == 403
    assert (await client.get(path)).status_code == 200


async def test_an_expired_url_is_403(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    path = await mint_url(client, customer.headers, ttl_seconds=60)
    clock.advance(59)
    assert (await client.get(path)).status_code == 200
    clock.advance(1)  # time reaches expires_at
    problem = assert_problem(await client.get(path), 403)
    assert "expired" in problem["detail"]
    assert (await client.head(path)).status_code == 403


async def test_revoking_the_minting_key_makes_its_urls_403(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    path = await mint_url(client, customer.headers)
    assert (await client.get(path)).status_code == 200
    await services.accounts.revoke_key(customer.key_id)
    problem = assert_problem(await client.get(path), 403)
    assert "revoked" in problem["detail"]
    assert (await client.head(path)).status_code == 403


async def test_revoking_another_key_leaves_urls_working(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    _, other = await services.accounts.create_key(account)
    path = await mint_url(client, customer.headers)
    await services.accounts.revoke_key(other.id)
    assert (await client.get(path)).status_code == 200


# -- capped and unlimited URLs --------------------------------------------------------------------


async def test_a_capped_url_serves_max_uses_loads_then_410(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, max_uses=3)
    loads = [await client.get(path) for _ in range(3)]
    assert [load.status_code for load in loads] == [200] * 3
    problem = assert_problem(await client.get(path), 410)
    assert "max_uses" in problem["detail"]
    assert (await client.get(path)).status_code == 410


async def test_concurrent_loads_of_a_cap_n_url_give_exactly_n_images(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, max_uses=5)
    loads = await asyncio.gather(*(client.get(path) for _ in range(20)))
    statuses = sorted(load.status_code for load in loads)
    assert statuses == [200] * 5 + [410] * 15
    assert all(load.content for load in loads if load.status_code == 200)


async def test_an_unlimited_url_never_answers_410(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, max_uses=0)
    sequential = [await client.get(path) for _ in range(10)]
    concurrent = await asyncio.gather(*(client.get(path) for _ in range(20)))
    assert {load.status_code for load in [*sequential, *concurrent]} == {200}


# -- allowed origins ------------------------------------------------------------------------------


async def test_a_foreign_referer_or_origin_is_403_origin_not_allowed(
    client: httpx.AsyncClient, make_customer: Any
) -> None:
    shop: Customer = await make_customer(origins=(SHOP,))
    path = await mint_url(client, shop.headers)
    for headers in (
        {"Referer": "https://evil.example/page.html"},
        {"Origin": "https://evil.example"},
        {"Referer": "https://shop.example.evil.example/"},
        {"Origin": "http://shop.example"},  # another scheme is another origin
    ):
        problem = assert_problem(await client.get(path, headers=headers), 403)
        assert problem["code"] == "origin_not_allowed", headers
        assert (await client.head(path, headers=headers)).status_code == 403


async def test_a_malformed_referer_or_origin_is_403_not_a_server_error(
    client: httpx.AsyncClient, make_customer: Any
) -> None:
    shop: Customer = await make_customer(origins=(SHOP,))
    path = await mint_url(client, shop.headers)
    for headers in ({"Origin": "http://["}, {"Referer": "https://shop.example]/page"}):
        problem = assert_problem(await client.get(path, headers=headers), 403)
        assert problem["code"] == "origin_not_allowed", headers


async def test_the_listed_origin_and_requests_without_either_header_pass(
    client: httpx.AsyncClient, make_customer: Any
) -> None:
    shop: Customer = await make_customer(origins=(SHOP, "https://blog.example"))
    path = await mint_url(client, shop.headers)
    for headers in (
        {"Referer": "https://shop.example/products/42?ref=home"},
        {"Origin": SHOP},
        {"Referer": "https://blog.example/"},
        {},
    ):
        assert (await client.get(path, headers=headers)).status_code == 200, headers


@pytest.fixture
async def shop_url(client: httpx.AsyncClient, make_customer: Any) -> str:
    """A delivery URL minted by a key whose one allowed origin is SHOP."""
    shop: Customer = await make_customer(origins=(SHOP,))
    return await mint_url(client, shop.headers)


@pytest.mark.parametrize("fetch_site", ["cross-site", "same-site", "Cross-Site"])
async def test_another_sites_page_that_names_no_origin_is_403_origin_not_allowed(
    client: httpx.AsyncClient, shop_url: str, fetch_site: str
) -> None:
    """`referrerpolicy="no-referrer"` on another site's page: the browser still says where the
    request comes from (Fetch Metadata), and that is not a listed site."""
    headers = {"Sec-Fetch-Site": fetch_site}
    problem = assert_problem(await client.get(shop_url, headers=headers), 403)
    assert problem["code"] == "origin_not_allowed"
    assert "names no site" in problem["detail"]
    assert (await client.head(shop_url, headers=headers)).status_code == 403


async def test_a_listed_page_passes_whatever_sec_fetch_site_says(
    client: httpx.AsyncClient, shop_url: str
) -> None:
    for fetch_site in ("cross-site", "same-site"):
        headers = {"Referer": f"{SHOP}/products/42", "Sec-Fetch-Site": fetch_site}
        assert (await client.get(shop_url, headers=headers)).status_code == 200, headers


async def test_a_load_opened_directly_or_by_our_own_pages_passes_without_a_referer(
    client: httpx.AsyncClient, shop_url: str
) -> None:
    for fetch_site in ("none", "same-origin"):
        headers = {"Sec-Fetch-Site": fetch_site}
        assert (await client.get(shop_url, headers=headers)).status_code == 200, headers


@pytest.mark.parametrize("overrides", [{"delivery_origin_sec_fetch": False}])
async def test_with_sec_fetch_checks_off_a_page_that_names_no_origin_passes(
    client: httpx.AsyncClient, shop_url: str
) -> None:
    response = await client.get(shop_url, headers={"Sec-Fetch-Site": "cross-site"})
    assert response.status_code == 200


async def test_a_key_without_origins_serves_any_site(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers)
    response = await client.get(path, headers={"Referer": "https://anywhere.example/"})
    assert response.status_code == 200


# -- failures: 502 consumes and refunds, 503 does not ---------------------------------------------


async def test_a_failed_first_load_is_502_consumes_the_url_and_refunds_its_credit(
    client: httpx.AsyncClient, customer: Customer, services: Services, render_calls: RenderCalls
) -> None:
    response = await mint(client, customer.headers, {**THUMB, "color": fresh_paint()}, THUMB)
    failing, healthy = (path_of(url["url"]) for url in response.json()["data"])
    failing_id = response.json()["data"][0]["id"]
    assert await services.ledger.balance(customer.account_id) == 98
    render_calls.fail_with = RuntimeError("renderer crashed")
    problem = assert_problem(await client.get(failing), 502)
    assert "code" not in problem
    assert await services.ledger.balance(customer.account_id) == 99
    refunds = [e for e in await services.ledger.entries(customer.account_id) if e.kind == "refund"]
    assert [(e.amount, e.reference) for e in refunds] == [(1, f"refund:url:{failing_id}")]
    render_calls.fail_with = None
    calls = render_calls.count
    assert_problem(await client.get(failing), 502)  # consumed: mint a new URL
    assert render_calls.count == calls
    assert await services.ledger.balance(customer.account_id) == 99  # refunded once only
    assert (await client.get(healthy)).status_code == 200


async def test_a_503_leaves_a_capped_urls_use_uncounted(
    client: httpx.AsyncClient, customer: Customer, services: Services, render_calls: RenderCalls
) -> None:
    path = await mint_url(client, customer.headers, {**THUMB, "color": fresh_paint()}, max_uses=1)
    render_calls.fail_with = Unavailable("The renderer is overloaded.")
    for _ in range(2):
        assert_problem(await client.get(path), 503)
    render_calls.fail_with = None
    served = await client.get(path)
    assert served.status_code == 200 and served.headers["x-image-source"] == "generated"
    assert (await client.get(path)).status_code == 410
    assert await services.ledger.balance(customer.account_id) == 99  # nothing refunded


# -- Cache-Control --------------------------------------------------------------------------------


@sqlite_only
async def test_variant_a_caches_unlimited_urls_publicly_for_their_remaining_life(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    path = await mint_url(client, customer.headers, ttl_seconds=3600)
    clock.advance(100)
    response = await client.get(path)
    assert response.headers["cache-control"] == (
        "public, max-age=3500, s-maxage=3500, stale-while-revalidate=60"
    )


@sqlite_only
@pytest.mark.parametrize("overrides", [{"pricing_variant": "B"}], ids=["variant-B"])
async def test_variant_b_caches_unlimited_urls_publicly_up_to_300_and_3600_seconds(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    path = await mint_url(client, customer.headers, ttl_seconds=7200)
    response = await client.get(path)
    assert response.headers["cache-control"] == (
        "public, max-age=300, s-maxage=3600, must-revalidate"
    )
    clock.advance(7200 - 120)
    ending = await client.get(path)
    assert ending.headers["cache-control"] == "public, max-age=120, s-maxage=120, must-revalidate"


@sqlite_only
@pytest.mark.parametrize(
    "overrides", [{"pricing_variant": "A"}, {"pricing_variant": "B"}], ids=["A", "B"]
)
async def test_capped_urls_are_private_and_never_stored(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    path = await mint_url(client, customer.headers, max_uses=10)
    response = await client.get(path)
    assert response.headers["cache-control"] == "private, no-store"
    not_modified = await client.get(path, headers={"If-None-Match": response.headers["etag"]})
    assert not_modified.headers["cache-control"] == "private, no-store"


# -- the access log -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "near_miss", ["/api/v1/delivery//", "/api/v1/Delivery/", "/api/v1//delivery/"]
)
async def test_the_access_log_shows_no_valid_token_on_a_near_miss_path(
    client: httpx.AsyncClient, customer: Customer, caplog: pytest.LogCaptureFixture, near_miss: str
) -> None:
    token = token_of(await mint_url(client, customer.headers))
    with caplog.at_level(logging.INFO, logger="carimg.access"):
        await client.get(near_miss + token)
    line = JsonFormatter().format([r for r in caplog.records if r.name == "carimg.access"][-1])
    assert token not in line
    assert json.loads(line)["path"] == near_miss + REDACTED
