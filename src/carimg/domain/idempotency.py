"""Idempotency-Key: a retry with the same key and body replays the first response, charged once.

Scoped to account and route, remembered 24 hours. A retry that overtakes the running original
gets 409 (Retry-After 2); the same key with another body gets 422. Failed requests are forgotten,
so a corrected retry runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.domain.clock import Clock
from carimg.domain.errors import Conflict, DomainError, InvalidParameter
from carimg.store.idempotency import IdempotencyStore

KEY_PATTERN: Final = re.compile(r"[A-Za-z0-9._:\-]{1,255}")
MEMORY: Final = timedelta(hours=24)
RETRY_AFTER_SECONDS: Final = 2


Recorder = Callable[[AsyncConnection, "RecordedResponse"], Awaitable[None]]


class KeyReused(DomainError):
    """The key was used with a different body within 24 hours."""

    status = 422


@dataclass(frozen=True, slots=True)
class RecordedResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    replayed: bool = False


def check_key(value: str) -> str:
    if not KEY_PATTERN.fullmatch(value):
        raise InvalidParameter(
            "Idempotency-Key",
            "Idempotency-Key must be 1–255 letters, digits or . _ : -",
        )
    return value


class Idempotency:
    def __init__(self, store: IdempotencyStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def run(
        self,
        account_id: str,
        route: str,
        key: str,
        body: bytes,
        handler: Callable[[Recorder], Awaitable[RecordedResponse]],
    ) -> RecordedResponse:
        """Run `handler` once per (account, route, key); replay its response afterwards.

        The handler gets a recorder to store its response on the transaction that charges for
        it; the response is also stored after the handler returns, for handlers that charge
        nothing.
        """

        async def record(conn: AsyncConnection, response: RecordedResponse) -> None:
            await self._store.complete_in(
                conn, account_id, route, key, response.status, response.headers, response.body
            )

        request_hash = hashlib.sha256(body).hexdigest()
        now = self._clock.now()
        await self._store.release(account_id, route, key, older_than=now - MEMORY)
        if not await self._store.claim(account_id, route, key, request_hash, now):
            return await self._existing(account_id, route, key, request_hash)
        try:
            response = await handler(record)
        except BaseException:
            await asyncio.shield(self._store.release(account_id, route, key))
            raise
        await self._store.complete(
            account_id, route, key, response.status, response.headers, response.body
        )
        return response

    async def _existing(
        self, account_id: str, route: str, key: str, request_hash: str
    ) -> RecordedResponse:
        stored = await self._store.get(account_id, route, key)
        if stored is None:  # released between our claim and this read: the original failed
            raise Conflict(
                "The first request with this Idempotency-Key just failed; retry.",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        if stored.request_hash != request_hash:
            raise KeyReused(
                "This Idempotency-Key was used with a different body in the last 24 hours; "
                "use a new key for a new request."
            )
        if stored.state != "done" or stored.status is None or stored.body is None:
            raise Conflict(
                "A request with this Idempotency-Key is still running; retry with the same key "
                "and body to get its response.",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        return RecordedResponse(stored.status, stored.headers, stored.body, replayed=True)
