"""Domain exceptions. Each names its HTTP meaning once; the API layer turns them into problems.

DomainError
├── InvalidRequest          400  bad, unknown or repeated parameters, malformed bodies
│   └── InvalidParameter    400  one named parameter (`parameter`, `allowed`)
├── NotFound                404  vehicle or make or model not in the catalog
└── PayloadTooLarge         413  body over the endpoint's limit
"""

from __future__ import annotations

from typing import Any, ClassVar


class DomainError(Exception):
    """Base of every error the service reports to clients."""

    status: ClassVar[int] = 500

    def __init__(self, detail: str, **extensions: Any) -> None:
        super().__init__(detail)
        self.detail = detail
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


class NotFound(DomainError):
    """What the request names does not exist (in the catalog, or at all)."""

    status = 404


class PayloadTooLarge(DomainError):
    """The request body is over the endpoint's limit."""

    status = 413
