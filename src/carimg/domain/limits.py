"""The spec's limits: rate windows per plan, body sizes, batch and search bounds."""

from __future__ import annotations

from typing import Final

RATE_WINDOW_SECONDS: Final = 60
KEY_REQUESTS_PER_MINUTE: Final[dict[str, int]] = {
    "free": 120,
    "pro": 120,
    "business": 600,
    "enterprise": 1200,
}
ACCOUNT_REQUESTS_PER_MINUTE: Final[dict[str, int]] = {
    "free": 240,
    "pro": 600,
    "business": 2000,
    "enterprise": 5000,
}
DEFAULT_PLAN: Final = "free"

SEARCH_QUERY_MAX: Final = 200
SEARCH_LIMIT_MAX: Final = 25
SEARCH_LIMIT_DEFAULT: Final = 10
JSON_INT_MAX: Final = 2**63 - 1  # the widest integer JSON is parsed to and written back from

# Request heads (bounded by every server carimg runs under, see api/headlimits)
MAX_HEADER_BYTES: Final = 32 * 1024  # all header names and values of one request together
MAX_HEADER_FIELD_BYTES: Final = 8 * 1024  # one header's name and value
MAX_REQUEST_TARGET_BYTES: Final = 8 * 1024  # the request line's target: path and query
MAX_HEADERS: Final = 100
HEADER_TIMEOUT_SECONDS: Final = (
    10.0  # from a request's first byte (or the connection's) to its headers' end
)

# Catalog searches (each year-like word is read as a possible year: one pass over the catalog)
SEARCH_WORDS_MAX: Final = 12
SEARCH_YEARS_MAX: Final = 2
CATALOG_REQUESTS_PER_MINUTE: Final = 600  # per address, /api/v1/vehicles and /api/v1/images/options
