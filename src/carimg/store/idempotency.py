"""Idempotency-Key records in SQL: claimed with an INSERT, so every process sees one owner.

Stored responses can hold delivery URLs (bearer tokens), so their bodies are encrypted at rest
with a key derived from the deployment's secret.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from datetime import datetime

from cryptography.fernet import Fernet, InvalidToken
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.store.db import Database
from carimg.store.tables import idempotency


@dataclass(frozen=True, slots=True)
class StoredResponse:
    request_hash: str
    state: str  # running | done
    status: int | None
    headers: dict[str, str]
    body: bytes | None
    created_at: datetime


class IdempotencyStore:
    def __init__(self, db: Database, secret_key: str) -> None:
        self._db = db
        digest = hashlib.sha256(f"carimg:idempotency:{secret_key}".encode()).digest()
        self._cipher = Fernet(base64.urlsafe_b64encode(digest))

    async def claim(
        self, account_id: str, route: str, key: str, request_hash: str, now: datetime
    ) -> bool:
        """True when this request now owns the key; False when a record exists."""
        try:
            async with self._db.write.begin() as conn:
                await conn.execute(
                    insert(idempotency).values(
                        account_id=account_id,
                        route=route,
                        key=key,
                        request_hash=request_hash,
                        state="running",
                        created_at=now,
                    )
                )
        except IntegrityError:
            return False
        return True

    async def get(self, account_id: str, route: str, key: str) -> StoredResponse | None:
        query = select(idempotency).where(
            idempotency.c.account_id == account_id,
            idempotency.c.route == route,
            idempotency.c.key == key,
        )
        async with self._db.read.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        mapping = row._mapping
        return StoredResponse(
            request_hash=mapping["request_hash"],
            state=mapping["state"],
            status=mapping["status"],
            headers=json.loads(mapping["headers"] or "{}"),
            body=self._decrypt(mapping["body"]),
            created_at=mapping["created_at"],
        )

    def _decrypt(self, stored: bytes | None) -> bytes | None:
        if stored is None:
            return None
        try:
            return self._cipher.decrypt(stored)
        except InvalidToken:  # written under another secret: as good as forgotten
            return None

    async def complete_in(
        self, conn: AsyncConnection, account_id: str, route: str, key: str, status: int,
        headers: dict[str, str], body: bytes,
    ) -> None:  # fmt: skip
        """Record the response on the caller's transaction (the one that charged for it)."""
        await conn.execute(
            update(idempotency)
            .where(
                idempotency.c.account_id == account_id,
                idempotency.c.route == route,
                idempotency.c.key == key,
            )
            .values(
                state="done",
                status=status,
                headers=json.dumps(headers),
                body=self._cipher.encrypt(body),
            )
        )

    async def complete(
        self, account_id: str, route: str, key: str, status: int, headers: dict[str, str],
        body: bytes,
    ) -> None:  # fmt: skip
        async with self._db.write.begin() as conn:
            await self.complete_in(conn, account_id, route, key, status, headers, body)

    async def release(
        self, account_id: str, route: str, key: str, *, older_than: datetime | None = None
    ) -> None:
        """Forget a record: after a failed request, or once it is past its memory."""
        condition = (
            (idempotency.c.account_id == account_id)
            & (idempotency.c.route == route)
            & (idempotency.c.key == key)
        )
        if older_than is not None:
            condition &= idempotency.c.created_at < older_than
        async with self._db.write.begin() as conn:
            await conn.execute(delete(idempotency).where(condition))
