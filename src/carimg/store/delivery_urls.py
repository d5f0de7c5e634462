"""Signed delivery URLs in SQL: minted rows, lookups by token hash, atomic use counting."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.store.db import Database
from carimg.store.inline import ReadCache, Statement
from carimg.store.tables import api_keys, delivery_urls


@dataclass(frozen=True, slots=True)
class DeliveryUrlRow:
    """A minted URL as stored, with what its minting key says now (revoked? origins?)."""

    id: str
    account_id: str
    key_id: str
    params: dict[str, Any]
    created_at: datetime
    expires_at: datetime
    ttl_seconds: int
    max_uses: int
    uses: int
    state: str
    delivered: bool
    debit_reference: str
    renew_until: datetime | None
    key_revoked: bool
    key_origins: tuple[str, ...]

    @property
    def restricted(self) -> bool:
        """The minting key limits where the image may be shown."""
        return bool(self.key_origins)


@dataclass(frozen=True, slots=True)
class NewDeliveryUrl:
    id: str
    token_hash: str
    key_id: str
    params: dict[str, Any]
    created_at: datetime
    expires_at: datetime
    ttl_seconds: int
    max_uses: int
    renew_until: datetime | None


def _row(mapping: Mapping[Any, Any]) -> DeliveryUrlRow:
    return DeliveryUrlRow(
        id=mapping["id"],
        account_id=mapping["account_id"],
        key_id=mapping["key_id"],
        params=json.loads(mapping["params"]),
        created_at=mapping["created_at"],
        expires_at=mapping["expires_at"],
        ttl_seconds=int(mapping["ttl_seconds"]),
        max_uses=int(mapping["max_uses"]),
        uses=int(mapping["uses"]),
        state=mapping["state"],
        delivered=bool(mapping["delivered"]),
        debit_reference=mapping["debit_reference"],
        renew_until=mapping["renew_until"],
        key_revoked=mapping["key_revoked_at"] is not None,
        key_origins=tuple(mapping["key_origins"].split()),
    )


# Every load makes this read: compiled once (see carimg.store.inline).
_BY_TOKEN_HASH = Statement(
    select(
        delivery_urls,
        api_keys.c.revoked_at.label("key_revoked_at"),
        api_keys.c.origins.label("key_origins"),
    )
    .join(api_keys, api_keys.c.id == delivery_urls.c.key_id)
    .where(delivery_urls.c.token_hash == bindparam("token_hash"))
)


def _row_or_none(mapping: Mapping[Any, Any] | None) -> DeliveryUrlRow | None:
    return None if mapping is None else _row(mapping)


class DeliveryUrlStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._rows: ReadCache[DeliveryUrlRow] | None = (
            None if db.inline is None else ReadCache(db.inline, ("delivery_urls", "api_keys"))
        )

    @staticmethod
    async def insert_all(
        conn: AsyncConnection, account_id: str, reference: str, urls: Sequence[NewDeliveryUrl]
    ) -> None:
        """Insert minted URLs on the connection of the debit that pays for them."""
        await conn.execute(
            insert(delivery_urls),
            [
                {
                    "id": url.id,
                    "token_hash": url.token_hash,
                    "account_id": account_id,
                    "key_id": url.key_id,
                    "params": json.dumps(url.params, sort_keys=True),
                    "created_at": url.created_at,
                    "expires_at": url.expires_at,
                    "ttl_seconds": url.ttl_seconds,
                    "max_uses": url.max_uses,
                    "uses": 0,
                    "state": "valid",
                    "delivered": 0,
                    "debit_reference": reference,
                    "renew_until": url.renew_until,
                }
                for url in urls
            ],
        )

    def cached_by_token_hash(self, token_hash: str) -> DeliveryUrlRow | None:
        """`by_token_hash` when its row is cached and unchanged, else None (nothing is read)."""
        return None if self._rows is None else self._rows.peek(token_hash)

    def snapshot(self) -> tuple[int, ...] | None:
        """Equal while no row `cached_by_token_hash` could return has changed (None: rows are
        never cached)."""
        return None if self._rows is None else self._rows.snapshot()

    async def by_token_hash(self, token_hash: str) -> DeliveryUrlRow | None:
        if self._rows is not None:  # every page view of a URL: read once while unchanged
            inline = self._rows.inline
            return self._rows.read(
                token_hash,
                lambda: _row_or_none(inline.first(_BY_TOKEN_HASH, token_hash=token_hash)),
            )
        return _row_or_none(await self._db.first(_BY_TOKEN_HASH, token_hash=token_hash))

    async def claim_use(self, url_id: str) -> bool:
        """Count one load of a capped URL; False once its loads reached max_uses."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(delivery_urls)
                .where(
                    delivery_urls.c.id == url_id,
                    delivery_urls.c.state == "valid",
                    delivery_urls.c.uses < delivery_urls.c.max_uses,
                )
                .values(uses=delivery_urls.c.uses + 1)
            )
        return bool(result.rowcount)

    async def release_use(self, url_id: str) -> None:
        """Give back a counted load that delivered nothing (dependency down)."""
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(delivery_urls)
                .where(delivery_urls.c.id == url_id, delivery_urls.c.uses > 0)
                .values(uses=delivery_urls.c.uses - 1)
            )

    async def mark_delivered(self, url_id: str) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(delivery_urls)
                .where(delivery_urls.c.id == url_id, delivery_urls.c.delivered == 0)
                .values(delivered=1)
            )

    async def consume(self, url_id: str) -> bool:
        """A failed first load consumes the URL; True only for the load that consumed it."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(delivery_urls)
                .where(
                    delivery_urls.c.id == url_id,
                    delivery_urls.c.state == "valid",
                    delivery_urls.c.delivered == 0,
                )
                .values(state="consumed")
            )
        return bool(result.rowcount)

    async def extend(self, url_id: str, expires_at: datetime) -> None:
        """Move a renewing URL's expiry to the end of the window just paid for."""
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(delivery_urls)
                .where(delivery_urls.c.id == url_id, delivery_urls.c.expires_at < expires_at)
                .values(expires_at=expires_at)
            )
