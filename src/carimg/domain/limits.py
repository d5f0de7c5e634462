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
MIN_YEAR: Final = 1990
MAX_QUERY_YEAR: Final = 2027
JSON_INT_MAX: Final = 2**63 - 1  # the widest integer JSON is parsed to and written back from
