"""Helpers shared by the minting, idempotency and delivery tests.

The render cache is shared by the whole run (tests/conftest.py); the database is per test.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from carimg.services import Services

IMAGE_URLS = "/api/v1/image-urls"
DELIVERY_PREFIX = "http://testserver/api/v1/delivery/"
# A variant every test may load: it renders once per run, then it is served from the cache.
THUMB: dict[str, Any] = {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb"}


async def mint(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    *images: dict[str, Any],
    **options: Any,
) -> httpx.Response:
    """POST /api/v1/image-urls: one image as a single body, several (or none) as a batch."""
    if len(images) == 1 and not options.pop("batch", False):
        body: dict[str, Any] = {**images[0], **options}
    else:
        options.pop("batch", None)
        body = {"images": list(images), **options}
    return await client.post(IMAGE_URLS, json=body, headers=headers)


async def mint_url(
    client: httpx.AsyncClient, headers: dict[str, str], image: dict[str, Any] | None = None,
    **options: Any,
) -> str:  # fmt: skip
    """One delivery URL's path (for the in-process client), minted from `image` (default THUMB)."""
    response = await mint(client, headers, image or THUMB, **options)
    assert response.status_code == 201, response.text
    return path_of(response.json()["data"][0]["url"])


def path_of(url: str) -> str:
    assert url.startswith(DELIVERY_PREFIX), url
    return url.removeprefix("http://testserver")


def token_of(url: str) -> str:
    return url.rsplit("/", 1)[1]


class RenderCalls:
    """Counts the render pool's calls; `fail_with` makes every call raise instead."""

    def __init__(self, services: Services) -> None:
        self.count = 0
        self.fail_with: BaseException | None = None
        pool = services.render_pool
        self._original: Callable[..., Awaitable[bytes]] = pool.render

        async def render(*args: Any) -> bytes:
            self.count += 1
            if self.fail_with is not None:
                raise self.fail_with
            return await self._original(*args)

        pool.render = render  # type: ignore[method-assign]


async def debits(services: Services, account_id: str) -> list[int]:
    """Amounts of the account's debits, oldest first."""
    return [e.amount for e in await services.ledger.entries(account_id) if e.kind == "debit"]


# Request validation does not depend on the database: such tests run on SQLite only.
sqlite_only = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
