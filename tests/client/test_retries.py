"""Which answers the SDK retries, and how long it waits (a transport seam, no server)."""

from __future__ import annotations

import json

import httpx
import pytest

from carimg.client import (
    Client,
    ConflictError,
    ConnectionFailed,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
)
from carimg.client._operation import retry_after

ACCOUNT = {"data": {"credits": 7}, "links": {}, "request_id": "req_ok"}


def problem(status: int, retry: str | None = None, **members: object) -> httpx.Response:
    body = {"type": f"x#{status}", "title": "t", "status": status, "detail": "d", **members}
    headers = {"Retry-After": retry} if retry is not None else {}
    return httpx.Response(status, headers=headers, content=json.dumps(body))


class Script:
    """Answers from a list, one per request, and counts the requests."""

    def __init__(self, *answers: httpx.Response) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.pop(0)


def sdk(script: Script, **options: float) -> Client:
    transport = httpx.MockTransport(script)
    return Client(
        "cimg_test", base_url="http://api", http_client=httpx.Client(transport=transport), **options
    )  # type: ignore[arg-type]


@pytest.mark.parametrize("status", [429, 503])
def test_429_and_503_are_retried_after_retry_after(status: int) -> None:
    script = Script(problem(status, "0"), httpx.Response(200, json=ACCOUNT))
    assert sdk(script).account().data.credits == 7
    assert len(script.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 402, 403, 404, 409, 422, 500, 502])
def test_other_statuses_are_never_retried(status: int) -> None:
    script = Script(problem(status, "0"), httpx.Response(200, json=ACCOUNT))
    with pytest.raises(Exception) as raised:
        sdk(script).account()
    assert getattr(raised.value, "status", None) == status
    assert len(script.requests) == 1


def test_a_retry_after_beyond_the_longest_wait_is_raised_at_once() -> None:
    script = Script(
        problem(429, "3600", code="account_generation_cap", retry_after_seconds=3600,
                reset_at="2030-01-01T00:00:00Z"),
    )  # fmt: skip
    with pytest.raises(RateLimitError) as raised:
        sdk(script, max_retry_wait=60).account()
    error = raised.value
    assert (error.retry_after, error.retry_after_seconds, error.code) == (
        3600,
        3600,
        "account_generation_cap",
    )
    assert error.reset_at == "2030-01-01T00:00:00Z" and len(script.requests) == 1


def test_retries_stop_after_max_retries() -> None:
    script = Script(*(problem(503, "0") for _ in range(3)))
    with pytest.raises(ServiceUnavailableError):
        sdk(script, max_retries=2).account()
    assert len(script.requests) == 3


def test_a_resend_of_a_keyed_mint_that_meets_409_waits_for_the_original() -> None:
    minted = {
        "data": [],
        "billing": {"credits_charged": 1, "credits_remaining": 9},
        "request_id": "req_1",
    }
    script = Script(problem(503, "0"), problem(409, "0"), httpx.Response(201, json=minted))
    result = sdk(script).image_urls([{"make": "toyota", "model": "camry", "year": 2020}])
    assert result.billing.credits_charged == 1
    keys = {request.headers["Idempotency-Key"] for request in script.requests}
    assert len(script.requests) == 3 and len(keys) == 1


def test_a_first_409_is_raised() -> None:
    script = Script(problem(409, "2"))
    with pytest.raises(ConflictError) as raised:
        sdk(script).image_urls([{"make": "toyota", "model": "camry", "year": 2020}])
    assert raised.value.retry_after == 2


def test_a_body_that_is_not_a_problem_still_raises_typed() -> None:
    script = Script(httpx.Response(500, text="<html>proxy error</html>"))
    with pytest.raises(ServerError) as raised:
        sdk(script).account()
    assert "proxy error" in raised.value.detail


def failing(error: type[httpx.TransportError], calls: list[httpx.Request]) -> Client:
    def fail(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise error("no answer", request=request)

    http = httpx.Client(transport=httpx.MockTransport(fail))
    return Client("cimg_x", base_url="http://api", max_retries=1, http_client=http)


def test_a_refused_connection_is_retried_then_raised() -> None:
    calls: list[httpx.Request] = []
    with pytest.raises(ConnectionFailed):
        failing(httpx.ConnectError, calls).image("toyota", "camry", 2020)
    assert len(calls) == 2


def test_a_timed_out_image_is_not_resent() -> None:
    """An image request may have been charged before its answer was lost: never resend it."""
    calls: list[httpx.Request] = []
    with pytest.raises(ConnectionFailed):
        failing(httpx.ReadTimeout, calls).image("toyota", "camry", 2020)
    assert len(calls) == 1


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after(httpx.Headers({"Retry-After": "12"})) == 12
    assert retry_after(httpx.Headers({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0
    assert retry_after(httpx.Headers({})) is None
