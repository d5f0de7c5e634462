"""One API call as data, and the retry rules, shared by the sync and the async client.

An `Operation` says what to send and how to read the answer. `exchange()` is the whole
conversation as a generator (no I/O of its own): it yields a request to send or a pause to take,
receives the response (or the transport error), and returns the parsed result or raises the typed
error. `Client` and `AsyncClient` only drive it, so every rule is written once.

Retries: 429 and 503 only, after their `Retry-After` (or an exponential backoff when absent), and
only when the wait is at most `max_retry_wait` (a daily render share that resets at midnight is not
worth waiting for). 402 and other 4xx are never retried — with one exception: a 409 answering the
SDK's own resend of an Idempotency-Key request (the first attempt is still running on the server).
Transport errors are retried when the request cannot have been processed (connect failures) or is
safe to resend (free reads, requests with an Idempotency-Key, which never pay twice).
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import httpx

from carimg.client._errors import (
    APIError,
    ConnectionFailed,
    DeviceFlowError,
    error_class,
)

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 503})
_NEVER_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


@dataclass(frozen=True, slots=True)
class Operation(Generic[T]):
    """What to send, what success looks like, and how to read it."""

    method: str
    path: str  # relative to the base URL, or an absolute URL (delivery URLs)
    parse: Callable[[httpx.Response], T]
    params: dict[str, Any] | None = None
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    ok: tuple[int, ...] = (200,)
    authenticated: bool = True  # send the API key
    resendable: bool = False  # safe to resend after a timeout (nothing paid twice)
    oauth_errors: bool = False  # the device endpoints answer OAuth error bodies
    retry_status: bool = True  # False where the caller handles 429 itself (device polling)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    max_retries: int = 3
    max_retry_wait: float = 60.0  # seconds; a longer Retry-After is raised, not waited for
    backoff_base: float = 0.5
    backoff_cap: float = 8.0

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with full jitter."""
        return random.uniform(0, min(self.backoff_cap, self.backoff_base * 2**attempt))


@dataclass(frozen=True, slots=True)
class Pause:
    """Wait this many seconds, then resend."""

    seconds: float


def retry_after(headers: httpx.Headers) -> float | None:
    """`Retry-After` in seconds (delta-seconds or an HTTP date), or None."""
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def error_from(response: httpx.Response, oauth: bool = False) -> Exception:
    """The typed exception for an error response."""
    body = _json_body(response)
    request_id = response.headers.get("x-request-id")
    wait = retry_after(response.headers)
    if oauth and isinstance(body.get("error"), str):
        return DeviceFlowError(
            body["error"],
            str(body.get("error_description", "")),
            status=response.status_code,
            request_id=body.get("request_id") or request_id,
            retry_after=wait,
        )
    if not body:  # not a problem document (a proxy's page, an empty 5xx): keep a snippet
        text = response.text.strip()[:200] if response.content else ""
        body = {"detail": text or response.reason_phrase}
    cls: type[APIError] = error_class(response.status_code, body)
    return cls(
        response.status_code,
        body,
        request_id=request_id,
        retry_after=wait,
        headers=response.headers,
    )


def _status_wait(
    operation: Operation[Any], response: httpx.Response, attempt: int, policy: RetryPolicy
) -> float | None:
    """Seconds to wait before resending after this error status, or None to raise it."""
    status = response.status_code
    resend_overtaken = (
        status == 409 and attempt > 0 and "Idempotency-Key" in operation.headers
    )  # our own resend overtook our first attempt: the spec says retry after Retry-After
    if not (resend_overtaken or (status in RETRY_STATUSES and operation.retry_status)):
        return None
    wait = retry_after(response.headers)
    if wait is None:
        return policy.backoff(attempt)
    return wait if wait <= policy.max_retry_wait else None


def exchange(
    operation: Operation[T], build: Callable[[Operation[T]], httpx.Request], policy: RetryPolicy
) -> Generator[httpx.Request | Pause, httpx.Response | httpx.TransportError | None, T]:
    """The conversation for one operation; see the module docstring."""
    attempt = 0
    while True:
        outcome = yield build(operation)
        if isinstance(outcome, httpx.TransportError):
            safe = operation.resendable or isinstance(outcome, _NEVER_SENT)
            if not safe or attempt >= policy.max_retries:
                raise ConnectionFailed(f"{operation.method} {operation.path}: {outcome}") from (
                    outcome
                )
            wait = policy.backoff(attempt)
        else:
            assert outcome is not None
            if outcome.status_code in operation.ok:
                return operation.parse(outcome)
            status_wait = _status_wait(operation, outcome, attempt, policy)
            if status_wait is None or attempt >= policy.max_retries:
                raise error_from(outcome, operation.oauth_errors)
            wait = status_wait
        attempt += 1
        yield Pause(wait)
