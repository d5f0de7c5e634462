"""Device login codes in SQL: digests only, state changes as conditional updates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, cast

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from carimg.store.db import Database
from carimg.store.tables import device_codes

DeviceCodeState = Literal["pending", "approved", "denied", "consumed"]


@dataclass(frozen=True, slots=True)
class DeviceCode:
    """A stored device login code: never the codes themselves, never a key."""

    id: str
    client_name: str
    state: DeviceCodeState
    interval_seconds: int
    created_at: datetime
    expires_at: datetime
    last_polled_at: datetime | None
    account_id: str | None
    decided_at: datetime | None
    key_id: str | None


class DuplicateCode(Exception):
    """A device or user code digest is already stored (draw new codes)."""


def _record(row: Mapping[Any, Any]) -> DeviceCode:
    return DeviceCode(
        id=row["id"],
        client_name=row["client_name"],
        state=cast(DeviceCodeState, row["state"]),
        interval_seconds=int(row["interval_seconds"]),
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        last_polled_at=row["last_polled_at"],
        account_id=row["account_id"],
        decided_at=row["decided_at"],
        key_id=row["key_id"],
    )


class DeviceCodeStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def add(self, code: DeviceCode, *, device_code_hash: str, user_code_hash: str) -> None:
        try:
            async with self._db.write.begin() as conn:
                await conn.execute(
                    insert(device_codes).values(
                        id=code.id,
                        device_code_hash=device_code_hash,
                        user_code_hash=user_code_hash,
                        client_name=code.client_name,
                        state=code.state,
                        interval_seconds=code.interval_seconds,
                        created_at=code.created_at,
                        expires_at=code.expires_at,
                    )
                )
        except IntegrityError as error:
            raise DuplicateCode from error

    async def purge(self, before: datetime) -> None:
        """Forget codes that expired before `before`."""
        async with self._db.write.begin() as conn:
            await conn.execute(delete(device_codes).where(device_codes.c.expires_at < before))

    async def by_device_hash(self, digest: str) -> DeviceCode | None:
        return await self._one(device_codes.c.device_code_hash == digest)

    async def by_user_hash(self, digest: str) -> DeviceCode | None:
        return await self._one(device_codes.c.user_code_hash == digest)

    async def by_id(self, code_id: str) -> DeviceCode | None:
        return await self._one(device_codes.c.id == code_id)

    async def _one(self, condition: Any) -> DeviceCode | None:
        async with self._db.read.connect() as conn:
            row = (await conn.execute(select(device_codes).where(condition))).first()
        return _record(row._mapping) if row else None

    async def record_poll(
        self, code: DeviceCode, now: datetime, *, interval_seconds: int | None = None
    ) -> bool:
        """Note a poll of a pending code, unless another poll was noted since `code` was read."""
        last = device_codes.c.last_polled_at
        seen = last.is_(None) if code.last_polled_at is None else last == code.last_polled_at
        values: dict[str, Any] = {"last_polled_at": now}
        if interval_seconds is not None:
            values["interval_seconds"] = interval_seconds
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(device_codes)
                .where(device_codes.c.id == code.id, device_codes.c.state == "pending", seen)
                .values(**values)
            )
        return result.rowcount == 1

    async def decide(
        self,
        user_code_hash: str,
        state: Literal["approved", "denied"],
        now: datetime,
        *,
        account_id: str | None = None,
    ) -> bool:
        """Approve or deny a pending, unexpired code; False when there is none."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(device_codes)
                .where(
                    device_codes.c.user_code_hash == user_code_hash,
                    device_codes.c.state == "pending",
                    device_codes.c.expires_at > now,
                )
                .values(state=state, account_id=account_id, decided_at=now)
            )
        return result.rowcount == 1

    async def claim(self, code_id: str, now: datetime) -> bool:
        """Move an approved, unexpired code to consumed; only one caller can win."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(device_codes)
                .where(
                    device_codes.c.id == code_id,
                    device_codes.c.state == "approved",
                    device_codes.c.expires_at > now,
                )
                .values(state="consumed")
            )
        return result.rowcount == 1

    async def set_state(
        self, code_id: str, state: DeviceCodeState, *, key_id: str | None = None
    ) -> None:
        """After a claim: release it (approved), refuse it (denied) or note the key it made."""
        values: dict[str, Any] = {"state": state}
        if key_id is not None:
            values["key_id"] = key_id
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(device_codes).where(device_codes.c.id == code_id).values(**values)
            )
