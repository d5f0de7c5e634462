"""CORS for the endpoints browser-based agent hosts call from their own origin: OAuth discovery,
registration, token and revocation, and `/api/mcp`.

Their credentials travel in `Authorization` (or the request body), never in cookies, so any
origin may call them and no `Access-Control-Allow-Credentials` is sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from starlette.responses import Response

from carimg.domain.errors import DomainError

CORS = {
    "Access-Control-Allow-Origin": "*",
    # WWW-Authenticate starts OAuth discovery; the rest are what a client paces itself by.
    "Access-Control-Expose-Headers": (
        "WWW-Authenticate, Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, "
        "RateLimit-Reset, Mcp-Session-Id, Mcp-Protocol-Version"
    ),
}
PREFLIGHT = CORS | {
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": (
        "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, "
        "Last-Event-ID, X-Request-Id"
    ),
    "Access-Control-Max-Age": "86400",
}


def preflight() -> Response:
    """The answer to a CORS preflight (`OPTIONS`)."""
    return Response(status_code=204, headers=PREFLIGHT)


@contextmanager
def cors_on_errors() -> Iterator[None]:
    """Problem documents raised inside carry the CORS headers too, so the page can read them."""
    try:
        yield
    except DomainError as error:
        error.headers |= CORS
        raise
