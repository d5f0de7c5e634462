"""Web sign-in in SQL: password hashes, browser sessions, password-reset tokens, key last use.

Sessions and reset tokens are stored as SHA-256 digests of the secrets the browser holds.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select, update

from carimg.store.db import Database
from carimg.store.tables import api_keys, password_resets, web_passwords, web_sessions


class CredentialStore:
    """Passwords, sessions and reset tokens of web accounts."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- passwords -------------------------------------------------------------------------------

    async def password_hash(self, account_id: str) -> str | None:
        query = select(web_passwords.c.password_hash).where(
            web_passwords.c.account_id == account_id
        )
        async with self._db.read.connect() as conn:
            value = await conn.scalar(query)
        return str(value) if value is not None else None

    async def set_password_hash(self, account_id: str, password_hash: str, now: datetime) -> None:
        """Insert or replace the account's hash."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(web_passwords)
                .where(web_passwords.c.account_id == account_id)
                .values(password_hash=password_hash, updated_at=now)
            )
            if not result.rowcount:
                await conn.execute(
                    insert(web_passwords).values(
                        account_id=account_id, password_hash=password_hash, updated_at=now
                    )
                )

    # -- sessions --------------------------------------------------------------------------------

    async def add_session(
        self, id_hash: str, account_id: str, now: datetime, expires_at: datetime
    ) -> None:
        async with self._db.write.begin() as conn:
            # Expired sessions of this account go when it signs in again: the table stays small.
            await conn.execute(
                delete(web_sessions).where(
                    web_sessions.c.account_id == account_id, web_sessions.c.expires_at <= now
                )
            )
            await conn.execute(
                insert(web_sessions).values(
                    id_hash=id_hash, account_id=account_id, created_at=now, expires_at=expires_at
                )
            )

    async def session_account(self, id_hash: str, now: datetime) -> str | None:
        """The account of a live session, or None when it ended or expired."""
        query = select(web_sessions.c.account_id).where(
            web_sessions.c.id_hash == id_hash, web_sessions.c.expires_at > now
        )
        async with self._db.read.connect() as conn:
            value = await conn.scalar(query)
        return str(value) if value is not None else None

    async def end_session(self, id_hash: str) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(delete(web_sessions).where(web_sessions.c.id_hash == id_hash))

    async def end_sessions_of(self, account_id: str) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(delete(web_sessions).where(web_sessions.c.account_id == account_id))

    # -- password resets -------------------------------------------------------------------------

    async def add_reset(
        self, token_hash: str, account_id: str, now: datetime, expires_at: datetime
    ) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                delete(password_resets).where(
                    password_resets.c.account_id == account_id,
                    password_resets.c.expires_at <= now,
                )
            )
            await conn.execute(
                insert(password_resets).values(
                    token_hash=token_hash,
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires_at,
                    used_at=None,
                )
            )

    async def reset_account(self, token_hash: str, now: datetime) -> str | None:
        """The account of an unused, unexpired reset token."""
        query = select(password_resets.c.account_id).where(
            password_resets.c.token_hash == token_hash,
            password_resets.c.used_at.is_(None),
            password_resets.c.expires_at > now,
        )
        async with self._db.read.connect() as conn:
            value = await conn.scalar(query)
        return str(value) if value is not None else None

    async def use_reset(self, token_hash: str, now: datetime) -> str | None:
        """Spend a reset token (one use, every other token of the account too); its account,
        or None when it was unknown, used or expired."""
        async with self._db.write.begin() as conn:
            account_id = await conn.scalar(
                select(password_resets.c.account_id).where(
                    password_resets.c.token_hash == token_hash,
                    password_resets.c.used_at.is_(None),
                    password_resets.c.expires_at > now,
                )
            )
            if account_id is None:
                return None
            result = await conn.execute(
                update(password_resets)
                .where(
                    password_resets.c.token_hash == token_hash, password_resets.c.used_at.is_(None)
                )
                .values(used_at=now)
            )
            if not result.rowcount:
                return None  # a concurrent use won
            await conn.execute(
                update(password_resets)
                .where(
                    password_resets.c.account_id == account_id,
                    password_resets.c.used_at.is_(None),
                )
                .values(used_at=now)
            )
        return str(account_id)

    # -- keys ------------------------------------------------------------------------------------

    async def keys_last_used(self, account_id: str) -> dict[str, datetime]:
        """When each of the account's keys was last used (keys never used are absent)."""
        query = select(api_keys.c.id, api_keys.c.last_used_at).where(
            api_keys.c.account_id == account_id, api_keys.c.last_used_at.is_not(None)
        )
        async with self._db.read.connect() as conn:
            return {row.id: row.last_used_at for row in await conn.execute(query)}
