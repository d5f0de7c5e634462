"""Strict query strings: unknown or repeated parameters are errors; tracking tags are ignored."""

from __future__ import annotations

from collections import Counter
from typing import Final

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from carimg.domain.errors import InvalidParameter, Unauthenticated

IGNORED_HEADER = "X-Ignored-Parameters"
# Tracking tags and cache busters that links pick up on the way; they never change a response.
TRACKING_PARAMETERS: Final = frozenset(
    {
        "gclid", "fbclid", "msclkid", "dclid", "yclid", "igshid", "mc_cid", "mc_eid",
        "ref", "ref_src", "source", "v", "t", "_", "cb", "cachebuster", "nocache", "ts",
    }
)  # fmt: skip
TRACKING_PREFIXES: Final = ("utm_",)
# Where keys leak into URLs; the versioned API never reads a key from the query string.
KEY_PARAMETERS: Final = frozenset({"key", "api_key", "apikey", "api-key", "x-api-key", "token"})


def _is_tracking(name: str) -> bool:
    return name in TRACKING_PARAMETERS or name.startswith(TRACKING_PREFIXES)


def allowed_parameters(route: APIRoute) -> list[str]:
    """The query names a route reads, taken from its declared parameters and dependencies."""
    names: set[str] = set()
    pending: list[Dependant] = [route.dependant]
    while pending:
        dependant = pending.pop()
        names.update(param.alias for param in dependant.query_params)
        pending.extend(dependant.dependencies)
    return sorted(names)


async def check_query(request: Request) -> None:
    """Reject unknown and repeated parameters; remember ignored tracking tags for the response."""
    route = request.scope.get("route")
    allowed = allowed_parameters(route) if isinstance(route, APIRoute) else []
    counts = Counter(name for name, _ in request.query_params.multi_items())
    ignored: list[str] = []
    for name, count in counts.items():
        if name not in allowed:
            if name.lower() in KEY_PARAMETERS:
                raise Unauthenticated(
                    f"API keys are never accepted in the query string ('{name}'); send "
                    "'Authorization: Bearer cimg_…' or 'x-api-key'. Treat this key as exposed.",
                    invalid=False,
                )
            if _is_tracking(name):
                ignored.append(name)
                continue
            raise InvalidParameter(
                name,
                f"Unknown parameter '{name}'. This endpoint reads: {', '.join(allowed) or 'none'}.",
                allowed=allowed,
            )
        if count > 1:
            raise InvalidParameter(name, f"Parameter '{name}' is repeated; send it once.")
    request.state.ignored_parameters = ignored


StrictQuery = Depends(check_query)
