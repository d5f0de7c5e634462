"""Exceptions of the SDK: every problem document becomes a typed exception.

CarimgError                       any failure the SDK reports
├── ConnectionFailed              no HTTP answer (refused, timed out, reset)
├── DeviceFlowError               an OAuth error of the device login (authorization_pending, …)
└── APIError                      an RFC 9457 problem document (or a non-JSON error body)
    ├── BadRequestError           400  `code`, `parameter`, `allowed`, `index`, `retryable`
    ├── AuthenticationError       401  key missing, invalid, expired or revoked
    ├── PaymentRequiredError      402  `balance`, `required_credits`, `checkout_url`, `pricing`
    │   └── PlanLimitError        402  code plan_vehicle_limit: `plan`, `next_plan`, vehicle counts
    ├── PermissionDeniedError     403  `required_scope`; code account_suspended, origin_not_allowed
    ├── NotFoundError             404  `suggestions` (vehicles), `makes` (resolve)
    ├── ConflictError             409  Idempotency-Key still running (`retry_after`)
    ├── GoneError                 410  capped delivery URL exhausted
    ├── PayloadTooLargeError      413
    ├── UnprocessableError        422  Idempotency-Key reused with another body
    ├── RateLimitError            429  `retry_after`, `retry_after_seconds`, `reset_at`, `plan`
    ├── ServerError               500
    ├── RenderFailedError         502  (the credit was refunded)
    └── ServiceUnavailableError   503

Every member of the problem document is kept in `problem`; the ones the spec names are also
attributes (None when absent).
"""

from __future__ import annotations

from typing import Any

import httpx


class CarimgError(Exception):
    """Base of every error the SDK raises."""

    status: int | None = None
    request_id: str | None = None


class ConnectionFailed(CarimgError):
    """The service gave no HTTP answer (connection refused, timed out, reset)."""


class DeviceFlowError(CarimgError):
    """An OAuth error body from the device-login endpoints (RFC 8628 §3.5).

    `error` is authorization_pending, slow_down, access_denied, expired_token, invalid_request
    or unsupported_grant_type; `retry_after` is set on slow_down.
    """

    def __init__(
        self,
        error: str,
        description: str,
        *,
        status: int,
        request_id: str | None,
        retry_after: float | None,
    ) -> None:
        super().__init__(f"{error}: {description}")
        self.error = error
        self.description = description
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after


def _member(problem: dict[str, Any], name: str, kind: type) -> Any:
    """A member of the expected JSON type, else None (`true` is not an integer here)."""
    value = problem.get(name)
    if isinstance(value, bool) and kind is not bool:
        return None
    return value if isinstance(value, kind) else None


class APIError(CarimgError):
    """The service answered with an error status; `problem` holds the whole document."""

    def __init__(
        self,
        status: int,
        problem: dict[str, Any],
        *,
        request_id: str | None,
        retry_after: float | None,
        headers: httpx.Headers,
    ) -> None:
        self.status = status
        self.problem = problem
        self.headers = headers
        self.type: str | None = _member(problem, "type", str)
        self.title: str | None = _member(problem, "title", str)
        self.detail: str = _member(problem, "detail", str) or self.title or f"HTTP {status}"
        self.request_id = _member(problem, "request_id", str) or request_id
        self.retry_after = retry_after  # the Retry-After header, in seconds
        self.code: str | None = _member(problem, "code", str)
        self.parameter: str | None = _member(problem, "parameter", str)
        self.allowed: list[str] | None = _member(problem, "allowed", list)
        self.index: int | None = _member(problem, "index", int)
        self.retryable: bool | None = _member(problem, "retryable", bool)
        self.required_scope: str | None = _member(problem, "required_scope", str)
        self.suggestions: list[dict[str, Any]] | None = _member(problem, "suggestions", list)
        self.makes: list[Any] | None = _member(problem, "makes", list)
        self.balance: int | None = _member(problem, "balance", int)
        self.required_credits: int | None = _member(problem, "required_credits", int)
        self.checkout_url: str | None = _member(problem, "checkout_url", str)
        self.pricing: dict[str, Any] | None = _member(problem, "pricing", dict)
        self.retry_after_seconds: int | None = _member(problem, "retry_after_seconds", int)
        self.reset_at: str | None = _member(problem, "reset_at", str)
        self.plan: Any = problem.get("plan")
        self.next_plan: dict[str, Any] | None = _member(problem, "next_plan", dict)
        super().__init__(self._message())

    def _message(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.title or 'Error'}: {self.detail}{where}"

    def __getattr__(self, name: str) -> Any:
        """Any other extension member of the problem document, by name."""
        problem = self.__dict__.get("problem", {})
        if name in problem:
            return problem[name]
        raise AttributeError(name)


class BadRequestError(APIError):
    """400: invalid, unknown or repeated parameters; nothing was charged."""


class AuthenticationError(APIError):
    """401: the key is missing, invalid, expired or revoked."""


class PaymentRequiredError(APIError):
    """402: not enough credits; do not retry until credits are bought (`checkout_url`)."""


class PlanLimitError(PaymentRequiredError):
    """402 plan_vehicle_limit: the plan's distinct vehicles this month are used up."""


class PermissionDeniedError(APIError):
    """403: a missing scope (`required_scope`), a suspended account, a foreign origin, a bad
    signature or delivery token."""


class NotFoundError(APIError):
    """404: the vehicle is not in the catalog (`suggestions`), or the record does not exist."""


class ConflictError(APIError):
    """409: a request with the same Idempotency-Key is still running; retry after `retry_after`."""


class GoneError(APIError):
    """410: a capped delivery URL is exhausted; mint a new one."""


class PayloadTooLargeError(APIError):
    """413: the body is over the endpoint's limit."""


class UnprocessableError(APIError):
    """422: the Idempotency-Key was used with another body."""


class RateLimitError(APIError):
    """429: a rate window or the plan's render share is spent; wait `retry_after` seconds."""


class ServerError(APIError):
    """500: an unexpected failure of the service."""


class RenderFailedError(APIError):
    """502: the render failed; its credit was refunded."""


class ServiceUnavailableError(APIError):
    """503: a dependency is down or overloaded; nothing was charged."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: PaymentRequiredError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    422: UnprocessableError,
    429: RateLimitError,
    500: ServerError,
    502: RenderFailedError,
    503: ServiceUnavailableError,
}


def error_class(status: int, problem: dict[str, Any]) -> type[APIError]:
    """The exception class for a status (and, for 402, the problem's code)."""
    if status == 402 and problem.get("code") == "plan_vehicle_limit":
        return PlanLimitError
    return _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
