"""POST /api/v1/feedback (spec: Feedback request and response, Scopes, Cached render variant;
issue 7: Feedback): naming a render by the request that delivered it or by vehicle, the body
rules, and repeated negative reports moving a render to a new variation (new seed, new ETag)
while the old bytes stay in the render cache."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest

from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL, fresh_paint, stand_in_png
from tests.conftest import Customer

FEEDBACK_URL = "/api/v1/feedback"
THUMB = {**CAMRY, "size": "thumb"}  # one variant, rendered once per test session
VEHICLE = {"make": "toyota", "model": "camry", "year": 2020}
THRESHOLD_2 = pytest.mark.parametrize(
    "overrides", [{"feedback_flag_threshold": 2}], ids=["threshold-2"]
)
# Rules decided before anything is stored run on one database; the rest run on both.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == f"http://testserver/docs/errors#{status}"
    assert body["request_id"] == response.headers["x-request-id"]
    return body


def assert_recorded(response: httpx.Response, *, flagged: bool = False) -> str:
    """A 201 feedback response; returns its asset_id."""
    assert response.status_code == 201, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"]
    data = body["data"]
    assert str(uuid.UUID(data["asset_id"])) == data["asset_id"]
    assert data["recorded"] is True
    assert data["flagged"] is flagged
    asset_id: str = data["asset_id"]
    return asset_id


async def send(
    client: httpx.AsyncClient, customer: Customer, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(FEEDBACK_URL, json=body, headers=customer.headers)


async def deliver(
    client: httpx.AsyncClient, customer: Customer, params: dict[str, str], request_id: str
) -> httpx.Response:
    """An image request carrying its own X-Request-Id."""
    return await client.get(
        IMAGE_URL, params=params, headers={**customer.headers, "X-Request-Id": request_id}
    )


def request_id() -> str:
    return f"fb-test:{uuid.uuid4().hex}"


@pytest.fixture
def stand_in(services: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    """New renders are a stand-in picture: delivering a fresh paint costs no real render."""

    async def render(_appearance: object, _view: str, _paint: str) -> bytes:
        return stand_in_png()

    monkeypatch.setattr(services.render_pool, "render", render)


async def received(client: httpx.AsyncClient, customer: Customer, paint: str) -> str:
    """Deliver the `paint` thumbnail to `customer` (one credit); returns the request id."""
    rid = request_id()
    response = await deliver(client, customer, {**THUMB, "color": paint}, rid)
    assert response.status_code == 200, response.text
    return rid


# -- authentication and scope ---------------------------------------------------------------


@SQLITE_ONLY
async def test_feedback_without_a_key_is_401(client: httpx.AsyncClient) -> None:
    response = await client.post(FEEDBACK_URL, json={**VEHICLE, "verdict": "good"})
    assert_problem(response, 401)


@SQLITE_ONLY
async def test_feedback_without_images_read_or_account_read_is_403_required_scope(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    billing_only: Customer = await make_customer(scopes=("billing:write",))
    body = assert_problem(await send(client, billing_only, {**VEHICLE, "verdict": "good"}), 403)
    assert body["required_scope"] in {"images:read", "account:read"}


@SQLITE_ONLY
@pytest.mark.parametrize("scope", ["images:read", "account:read"])
async def test_feedback_needs_only_one_of_images_read_or_account_read(
    client: httpx.AsyncClient, make_customer, scope: str
) -> None:  # type: ignore[no-untyped-def]
    holder: Customer = await make_customer(scopes=(scope,))
    assert_recorded(await send(client, holder, {**VEHICLE, "verdict": "good"}))


# -- body rules -------------------------------------------------------------------------------


@SQLITE_ONLY
async def test_feedback_body_over_8_kib_is_413(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = json.dumps({**VEHICLE, "verdict": "bad"}) + " " * 8192
    response = await client.post(
        FEEDBACK_URL,
        content=body,
        headers={**customer.headers, "Content-Type": "application/json"},
    )
    assert_problem(response, 413)


@SQLITE_ONLY
async def test_feedback_body_of_exactly_8_kib_is_accepted(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    start = json.dumps({**VEHICLE, "verdict": "good"})
    body = start + " " * (8192 - len(start))
    response = await client.post(
        FEEDBACK_URL,
        content=body,
        headers={**customer.headers, "Content-Type": "application/json"},
    )
    assert_recorded(response)


async def assert_each_refused(
    client: httpx.AsyncClient, customer: Customer, member: str, values: tuple[object, ...]
) -> None:
    """Feedback naming a valid vehicle with `member` set to each value: 400 naming `member`."""
    for value in values:
        response = await send(client, customer, {**VEHICLE, "rating": 4, member: value})
        problem = assert_problem(response, 400)
        assert (problem["parameter"], problem["code"]) == (member, "invalid_params"), value


@SQLITE_ONLY
async def test_a_rating_is_a_whole_number_from_1_to_5(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    await assert_each_refused(client, customer, "rating", (0, 6, -1, 4.5, True, "five"))


@SQLITE_ONLY
async def test_a_verdict_is_good_or_bad(client: httpx.AsyncClient, customer: Customer) -> None:
    await assert_each_refused(client, customer, "verdict", ("meh", "GOOD", "", 1))


@SQLITE_ONLY
async def test_a_reason_is_at_most_500_characters(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    await assert_each_refused(client, customer, "reason", ("x" * 501,))


@SQLITE_ONLY
async def test_a_request_id_is_1_to_128_characters(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    await assert_each_refused(client, customer, "request_id", ("r" * 129, ""))


@SQLITE_ONLY
async def test_a_year_is_a_whole_number(client: httpx.AsyncClient, customer: Customer) -> None:
    await assert_each_refused(client, customer, "year", ("twenty",))


@SQLITE_ONLY
async def test_feedback_limits_are_inclusive(client: httpx.AsyncClient, customer: Customer) -> None:
    for body in (
        {**VEHICLE, "rating": 1},
        {**VEHICLE, "rating": 5, "reason": "x" * 500},
        {**VEHICLE, "verdict": "good", "reason": ""},
    ):
        assert_recorded(await send(client, customer, body))


@SQLITE_ONLY
async def test_feedback_with_an_unknown_property_is_400(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    problem = assert_problem(
        await send(client, customer, {**VEHICLE, "verdict": "good", "comment": "nice"}), 400
    )
    assert problem["parameter"] == "comment"


@SQLITE_ONLY
async def test_feedback_needs_a_rating_or_a_verdict(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    problem = assert_problem(await send(client, customer, {**VEHICLE, "reason": "hm"}), 400)
    assert problem["parameter"] in {"rating", "verdict"}


@SQLITE_ONLY
async def test_feedback_needs_a_request_id_or_a_vehicle(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    assert_problem(await send(client, customer, {"verdict": "bad"}), 400)


@SQLITE_ONLY
async def test_malformed_feedback_json_is_400(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    headers = {**customer.headers, "Content-Type": "application/json"}
    for body in (b"", b"{", b'"good"', b"[]"):
        response = await client.post(FEEDBACK_URL, content=body, headers=headers)
        assert_problem(response, 400)


@SQLITE_ONLY
async def test_feedback_with_an_unknown_view_or_color_is_400(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    for member, value in (("view", "top-down"), ("color", "plaid")):
        response = await send(client, customer, {**VEHICLE, member: value, "verdict": "bad"})
        assert assert_problem(response, 400)["parameter"] == member


# -- naming the render ------------------------------------------------------------------------


async def test_feedback_by_the_request_id_of_a_delivered_image_is_201(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    rid = request_id()
    image = await deliver(client, customer, THUMB, rid)
    assert image.status_code == 200
    assert image.headers["x-request-id"] == rid
    response = await send(client, customer, {"request_id": rid, "verdict": "good", "rating": 5})
    by_request = assert_recorded(response)
    by_vehicle = assert_recorded(await send(client, customer, {**VEHICLE, "rating": 4}))
    assert by_request == by_vehicle  # the same render: default view and color
    assert await services.ledger.balance(customer.account_id) == 99  # the image, not feedback


async def test_feedback_by_a_server_assigned_request_id_is_201(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    image = await client.get(IMAGE_URL, params=THUMB, headers=customer.headers)
    assert image.status_code == 200
    rid = image.headers["x-request-id"]
    assert_recorded(await send(client, customer, {"request_id": rid, "verdict": "bad"}))


async def test_feedback_by_a_request_id_that_delivered_nothing_is_404(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await send(client, customer, {"request_id": request_id(), "verdict": "bad"})
    assert_problem(response, 404)


async def test_feedback_by_a_request_id_that_was_refused_is_404(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    broke: Customer = await make_customer(credits=0)
    rid = request_id()
    assert (await deliver(client, broke, THUMB, rid)).status_code == 402
    assert_problem(await send(client, broke, {"request_id": rid, "verdict": "bad"}), 404)


async def test_feedback_by_the_request_id_of_a_refunded_render_is_404(
    client: httpx.AsyncClient,
    customer: Customer,
    services: Services,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def failing(*_: object) -> bytes:
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(services.render_pool, "render", failing)
    rid = request_id()
    failed = await deliver(client, customer, {**CAMRY, "color": fresh_paint()}, rid)
    assert failed.status_code == 502
    assert_problem(await send(client, customer, {"request_id": rid, "verdict": "bad"}), 404)


async def test_feedback_by_another_accounts_request_id_is_404(
    client: httpx.AsyncClient, customer: Customer, make_customer
) -> None:  # type: ignore[no-untyped-def]
    rid = request_id()
    assert (await deliver(client, customer, THUMB, rid)).status_code == 200
    stranger: Customer = await make_customer()
    assert_problem(await send(client, stranger, {"request_id": rid, "verdict": "bad"}), 404)


async def test_feedback_by_vehicle_fields_with_or_without_view_and_color_is_201(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    default = assert_recorded(await send(client, customer, {**VEHICLE, "verdict": "good"}))
    explicit = assert_recorded(
        await send(
            client, customer, {**VEHICLE, "view": "front-3-4", "color": "silver", "rating": 5}
        )
    )
    side_red = assert_recorded(
        await send(client, customer, {**VEHICLE, "view": "side", "color": "red", "rating": 5})
    )
    assert default == explicit  # the defaults are front-3-4 and silver
    assert side_red != default


@SQLITE_ONLY
async def test_feedback_by_vehicle_accepts_slugs_and_names_alike(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    by_slug = assert_recorded(await send(client, customer, {**VEHICLE, "verdict": "good"}))
    by_name = assert_recorded(
        await send(
            client,
            customer,
            {"make": "Toyota", "model": "Camry", "year": 2020, "verdict": "good"},
        )
    )
    assert by_slug == by_name


@SQLITE_ONLY
async def test_feedback_on_an_unknown_vehicle_is_404(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    for vehicle in (
        {**VEHICLE, "model": "zzzz-no-such-model"},
        {**VEHICLE, "make": "no-such-make"},
        {"make": "tesla", "model": "cybertruck", "year": 2010},  # not built that year
    ):
        response = await send(client, customer, {**vehicle, "verdict": "bad"})
        assert_problem(response, 404)


async def test_feedback_is_free(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for verdict in ("good", "bad", "bad"):
        assert_recorded(await send(client, customer, {**VEHICLE, "verdict": verdict}))
    assert await services.ledger.balance(customer.account_id) == 100
    assert [e.kind for e in await services.ledger.entries(customer.account_id)] == ["grant"]


# -- flagging a render for regeneration -------------------------------------------------------


@THRESHOLD_2
@pytest.mark.usefixtures("stand_in")
async def test_negative_reports_reaching_the_threshold_flag_the_render(
    client: httpx.AsyncClient, customer: Customer, make_customer
) -> None:  # type: ignore[no-untyped-def]
    """Negative: verdict bad, or a rating of 1 or 2 (verdict bad wins over a good rating)."""
    other: Customer = await make_customer()
    for negative in (
        {"verdict": "bad"},
        {"rating": 1},
        {"rating": 2},
        {"rating": 4, "verdict": "bad"},
    ):
        paint = fresh_paint()
        mine, theirs = await received(client, customer, paint), await received(client, other, paint)
        first = assert_recorded(await send(client, customer, {"request_id": mine, **negative}))
        second = assert_recorded(
            await send(client, other, {"request_id": theirs, **negative}), flagged=True
        )
        assert first == second


@THRESHOLD_2
async def test_one_account_repeating_a_report_never_flags_a_render(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    body = {**VEHICLE, "color": fresh_paint(), "verdict": "bad"}
    flags = [(await send(client, customer, body)).json()["data"]["flagged"] for _ in range(4)]
    assert flags == [False] * 4


@THRESHOLD_2
async def test_positive_feedback_never_flags(client: httpx.AsyncClient, customer: Customer) -> None:
    paint = fresh_paint()
    for positive in ({"verdict": "good"}, {"rating": 5}, {"rating": 3}, {"rating": 3}):
        response = await send(client, customer, {**VEHICLE, "color": paint, **positive})
        assert_recorded(response, flagged=False)
    # positive reports do not count toward the threshold either
    assert_recorded(
        await send(client, customer, {**VEHICLE, "color": paint, "verdict": "bad"}), flagged=False
    )


@SQLITE_ONLY
@pytest.mark.usefixtures("stand_in")
async def test_the_default_threshold_is_three_accounts_reporting(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    paint = fresh_paint()
    flags = []
    for _ in range(4):
        reporter: Customer = await make_customer()
        rid = await received(client, reporter, paint)
        response = await send(client, reporter, {"request_id": rid, "verdict": "bad"})
        flags.append(response.json()["data"]["flagged"])
    assert flags == [False, False, True, False]


@THRESHOLD_2
@pytest.mark.usefixtures("stand_in")
async def test_reports_from_different_accounts_add_up_to_the_threshold(
    client: httpx.AsyncClient, customer: Customer, make_customer
) -> None:  # type: ignore[no-untyped-def]
    other: Customer = await make_customer()
    paint = fresh_paint()
    mine, theirs = await received(client, customer, paint), await received(client, other, paint)
    assert_recorded(await send(client, customer, {"request_id": mine, "verdict": "bad"}))
    assert_recorded(
        await send(client, other, {"request_id": theirs, "verdict": "bad"}), flagged=True
    )


@THRESHOLD_2
@pytest.mark.usefixtures("stand_in")
async def test_the_count_starts_again_at_the_new_variation(
    client: httpx.AsyncClient, make_customer, clock: FixedClock
) -> None:  # type: ignore[no-untyped-def]
    paint = fresh_paint()
    flags = []
    for _ in range(5):
        clock.advance(1)  # each delivery after the last flag
        reporter: Customer = await make_customer()
        rid = await received(client, reporter, paint)
        response = await send(client, reporter, {"request_id": rid, "rating": 1})
        flags.append(response.json()["data"]["flagged"])
    assert flags == [False, True, False, True, False]


@THRESHOLD_2
async def test_reports_from_accounts_that_never_received_the_render_never_flag_it(
    client: httpx.AsyncClient, make_customer
) -> None:  # type: ignore[no-untyped-def]
    """Zero-credit accounts naming a render by vehicle: recorded, never counted."""
    body = {**VEHICLE, "color": fresh_paint(), "verdict": "bad"}
    reporters = [await make_customer(credits=0) for _ in range(3)]
    flags = [(await send(client, c, body)).json()["data"]["flagged"] for c in reporters]
    assert flags == [False, False, False]


@THRESHOLD_2
@pytest.mark.usefixtures("stand_in")
async def test_a_report_on_an_earlier_variation_does_not_count_toward_the_current_one(
    client: httpx.AsyncClient, customer: Customer, make_customer, clock: FixedClock
) -> None:  # type: ignore[no-untyped-def]
    other: Customer = await make_customer()
    paint = fresh_paint()
    mine, theirs = await received(client, customer, paint), await received(client, other, paint)
    clock.advance(1)  # the render is flagged after those deliveries
    assert_recorded(await send(client, customer, {"request_id": mine, "verdict": "bad"}))
    assert_recorded(
        await send(client, other, {"request_id": theirs, "verdict": "bad"}), flagged=True
    )
    clock.advance(1)
    third: Customer = await make_customer()
    newer = await received(client, third, paint)  # the new variation
    assert_recorded(await send(client, third, {"request_id": newer, "verdict": "bad"}))
    # the first account again, by the delivery of the variation it received (the old one)
    assert_recorded(await send(client, customer, {"request_id": mine, "verdict": "bad"}))


@THRESHOLD_2
async def test_a_flagged_render_is_delivered_as_a_new_variation_and_the_old_bytes_are_kept(
    client: httpx.AsyncClient,
    customer: Customer,
    services: Services,
    settings: Settings,
    make_customer,  # type: ignore[no-untyped-def]
) -> None:
    params = {**CAMRY, "color": fresh_paint(), "size": "thumb"}
    rid = request_id()
    old = await deliver(client, customer, params, rid)
    assert old.status_code == 200 and old.headers["x-image-source"] == "generated"
    cached = await client.get(IMAGE_URL, params=params, headers=customer.headers)
    assert cached.headers["x-image-source"] == "cache"
    assert cached.headers["etag"] == old.headers["etag"]

    bad = {"request_id": rid, "verdict": "bad", "reason": "wheels float"}
    assert_recorded(await send(client, customer, bad), flagged=False)
    other: Customer = await make_customer()
    theirs = request_id()
    assert (await deliver(client, other, params, theirs)).status_code == 200
    assert_recorded(
        await send(client, other, {"request_id": theirs, "verdict": "bad"}), flagged=True
    )

    new = await client.get(
        IMAGE_URL,
        params=params,
        headers={**customer.headers, "If-None-Match": old.headers["etag"]},
    )
    assert new.status_code == 200  # the old validator no longer matches
    assert new.headers["x-image-source"] == "generated"
    assert new.headers["etag"] != old.headers["etag"]
    assert new.headers["x-credits-charged"] == "1"
    assert new.content != old.content  # a different seed of the procedural model
    derived = settings.render_cache_dir / "derived"
    kept = [path for path in derived.rglob("*.png") if path.read_bytes() == old.content]
    assert kept, "the flagged render's bytes stay in the render cache for audit"
    again = await client.get(IMAGE_URL, params=params, headers=customer.headers)
    assert again.headers["x-image-source"] == "cache"
    assert again.headers["etag"] == new.headers["etag"]
    assert again.content == new.content
