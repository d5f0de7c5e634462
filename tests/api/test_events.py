"""POST /api/v1/events (spec: Events, Limits; issue 7: Events): a public, CORS-enabled sink of
1–20 funnel events per batch, at most 32 KiB, 120 batches a minute per IP, answered 202
{accepted} and written after the response; never billed, never touching an account."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

import carimg.store.events
from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.conftest import Customer

EVENTS_URL = "/api/v1/events"
ORIGIN = "https://app.example.com"
# Rules decided before anything is stored run on one database; the rest run on both.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def event(**changes: Any) -> dict[str, Any]:
    """One valid event, as the command-line client sends it; `changes` replace or add members
    (a value of `...` removes the member)."""
    base: dict[str, Any] = {
        "event": "cli_command",
        "anonymous_id": "anon-6f1c3e52",
        "source": "cli",
        "properties": {"command": "images get", "ok": True, "ms": 412, "ratio": 0.5},
        "timestamp": "2027-01-15T08:00:00Z",
    }
    base.update(changes)
    return {name: value for name, value in base.items() if value is not ...}


def batch(*events: dict[str, Any]) -> dict[str, Any]:
    return {"events": list(events) or [event()]}


def assert_problem(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["type"] == f"http://testserver/docs/errors#{status}"
    assert body["request_id"] == response.headers["x-request-id"]
    return body


async def post(
    client: httpx.AsyncClient, body: Any, headers: dict[str, str] | None = None
) -> httpx.Response:
    return await client.post(EVENTS_URL, json=body, headers={"Origin": ORIGIN, **(headers or {})})


# -- public and CORS --------------------------------------------------------------------------


async def test_events_need_no_key_and_answer_202_with_the_number_accepted(
    client: httpx.AsyncClient, services: Services
) -> None:
    response = await post(client, batch(event(), event(event="cli_login"), event()))
    assert response.status_code == 202, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json() == {"accepted": 3, "request_id": response.headers["x-request-id"]}
    assert "ratelimit-limit" not in response.headers  # no key, no key window
    assert await services.events.count() == 3


@SQLITE_ONLY
async def test_a_preflight_is_answered_with_the_cors_headers(client: httpx.AsyncClient) -> None:
    response = await client.options(
        EVENTS_URL,
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert response.status_code in (200, 204)
    assert response.headers["access-control-allow-origin"] in ("*", ORIGIN)
    methods = {
        m.strip().upper() for m in response.headers["access-control-allow-methods"].split(",")
    }
    assert "POST" in methods
    allowed = {
        h.strip().lower() for h in response.headers["access-control-allow-headers"].split(",")
    }
    assert "content-type" in allowed


@SQLITE_ONLY
async def test_an_accepted_batch_carries_access_control_allow_origin(
    client: httpx.AsyncClient,
) -> None:
    response = await post(client, batch())
    assert response.status_code == 202
    assert response.headers["access-control-allow-origin"] in ("*", ORIGIN)


@SQLITE_ONLY
async def test_a_refused_batch_carries_access_control_allow_origin(
    client: httpx.AsyncClient,
) -> None:
    """A browser beacon can read why its batch was refused."""
    for body in ({"events": []}, batch(event(event="Bad Name"))):
        response = await post(client, body)
        assert_problem(response, 400)
        assert response.headers["access-control-allow-origin"] in ("*", ORIGIN)
    too_large = await client.post(
        EVENTS_URL,
        content=b" " * (32 * 1024 + 1),
        headers={"Origin": ORIGIN, "Content-Type": "application/json"},
    )
    assert_problem(too_large, 413)
    assert too_large.headers["access-control-allow-origin"] in ("*", ORIGIN)


@SQLITE_ONLY
async def test_an_invalid_key_on_an_event_batch_is_ignored(client: httpx.AsyncClient) -> None:
    response = await post(client, batch(), {"Authorization": "Bearer cimg_not_a_real_key"})
    assert response.status_code == 202


# -- batch size and body ----------------------------------------------------------------------


@SQLITE_ONLY
async def test_a_batch_of_20_events_is_accepted(client: httpx.AsyncClient) -> None:
    response = await post(client, batch(*[event() for _ in range(20)]))
    assert response.status_code == 202
    assert response.json()["accepted"] == 20


@SQLITE_ONLY
@pytest.mark.parametrize("size", [0, 21])
async def test_a_batch_of_0_or_21_events_is_400_and_stores_nothing(
    client: httpx.AsyncClient, services: Services, size: int
) -> None:
    response = await post(client, {"events": [event() for _ in range(size)]})
    problem = assert_problem(response, 400)
    assert problem["parameter"] == "events"
    assert await services.events.count() == 0


@SQLITE_ONLY
async def test_a_body_over_32_kib_is_413(client: httpx.AsyncClient, services: Services) -> None:
    body = json.dumps(batch(event(properties={"pad": "x" * 33000})))
    assert len(body.encode()) > 32 * 1024
    response = await client.post(
        EVENTS_URL, content=body, headers={"Content-Type": "application/json"}
    )
    assert_problem(response, 413)
    assert await services.events.count() == 0


@SQLITE_ONLY
async def test_a_body_of_exactly_32_kib_is_accepted(client: httpx.AsyncClient) -> None:
    start = json.dumps(batch())
    body = start + " " * (32 * 1024 - len(start))
    response = await client.post(
        EVENTS_URL, content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 202, response.text


@SQLITE_ONLY
async def test_a_malformed_body_is_400(client: httpx.AsyncClient, services: Services) -> None:
    bodies = [b"", b"{", b"not json", b'{"events": [}', b"[]", b'{"events": {}}', b'{"batch": []}']
    for body in bodies:
        response = await client.post(
            EVENTS_URL, content=body, headers={"Content-Type": "application/json"}
        )
        assert_problem(response, 400)
    assert await services.events.count() == 0


@SQLITE_ONLY
async def test_members_beside_events_are_400(client: httpx.AsyncClient) -> None:
    assert_problem(await post(client, {**batch(), "sent_at": "2027-01-15T08:00:00Z"}), 400)


# -- each event's rules -----------------------------------------------------------------------


async def assert_each_refused(
    client: httpx.AsyncClient, services: Services, member: str, cases: dict[str, Any]
) -> None:
    """Each bad event, third in a batch of four, is 400 naming `member` and index 2."""
    for case, bad in cases.items():
        response = await post(client, {"events": [event(), event(), bad, event()]})
        problem = assert_problem(response, 400)
        assert (problem["parameter"], problem["index"]) == (member, 2), case
        assert "events[2]" in problem["detail"], case
    assert await services.events.count() == 0


@SQLITE_ONLY
async def test_an_event_name_is_1_to_64_of_a_z_0_9_and_the_marks(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {
        "upper-case": event(event="CLI_Command"),
        "space": event(event="cli command"),
        "empty": event(event=""),
        "65-chars": event(event="a" * 65),
        "slash": event(event="cli/command"),
        "number": event(event=7),
        "missing": event(event=...),
    }
    await assert_each_refused(client, services, "event", cases)


@SQLITE_ONLY
async def test_an_event_needs_an_anonymous_id_string(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {
        "missing": event(anonymous_id=...),
        "empty": event(anonymous_id=""),
        "number": event(anonymous_id=12345),
        "too-long": event(anonymous_id="a" * 129),
    }
    await assert_each_refused(client, services, "anonymous_id", cases)


@SQLITE_ONLY
async def test_an_event_needs_a_short_lower_case_source(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {
        "missing": event(source=...),
        "upper-case": event(source="CLI"),
        "number": event(source=1),
        "empty": event(source=""),
    }
    await assert_each_refused(client, services, "source", cases)


@SQLITE_ONLY
async def test_event_properties_are_at_most_50_scalar_members(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {
        "array": event(properties=["a"]),
        "string": event(properties="a=1"),
        "51-members": event(properties={f"p{i}": i for i in range(51)}),
        "object-member": event(properties={"nested": {"a": 1}}),
        "array-member": event(properties={"list": [1, 2]}),
    }
    await assert_each_refused(client, services, "properties", cases)


@SQLITE_ONLY
async def test_an_event_timestamp_is_an_rfc_3339_date_time(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {
        "words": event(timestamp="yesterday"),
        "no-zone": event(timestamp="2027-01-15T08:00:00"),
        "date-only": event(timestamp="2027-01-15"),
        "unix-number": event(timestamp=1800000000),
        "month-13": event(timestamp="2027-13-15T08:00:00Z"),
        "basic-format": event(timestamp="20270115T080000Z"),
        "no-seconds": event(timestamp="2027-01-15T08:00Z"),
        "week-date": event(timestamp="2027-W03-5T08:00:00Z"),
        "offset-without-colon": event(timestamp="2027-01-15T08:00:00+0200"),
    }
    await assert_each_refused(client, services, "timestamp", cases)


@SQLITE_ONLY
async def test_an_event_with_an_unknown_member_is_400(
    client: httpx.AsyncClient, services: Services
) -> None:
    await assert_each_refused(client, services, "user_id", {"user_id": event(user_id="u1")})


@SQLITE_ONLY
async def test_an_event_that_is_not_an_object_is_400(
    client: httpx.AsyncClient, services: Services
) -> None:
    cases = {"string": "cli_command", "array": [event()], "null": None}
    await assert_each_refused(client, services, "events", cases)


@SQLITE_ONLY
async def test_valid_event_shapes_are_accepted(client: httpx.AsyncClient) -> None:
    valid = [
        event(event="cli_doctor"),
        event(event="web.page:view-2", source="web"),
        event(event="a" * 64, source="mcp"),
        event(source="sdk", timestamp="2027-01-15T08:00:00.123+02:00"),
        event(timestamp="2027-01-15T08:00:00.123456789Z"),  # nanoseconds, as Go sends them
        event(timestamp="2027-01-15t08:00:00z"),  # RFC 3339 letters are case-insensitive
        event(timestamp="2027-01-15 08:00:00-05:00"),  # RFC 3339 allows a space for T
        event(source="my-agent_1.0"),
        event(timestamp=...),
        event(timestamp=None),
        event(properties=...),
        event(properties={}),
        event(properties={"n": None, "b": False, "f": 1.5, "s": "x", "i": -3}),
        event(properties={f"p{i}": i for i in range(50)}),
    ]
    response = await post(client, {"events": valid})
    assert response.status_code == 202, response.text
    assert response.json()["accepted"] == len(valid)


@SQLITE_ONLY
async def test_the_known_client_event_names_are_accepted(client: httpx.AsyncClient) -> None:
    names = ["cli_command", "cli_login", "cli_doctor", "mcp_tool_call", "sdk_request"]
    response = await post(client, {"events": [event(event=name) for name in names]})
    assert response.status_code == 202
    assert response.json()["accepted"] == len(names)


# -- storage: after the response --------------------------------------------------------------


async def test_events_are_written_after_the_response_is_sent(
    app: FastAPI, client: httpx.AsyncClient, services: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Drive the ASGI app directly: the response completes before the batch is written."""
    order: list[str] = []
    store = services.events.add_all

    async def add_all(rows: list[dict[str, Any]]) -> None:
        order.append(f"stored {len(rows)}")
        await store(rows)

    monkeypatch.setattr(services.events, "add_all", add_all)
    body = json.dumps(batch(event(), event())).encode()
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if received:
            return {"type": "http.disconnect"}
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            order.append(f"status {message['status']}")
        elif message["type"] == "http.response.body" and not message.get("more_body"):
            order.append("response sent")

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": EVENTS_URL,
        "raw_path": EVENTS_URL.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"testserver"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("203.0.113.9", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    await app(scope, receive, send)
    assert order == ["status 202", "response sent", "stored 2"]
    assert await services.events.count() == 2


# -- rate limit per IP ------------------------------------------------------------------------


def client_from(app: FastAPI, ip: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(ip, 40000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


async def send_batches(client: httpx.AsyncClient, count: int) -> list[int]:
    return [(await post(client, batch())).status_code for _ in range(count)]


@pytest.fixture
def tiny_batches(monkeypatch: pytest.MonkeyPatch, services: Services) -> Callable[[], int]:
    """Skip the database writes of accepted batches (the limit is what these tests watch)."""
    written: list[int] = []

    async def add_all(rows: list[dict[str, Any]]) -> None:
        written.append(len(rows))

    monkeypatch.setattr(services.events, "add_all", add_all)
    return lambda: sum(written)


@SQLITE_ONLY
async def test_the_121st_batch_in_a_minute_from_one_ip_is_429_with_retry_after(
    app: FastAPI, client: httpx.AsyncClient, tiny_batches: Callable[[], int]
) -> None:
    async with client_from(app, "198.51.100.7") as one_ip:
        assert set(await send_batches(one_ip, 120)) == {202}
        refused = await post(one_ip, batch())
    problem = assert_problem(refused, 429)
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["access-control-allow-origin"] in ("*", ORIGIN)
    assert "minute" in problem["detail"]
    assert tiny_batches() == 120  # the refused batch was not written


@SQLITE_ONLY
async def test_invalid_batches_count_toward_the_ip_limit(
    app: FastAPI, client: httpx.AsyncClient, tiny_batches: Callable[[], int]
) -> None:
    async with client_from(app, "198.51.100.8") as one_ip:
        for _ in range(120):
            assert (await post(one_ip, {"events": []})).status_code == 400
        assert (await post(one_ip, batch())).status_code == 429


@SQLITE_ONLY
async def test_the_ip_limit_is_per_ip(
    app: FastAPI, client: httpx.AsyncClient, tiny_batches: Callable[[], int]
) -> None:
    async with client_from(app, "198.51.100.9") as busy, client_from(app, "198.51.100.10") as other:
        await send_batches(busy, 120)
        assert (await post(busy, batch())).status_code == 429
        assert (await post(other, batch())).status_code == 202


@SQLITE_ONLY
async def test_a_new_minute_resets_the_ip_limit(
    app: FastAPI, client: httpx.AsyncClient, clock: FixedClock, tiny_batches: Callable[[], int]
) -> None:
    clock.advance(30)  # mid-window: Retry-After counts down to the next minute
    async with client_from(app, "198.51.100.11") as one_ip:
        await send_batches(one_ip, 120)
        refused = await post(one_ip, batch())
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "30"
        clock.advance(30)
        assert (await post(one_ip, batch())).status_code == 202


# -- never billed -----------------------------------------------------------------------------


async def test_events_never_touch_an_accounts_balance(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    events = [event(properties={"account": customer.account_id, "credits": -100})]
    for _ in range(3):
        response = await post(client, {"events": events}, customer.headers)
        assert response.status_code == 202
        assert "x-credits-charged" not in response.headers
    assert await services.ledger.balance(customer.account_id) == 100
    assert [e.kind for e in await services.ledger.entries(customer.account_id)] == ["grant"]
    probe = await client.get("/api/v1/account", headers=customer.headers)
    assert probe.json()["data"]["credits"] == 100
    assert probe.headers["ratelimit-remaining"] == "119"  # event batches used no key window


@pytest.mark.parametrize("overrides", [{"events_retention_days": 30}])
async def test_events_older_than_the_retention_period_are_deleted(
    client: httpx.AsyncClient,
    services: Services,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(carimg.store.events, "PRUNE_EVERY_SECONDS", 0.0)  # at every batch
    assert (await post(client, batch(event()))).status_code == 202
    clock.advance(30 * 86400 + 1)
    assert (await post(client, batch(event()))).status_code == 202
    assert await services.events.count() == 1  # the new one
