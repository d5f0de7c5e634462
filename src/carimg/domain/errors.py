"""Domain exceptions. Each names its HTTP meaning once; the API layer turns them into problems.

The whole tree (`tests/unit/domain/test_error_tree.py` holds it to the code); those defined
beside the rule that raises them name their module.

DomainError
├── InvalidRequest            400  bad, unknown or repeated parameters, malformed bodies
│   └── InvalidParameter      400  one named parameter (`parameter`, `allowed`)
├── DeviceFlowError           400  an OAuth token error of the device flow (domain/device.py)
│   └── DeviceSlowDown        429  slow_down: a code or an address polls too often
├── Unauthenticated           401  key missing, or invalid (malformed, unknown, revoked)
├── InsufficientCredits       402  balance below the price
├── PlanLimitReached          402  plan's distinct-vehicle cap (variant B)
├── Forbidden                 403  missing scope, suspended account, origin not allowed
├── NotFound                  404  vehicle, make, model or record does not exist
├── Conflict                  409  e.g. the active-key limit
├── Exhausted                 410  a capped delivery URL reached its max_uses
├── PayloadTooLarge           413  body over the endpoint's limit
├── KeyReused                 422  a reused Idempotency-Key, another body (domain/idempotency.py)
├── RateLimited               429  rate window or cold-render share spent
├── RenderFailed              502  render failed (the credit was refunded)
└── Unavailable               503  dependency down or overloaded
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    """Base of every error the service reports to clients."""

    status: ClassVar[int] = 500
    title: ClassVar[str | None] = None

    def __init__(
        self, detail: str, *, headers: dict[str, str] | None = None, **extensions: Any
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers = headers or {}
        self.extensions = extensions


class InvalidRequest(DomainError):
    """The request cannot be served as sent; nothing was charged."""

    status = 400

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail, code="invalid_params", retryable=False, **extensions)


class InvalidParameter(InvalidRequest):
    """One parameter is unknown, repeated, missing or out of range."""

    def __init__(self, parameter: str, detail: str, **extensions: Any) -> None:
        super().__init__(detail, parameter=parameter, **extensions)


class Unauthenticated(DomainError):
    """No usable credentials. `invalid` tells a wrong key from a missing one."""

    status = 401

    def __init__(self, detail: str, *, invalid: bool) -> None:
        headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'} if invalid else {}
        super().__init__(detail, headers=headers)
        self.invalid = invalid


class InsufficientCredits(DomainError):
    """The balance is below the price; nothing was charged."""

    status = 402
    title = "Insufficient credits"

    def __init__(self, balance: int, required: int, **extensions: Any) -> None:
        super().__init__(
            f"This needs {required} credit{'s' if required != 1 else ''} and the balance is "
            f"{balance}. Buy credits, then retry.",
            balance=balance,
            required_credits=required,
            **extensions,
        )
        self.balance = balance
        self.required = required


class PlanLimitReached(DomainError):
    """The plan's distinct-vehicle cap for this month is reached; nothing was charged."""

    status = 402
    title = "Plan limit reached"


class Forbidden(DomainError):
    """Authenticated, but not allowed to do this."""

    status = 403


class NotFound(DomainError):
    """What the request names does not exist (in the catalog, or at all)."""

    status = 404


class Conflict(DomainError):
    """The request conflicts with the current state."""

    status = 409


class Exhausted(DomainError):
    """A capped delivery URL reached its max_uses; mint a new one."""

    status = 410


class PayloadTooLarge(DomainError):
    """The request body is over the endpoint's limit."""

    status = 413


class RateLimited(DomainError):
    """A rate window or a render share is spent; retry after `retry_after` seconds."""

    status = 429

    def __init__(self, detail: str, retry_after: int, **extensions: Any) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after)}, **extensions)
        self.retry_after = retry_after


class RenderFailed(DomainError):
    """The render failed; any credit charged for it was refunded."""

    status = 502


class Unavailable(DomainError):
    """A dependency is down or overloaded; nothing was charged."""

    status = 503
