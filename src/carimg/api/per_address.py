"""Per-address limits of public endpoints, which have no key to count requests against."""

from __future__ import annotations

from fastapi import Depends, Request

from carimg.domain.errors import RateLimited
from carimg.domain.ratelimit import address_key, per_address
from carimg.services import Services


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def retry_after(services: Services, request: Request, kind: str, limit: int) -> int | None:
    """Count this request of `kind` from its address: None while within `limit` a minute, else
    the seconds until the next window."""
    return await per_address(services.counters, services.clock, kind, client_ip(request), limit)


async def _catalog_rate(request: Request) -> None:
    """The free catalog endpoints' per-address window (`catalog_requests_per_minute`, 429)."""
    services: Services = request.app.state.services
    limit = services.settings.catalog_requests_per_minute
    wait = await per_address(
        services.counters, services.clock, "catalog", address_key(client_ip(request)), limit
    )
    if wait is not None:
        raise RateLimited(
            f"More than {limit} catalog requests a minute from this address; retry in {wait} s.",
            retry_after=wait,
        )


CatalogRate = Depends(_catalog_rate)
