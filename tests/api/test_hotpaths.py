"""The hot paths (api/hotpaths.py): the paid image and delivery routes served in front of the
framework answer exactly as the framework's routes do, and leave everything unusual to it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.datastructures import Headers

from carimg.api.hotpaths import HotPaths, _IndexedHeaders, _PlainQueries, plain_image_query
from carimg.domain.clock import FixedClock
from carimg.services import Services
from carimg.store.accounts import AccountStore
from carimg.store.db import Database
from carimg.store.feedback import FeedbackStore
from carimg.store.inline import OTHER_PROCESSES_SECONDS
from carimg.store.render_cache import RenderCache
from tests.api.delivery_helpers import THUMB, mint_url
from tests.api.images_helpers import CAMRY, IMAGE_URL
from tests.conftest import Customer

NewCustomer = Callable[..., Awaitable[Customer]]
ALLOWED = frozenset({"make", "model", "year", "w", "h", "padding", "response", "format"})
# Values that legitimately differ between two requests made one after the other.
MOVING = {"x-credits-remaining", "ratelimit-remaining", "ratelimit-reset", "date"}


def hot_paths(app: FastAPI) -> HotPaths:
    hot = getattr(app, "_hot", None)
    assert isinstance(hot, HotPaths), "the app serves a request before this is built"
    return hot


@pytest.fixture
async def framework(app: FastAPI, client: httpx.AsyncClient) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the framework alone: what the app would answer without the hot paths."""
    await client.get("/api/health")
    transport = httpx.ASGITransport(app=hot_paths(app).app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as own:
        yield own


def comparable(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = sorted(
        (name, "…" if name in MOVING else value) for name, value in response.headers.items()
    )
    return response.status_code, headers, response.content


async def answered_alike(
    hot: httpx.AsyncClient, framework: httpx.AsyncClient, method: str, url: str, **kwargs: Any
) -> tuple[int, list[tuple[str, str]], bytes]:
    """The same request both ways (same X-Request-Id): identical status, headers and body."""
    headers = {"X-Request-Id": "req-compare", **kwargs.pop("headers", {})}
    first = await hot.request(method, url, headers=headers, **kwargs)
    second = await framework.request(method, url, headers=headers, **kwargs)
    assert comparable(first) == comparable(second)
    return comparable(first)


# -- which requests take the hot path ----------------------------------------------------------


def test_a_plain_image_query_is_read_with_its_numbers() -> None:
    query = plain_image_query(b"make=toyota&model=camry&year=2020&w=300", ALLOWED)
    assert query == {"make": "toyota", "model": "camry", "year": 2020, "w": 300}


def test_a_percent_encoded_plain_query_is_decoded() -> None:
    assert plain_image_query(b"make=land%20rover&model=range+rover", ALLOWED) == {
        "make": "land rover",
        "model": "range rover",
    }


@pytest.mark.parametrize(
    "query",
    [
        b"make=toyota&colour=red",  # unknown: the framework's 400 names the allowed ones
        b"make=toyota&utm_source=mail",  # a tracking tag: X-Ignored-Parameters
        b"make=toyota&key=cimg_x",  # a key in the query string: its own 401
        b"make=toyota&make=honda",  # repeated
        b"make=toyota&response=url",  # a URL response mints (a write of its own)
        b"make=toyota&model=",  # an empty value
        b"make=toyota&year=twenty",  # not a number
        b"make=toyota&year=%EF%BC%92%EF%BC%90%EF%BC%92%EF%BC%90",  # not ASCII digits
        b"make=toyota&w=0",  # out of bounds
        b"make=toyota&padding=51",
    ],
)
def test_anything_unusual_is_left_to_the_framework(query: bytes) -> None:
    assert plain_image_query(query, ALLOWED) is None


def test_indexed_headers_read_as_starlette_reads_them() -> None:
    raw = [(b"accept", b"image/webp"), (b"x-request-id", b"abc"), (b"accept", b"*/*")]
    scope = {"type": "http", "headers": raw}
    indexed, plain = _IndexedHeaders(scope), Headers(scope=scope)
    for name in ("Accept", "accept", "X-Request-Id", "origin"):
        assert indexed.get(name) == plain.get(name)
        assert (name in indexed) == (name in plain)
    assert indexed["ACCEPT"] == "image/webp", "the first of repeated headers"
    assert indexed.get("origin", "none") == "none"
    with pytest.raises(KeyError):
        indexed["origin"]


def test_a_query_string_is_parsed_once_and_answered_alike_after() -> None:
    queries = _PlainQueries(ALLOWED)
    first = queries(b"make=toyota&model=camry&year=2020")
    assert queries(b"make=toyota&model=camry&year=2020") is first
    assert queries(b"make=toyota&colour=red") is None
    assert queries(b"make=toyota&colour=red") is None


def test_remembered_queries_are_bounded() -> None:
    queries = _PlainQueries(ALLOWED, limit=3)
    for year in range(2000, 2010):
        assert queries(f"make=toyota&year={year}".encode()) == {"make": "toyota", "year": year}
    assert len(queries._parsed) <= 3


async def test_plain_image_and_delivery_requests_never_reach_the_framework(
    app: FastAPI, client: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    hot = hot_paths(app)

    async def refuse(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError(f"{scope['path']} reached the framework")

    hot.app = refuse
    assert (await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)).status_code == 200
    assert (await client.get(url)).status_code == 200
    assert (await client.head(url)).status_code == 200


async def test_an_unusual_image_request_goes_to_the_framework_before_anything_is_counted(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    params = {**CAMRY, "utm_source": "mail"}
    response = await client.get(IMAGE_URL, params=params, headers=customer.headers)
    assert response.status_code == 200
    assert response.headers["x-ignored-parameters"] == "utm_source"
    assert response.headers["ratelimit-remaining"] == str(
        int(response.headers["ratelimit-limit"]) - 1
    )
    assert response.headers["x-credits-remaining"] == "99"


# -- the same answers as the framework ---------------------------------------------------------


async def test_paid_images_are_answered_as_the_framework_answers(
    client: httpx.AsyncClient, framework: httpx.AsyncClient, customer: Customer
) -> None:
    await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)  # rendered, if new
    status, headers, body = await answered_alike(
        client, framework, "GET", IMAGE_URL, params=CAMRY, headers=customer.headers
    )
    assert status == 200 and body
    etag = dict(headers)["etag"]
    status, _, _ = await answered_alike(
        client, framework, "GET", IMAGE_URL, params=CAMRY,
        headers={**customer.headers, "If-None-Match": etag},
    )  # fmt: skip
    assert status == 304


@pytest.mark.parametrize(
    ("params", "status"),
    [
        ({**CAMRY, "color": "plaid"}, 400),  # a domain error, after authentication
        ({**CAMRY, "brand": "toyota"}, 400),  # make and brand
        ({"make": "toyota", "model": "camrry", "year": "2020"}, 404),  # with suggestions
        ({**CAMRY, "format": "jpg", "background": "transparent"}, 400),
    ],
)
async def test_image_errors_are_the_framework_s_problem_documents(
    client: httpx.AsyncClient,
    framework: httpx.AsyncClient,
    customer: Customer,
    params: dict[str, str],
    status: int,
) -> None:
    answered = await answered_alike(
        client, framework, "GET", IMAGE_URL, params=params, headers=customer.headers
    )
    assert answered[0] == status
    assert ("content-type", "application/problem+json") in answered[1]


async def test_authentication_failures_are_answered_as_the_framework_answers(
    client: httpx.AsyncClient,
    framework: httpx.AsyncClient,
    make_customer: NewCustomer,
    services: Services,
) -> None:
    missing = await answered_alike(client, framework, "GET", IMAGE_URL, params=CAMRY)
    assert missing[0] == 401
    invalid = {"Authorization": "Bearer cimg_" + "x" * 43}
    assert (
        await answered_alike(client, framework, "GET", IMAGE_URL, params=CAMRY, headers=invalid)
    )[0] == 401
    unscoped = await make_customer(scopes=("account:read",))
    answered = await answered_alike(
        client, framework, "GET", IMAGE_URL, params=CAMRY, headers=unscoped.headers
    )
    assert answered[0] == 403
    broke = await make_customer(credits=0)
    answered = await answered_alike(
        client, framework, "GET", IMAGE_URL, params=CAMRY, headers=broke.headers
    )
    assert answered[0] == 402


async def test_deliveries_are_answered_as_the_framework_answers(
    client: httpx.AsyncClient, framework: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    await client.get(url)  # the first load may render (X-Image-Source: generated)
    status, headers, _ = await answered_alike(client, framework, "GET", url)
    assert status == 200
    assert (await answered_alike(client, framework, "HEAD", url))[0] == 200
    etag = {"If-None-Match": dict(headers)["etag"]}
    assert (await answered_alike(client, framework, "GET", url, headers=etag))[0] == 304
    unknown = url[: -len("abcd")] + "abcd"
    assert (await answered_alike(client, framework, "GET", unknown))[0] == 403


async def test_a_used_up_capped_url_is_410_both_ways(
    client: httpx.AsyncClient, framework: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers, max_uses=1)
    assert (await client.get(url)).status_code == 200
    assert (await answered_alike(client, framework, "GET", url))[0] == 410


async def test_a_revoked_key_s_url_is_refused_at_once(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    url = await mint_url(client, customer.headers)
    for _ in range(3):  # cached as a valid, delivered row, then answered (and kept) at once
        assert (await client.get(url)).status_code == 200
    await AccountStore(services.db).revoke_key(customer.key_id, services.clock.now())
    assert (await client.get(url)).status_code == 403
    refused = await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    assert refused.status_code == 401


# -- delivery loads answered at once -----------------------------------------------------------


def answers_at_once(app: FastAPI, path: str, headers: dict[str, str] | None = None) -> bool:
    """Whether the hot paths answer this GET without waiting (from what is in memory)."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
    }
    if hot_paths(app).delivered_now(scope) is not None:
        return True
    answer = hot_paths(app).answer(scope, _no_body)
    assert answer is not None  # the hot path's, all the same
    answer.close()  # a coroutine never started
    return False


@pytest.fixture
def rows_in_memory(settings: Any) -> bool:
    """Whether delivery rows are kept in memory (SQLite's exact read cache; not PostgreSQL)."""
    return str(settings.resolved_database_url).startswith("sqlite")


async def _no_body() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


async def test_a_delivered_unlimited_url_is_answered_at_once_as_the_framework_answers(
    app: FastAPI,
    client: httpx.AsyncClient,
    framework: httpx.AsyncClient,
    customer: Customer,
    rows_in_memory: bool,
) -> None:
    url = await mint_url(client, customer.headers)
    assert not answers_at_once(app, url)  # not yet delivered: the first load renders or reads
    assert (await client.get(url)).status_code == 200  # marks it delivered
    assert not answers_at_once(app, url)  # that write changed the row: read again
    assert (await client.get(url)).status_code == 200
    assert answers_at_once(app, url) == rows_in_memory
    status, headers, body = await answered_alike(client, framework, "GET", url)
    assert status == 200 and dict(headers)["x-image-source"] == "cache" and body


@pytest.mark.parametrize(
    ("options", "headers"),
    [
        ({"max_uses": 5}, {}),  # each load counts
        ({"renew": True}, {}),  # a window may need paying for
        ({}, {"If-None-Match": "*"}),  # a 304, not the image
    ],
    ids=["capped", "renewing", "conditional"],
)
async def test_loads_that_count_pay_or_compare_take_the_full_path(
    app: FastAPI,
    client: httpx.AsyncClient,
    customer: Customer,
    options: dict[str, Any],
    headers: dict[str, str],
) -> None:
    url = await mint_url(client, customer.headers, **options)
    for _ in range(2):  # delivered, then its row cached
        assert (await client.get(url)).status_code == 200
    assert not answers_at_once(app, url, headers)


async def test_a_url_whose_key_lists_origins_is_checked_on_every_load(
    app: FastAPI, client: httpx.AsyncClient, make_customer: NewCustomer
) -> None:
    restricted = await make_customer(origins=("https://shop.example",))
    url = await mint_url(client, restricted.headers)
    page = {"Referer": "https://shop.example/cars"}
    for _ in range(2):  # delivered, then its row cached
        assert (await client.get(url, headers=page)).status_code == 200
    assert not answers_at_once(app, url, page)
    elsewhere = await client.get(url, headers={"Referer": "https://other.example/"})
    assert elsewhere.status_code == 403


async def test_a_revoked_key_s_cached_url_stays_refused(
    app: FastAPI, client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    """A refused load caches the row it read too: the next load must still refuse it."""
    url = await mint_url(client, customer.headers)
    for _ in range(2):
        assert (await client.get(url)).status_code == 200
    await AccountStore(services.db).revoke_key(customer.key_id, services.clock.now())
    for _ in range(2):
        assert (await client.get(url)).status_code == 403
    assert not answers_at_once(app, url)


async def test_a_load_answered_at_once_echoes_the_first_request_id_sent(
    client: httpx.AsyncClient, framework: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    for _ in range(2):
        await client.get(url)
    twice = [("X-Request-Id", "req-first"), ("X-Request-Id", "req-second")]
    answers = [await c.get(url, headers=twice) for c in (client, framework)]
    assert [a.headers["x-request-id"] for a in answers] == ["req-first", "req-first"]


async def test_a_url_answered_at_once_still_expires_on_time(
    app: FastAPI,
    client: httpx.AsyncClient,
    customer: Customer,
    clock: FixedClock,
    rows_in_memory: bool,
) -> None:
    url = await mint_url(client, customer.headers, ttl_seconds=60)
    for _ in range(2):
        assert (await client.get(url)).status_code == 200
    clock.advance(59)
    assert answers_at_once(app, url) == rows_in_memory
    assert (await client.get(url)).headers["cache-control"].startswith("public, max-age=1,")
    clock.advance(0.5)  # its last half second: no whole second left, answered (and kept)
    assert (await client.get(url)).headers["cache-control"].startswith("public, max-age=0,")
    clock.advance(0.5)  # time reaches expires_at
    assert not answers_at_once(app, url)
    assert (await client.get(url)).status_code == 403


async def test_a_kept_answer_follows_the_clock_second_by_second(
    client: httpx.AsyncClient, customer: Customer, clock: FixedClock
) -> None:
    """max-age is the whole seconds left: a kept answer must not outlive its second."""
    url = await mint_url(client, customer.headers, ttl_seconds=60)
    for _ in range(2):  # delivered, then its row cached: the next loads are kept answers
        assert (await client.get(url)).status_code == 200
    ages = []
    for step in (0, 0, 0.4, 0.6, 0.5):
        clock.advance(step)
        ages.append((await client.get(url)).headers["cache-control"].split(", ")[1])
    assert ages == ["max-age=60", "max-age=60", "max-age=59", "max-age=59", "max-age=58"]


async def test_kept_answers_carry_only_their_own_request_id(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    for _ in range(2):
        await client.get(url)
    ids = [(await client.get(url)).headers.get_list("x-request-id") for _ in range(3)]
    assert all(len(one) == 1 for one in ids)
    assert len({one[0] for one in ids}) == 3


@pytest.mark.parametrize(
    ("owner", "lookup"),
    [
        # another process may have flagged the render: the kept answer must not hide that
        (FeedbackStore, "variation_now"),
        # each kept answer is a use of its image there (least recently used goes first); once
        # the image is gone from memory the load takes the full path, which reads it back
        (RenderCache, "peek_derived"),
    ],
    ids=["variations-due-for-a-refresh", "image-let-go-by-the-cache"],
)
async def test_a_kept_answer_ends_when_what_it_rests_on_is_not_in_memory(
    app: FastAPI,
    client: httpx.AsyncClient,
    customer: Customer,
    rows_in_memory: bool,
    monkeypatch: pytest.MonkeyPatch,
    owner: type,
    lookup: str,
) -> None:
    url = await mint_url(client, customer.headers)
    for _ in range(3):
        assert (await client.get(url)).status_code == 200
    assert answers_at_once(app, url) == rows_in_memory
    monkeypatch.setattr(owner, lookup, lambda self, key: None)
    assert not answers_at_once(app, url)


@pytest.mark.parametrize("overrides", [{"feedback_flag_threshold": 1}], ids=["threshold-1"])
async def test_a_flagged_render_is_not_served_from_a_kept_answer(
    app: FastAPI, client: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    for _ in range(3):  # the third is a kept answer where rows are cached
        before = await client.get(url)
    # only a report by the request that delivered the render to its account counts
    received = {**customer.headers, "X-Request-Id": "req-received-1"}
    assert (await client.get(IMAGE_URL, params=THUMB, headers=received)).status_code == 200
    report = {"request_id": "req-received-1", "verdict": "bad"}
    flagged = await client.post("/api/v1/feedback", json=report, headers=customer.headers)
    assert flagged.json()["data"]["flagged"] is True
    assert not answers_at_once(app, url)  # the new variation is not in memory yet
    after = await client.get(url)
    assert after.status_code == 200
    assert after.headers["etag"] != before.headers["etag"]


# -- what the middlewares add ------------------------------------------------------------------


async def test_hot_responses_carry_a_request_id(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    echoed = await client.get(
        IMAGE_URL, params=CAMRY, headers={**customer.headers, "X-Request-Id": "req-mine"}
    )
    assert echoed.headers["x-request-id"] == "req-mine"
    made = await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    assert made.headers["x-request-id"].startswith("req_")


async def test_hot_requests_are_counted_under_their_route_template(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    url = await mint_url(client, customer.headers)
    await client.get(url)
    await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    text = (await client.get("/metrics")).text
    assert (
        'carimg_http_requests_total{method="GET",route="/api/v1/delivery/{token}",status="200"}'
        in text
    )
    assert (
        'carimg_http_requests_total{method="GET",route="/api/v1/images/car",status="200"}' in text
    )


@pytest.fixture
def inline_clock_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    """No time passes for the inline SQLite connection: another process's commit is seen only
    where `PRAGMA data_version` is read regardless of OTHER_PROCESSES_SECONDS."""
    monkeypatch.setattr("carimg.store.inline.time", SimpleNamespace(monotonic=lambda: 1_000.0))


async def _in_another_process(
    settings: Any, change: Callable[[AccountStore], Awaitable[Any]]
) -> Any:
    """A change through a second database handle, as `carimg admin` in another process (or
    another worker) would make it."""
    other = Database.open(settings.resolved_database_url)
    try:
        return await change(AccountStore(other))
    finally:
        await other.dispose()


async def _revoke_in_another_process(customer: Customer, settings: Any) -> None:
    now = datetime.now(UTC)
    assert await _in_another_process(settings, lambda store: store.revoke_key(customer.key_id, now))


async def test_a_key_revoked_by_another_process_is_refused_at_once(
    client: httpx.AsyncClient, customer: Customer, settings: Any, inline_clock_stopped: None
) -> None:
    """The cached key is read again on the very next request, however soon it comes."""
    assert (await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)).status_code == 200
    await _revoke_in_another_process(customer, settings)
    assert (await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)).status_code == 401


async def test_an_account_suspended_by_another_process_is_refused_at_once(
    client: httpx.AsyncClient, customer: Customer, settings: Any, inline_clock_stopped: None
) -> None:
    """The key's fresh read sees the other process's commit, so its account is read again too."""
    assert (await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)).status_code == 200
    await _in_another_process(
        settings, lambda store: store.set_status(customer.account_id, "suspended")
    )
    response = await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    assert response.status_code == 403


async def test_a_url_whose_key_another_process_revoked_is_refused_within_the_bound(
    client: httpx.AsyncClient, customer: Customer, settings: Any
) -> None:
    """A delivery URL's cached row may outlive another process's revoke by at most
    OTHER_PROCESSES_SECONDS (its image was paid for; each page view is not worth a PRAGMA)."""
    url = await mint_url(client, customer.headers)
    assert (await client.get(url)).status_code == 200
    await _revoke_in_another_process(customer, settings)
    await asyncio.sleep(OTHER_PROCESSES_SECONDS * 2)
    assert (await client.get(url)).status_code == 403


async def test_a_width_of_thousands_of_digits_is_a_400_problem(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    """Past Python's 4,300-digit limit int() raises: such a query is the framework's 400."""
    params = {**CAMRY, "w": "1" * 4301}
    response = await client.get(IMAGE_URL, params=params, headers=customer.headers)
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["parameter"] == "w"
