"""Per-address limits of public endpoints, which have no key to count requests against."""

from __future__ import annotations

from fastapi import Request

from carimg.domain.ratelimit import per_address
from carimg.services import Services


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def retry_after(services: Services, request: Request, kind: str, limit: int) -> int | None:
    """Count this request of `kind` from its address: None while within `limit` a minute, else
    the seconds until the next window."""
    return await per_address(services.counters, services.clock, kind, client_ip(request), limit)
