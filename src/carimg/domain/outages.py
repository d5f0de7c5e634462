"""The one way a dependency that does not answer becomes a 503.

The stores of outside dependencies raise `DependencyUnavailable` (`carimg.store.outage`); the
domain turns it into `Unavailable` here, where the client is told what could not be done, that
nothing was charged, and when to retry. The API layer knows only `DomainError`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from carimg.domain.errors import Unavailable
from carimg.store.blobs import BlobStoreError
from carimg.store.counters import Counters, CountersUnavailable
from carimg.store.jwks import ProviderUnavailable
from carimg.store.outage import DependencyUnavailable

logger = logging.getLogger("carimg.outages")


def unavailable(error: DependencyUnavailable) -> Unavailable:
    """The 503 a client gets for `error`."""
    logger.warning("%s: %s", type(error).__name__, error)
    if isinstance(error, CountersUnavailable):
        return Unavailable(
            "Rate windows and render budgets cannot be counted right now; nothing was charged. "
            "Retry.",
            headers={"Retry-After": "5"},
            retryable=True,
        )
    if isinstance(error, BlobStoreError):
        return Unavailable(
            "The image store is not answering; nothing was charged for this attempt. Retry.",
            headers={"Retry-After": "5"},
        )
    if isinstance(error, ProviderUnavailable):
        return Unavailable(
            f"The identity provider's signing keys cannot be read ({error}); nothing was "
            "charged. Retry shortly.",
            headers={"Retry-After": "10"},
        )
    return Unavailable(
        "A service carimg depends on is not answering; nothing was charged. Retry.",
        headers={"Retry-After": "5"},
    )


@contextmanager
def answering() -> Iterator[None]:
    """Run a store call whose outage is a 503 (`unavailable`)."""
    try:
        yield
    except DependencyUnavailable as error:
        raise unavailable(error) from error


class AnsweringCounters:
    """The counters the rules count with: the store's, whose outage is a 503."""

    def __init__(self, backend: Counters) -> None:
        self.backend = backend  # as the store answers (the health check probes it so)

    async def incr(self, key: str, amount: int, ttl_seconds: int) -> int:
        try:  # no context manager: every paid request counts twice
            return await self.backend.incr(key, amount, ttl_seconds)
        except DependencyUnavailable as error:
            raise unavailable(error) from error

    async def get(self, key: str) -> int:
        try:
            return await self.backend.get(key)
        except DependencyUnavailable as error:
            raise unavailable(error) from error

    async def close(self) -> None:
        await self.backend.close()
