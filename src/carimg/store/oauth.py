"""OAuth clients, connections, authorization codes and tokens in SQL (secrets as digests).

A connection is backed by an `api_keys` row of kind "connection" (same id): the principal of a
connected app is then an account and a key like any other, so scopes, rate windows and the URLs
it mints behave as for keys, and revoking the connection revokes that row too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.store.accounts import _account, _key
from carimg.store.db import Database
from carimg.store.records import Principal
from carimg.store.tables import (
    accounts,
    api_keys,
    oauth_clients,
    oauth_codes,
    oauth_connections,
    oauth_tokens,
)

CONNECTION_KIND = "connection"
CONNECTION_PREFIX = "oauth"  # the display prefix of a connection's key row (never a real key)


@dataclass(frozen=True, slots=True)
class OAuthClient:
    id: str
    name: str
    secret_hash: str | None
    redirect_uris: tuple[str, ...]
    metadata: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Connection:
    id: str
    account_id: str
    client_id: str
    client_name: str
    redirect_uris: tuple[str, ...]
    scopes: tuple[str, ...]
    created_at: datetime
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class AuthorizationCode:
    connection_id: str
    redirect_uri: str
    code_challenge: str
    scopes: tuple[str, ...]
    resource: str | None
    expires_at: datetime
    client_id: str


@dataclass(frozen=True, slots=True)
class StoredToken:
    """A token with the connection it belongs to; `principal` is None once that is revoked."""

    kind: str
    connection_id: str
    client_id: str
    scopes: tuple[str, ...]
    expires_at: datetime
    revoked: bool
    principal: Principal | None


@dataclass(frozen=True, slots=True)
class ClientConnections:
    """An account's connections to one client: the active one as a principal (None when there
    is none) and when the latest revoked one ended."""

    active: Principal | None
    last_revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class NewToken:
    token_hash: str
    kind: str
    expires_at: datetime


_ACCOUNT_COLUMNS = [c.label(f"acct__{c.name}") for c in accounts.c]


def _principal(mapping: Mapping[Any, Any]) -> Principal:
    """The principal of a row holding an `api_keys` row and the `acct__` labelled account."""
    account = _account({c.name: mapping[f"acct__{c.name}"] for c in accounts.c})
    return Principal(account=account, key=_key(mapping))


def _client(row: Mapping[Any, Any]) -> OAuthClient:
    return OAuthClient(
        id=row["id"],
        name=row["name"],
        secret_hash=row["secret_hash"],
        redirect_uris=tuple(json.loads(row["redirect_uris"])),
        metadata=json.loads(row["metadata"]),
        created_at=row["created_at"],
    )


class OAuthStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    # -- clients -------------------------------------------------------------------------------

    async def add_client(self, client: OAuthClient) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(oauth_clients).values(
                    id=client.id,
                    name=client.name,
                    secret_hash=client.secret_hash,
                    redirect_uris=json.dumps(list(client.redirect_uris)),
                    metadata=json.dumps(client.metadata),
                    created_at=client.created_at,
                )
            )

    async def ensure_client(self, client: OAuthClient) -> None:
        """Register `client` unless its id is taken (clients known by an external provider)."""
        if await self.client(client.id) is not None:
            return
        with suppress(IntegrityError):  # registered meanwhile by a concurrent request
            await self.add_client(client)

    async def client(self, client_id: str) -> OAuthClient | None:
        async with self._db.read.connect() as conn:
            row = (
                await conn.execute(select(oauth_clients).where(oauth_clients.c.id == client_id))
            ).first()
        return _client(row._mapping) if row else None

    # -- connections ---------------------------------------------------------------------------

    async def connect(
        self,
        new_id: str,
        account_id: str,
        client: OAuthClient,
        scopes: tuple[str, ...],
        now: datetime,
    ) -> str:
        """The account's active connection to `client` with these scopes (made or updated)."""
        joined = " ".join(scopes)
        async with self._db.write.begin() as conn:
            existing = await conn.scalar(
                select(oauth_connections.c.id).where(
                    oauth_connections.c.account_id == account_id,
                    oauth_connections.c.client_id == client.id,
                    oauth_connections.c.revoked_at.is_(None),
                )
            )
            if existing is not None:
                await conn.execute(
                    update(oauth_connections)
                    .where(oauth_connections.c.id == existing)
                    .values(scopes=joined)
                )
                await conn.execute(
                    update(api_keys).where(api_keys.c.id == existing).values(scopes=joined)
                )
                return str(existing)
            await conn.execute(
                insert(api_keys).values(
                    id=new_id,
                    account_id=account_id,
                    name=client.name[:80],
                    prefix=CONNECTION_PREFIX,
                    hash=f"connection:{new_id}",  # never the digest of a presentable key
                    scopes=joined,
                    origins="",
                    created_at=now,
                    kind=CONNECTION_KIND,
                )
            )
            await conn.execute(
                insert(oauth_connections).values(
                    id=new_id,
                    account_id=account_id,
                    client_id=client.id,
                    key_id=new_id,
                    scopes=joined,
                    created_at=now,
                )
            )
        return new_id

    async def connections_of(self, account_id: str) -> list[Connection]:
        """The account's active connections, newest first."""
        query = (
            select(
                oauth_connections,
                oauth_clients.c.name.label("client_name"),
                oauth_clients.c.redirect_uris,
                api_keys.c.last_used_at,
            )
            .join(oauth_clients, oauth_clients.c.id == oauth_connections.c.client_id)
            .join(api_keys, api_keys.c.id == oauth_connections.c.key_id)
            .where(
                oauth_connections.c.account_id == account_id,
                oauth_connections.c.revoked_at.is_(None),
            )
            .order_by(oauth_connections.c.created_at.desc(), oauth_connections.c.id)
        )
        async with self._db.read.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            Connection(
                id=row.id,
                account_id=row.account_id,
                client_id=row.client_id,
                client_name=row.client_name,
                redirect_uris=tuple(json.loads(row.redirect_uris)),
                scopes=tuple(row.scopes.split()),
                created_at=row.created_at,
                last_used_at=row.last_used_at,
            )
            for row in rows
        ]

    async def connections_to(self, account_id: str, client_id: str) -> ClientConnections:
        """The account's active connection to a client, and when its last one was revoked."""
        query = (
            select(
                oauth_connections.c.revoked_at.label("connection_revoked_at"),
                api_keys,
                *_ACCOUNT_COLUMNS,
            )
            .join(api_keys, api_keys.c.id == oauth_connections.c.key_id)
            .join(accounts, accounts.c.id == oauth_connections.c.account_id)
            .where(
                oauth_connections.c.account_id == account_id,
                oauth_connections.c.client_id == client_id,
            )
        )
        async with self._db.read.connect() as conn:
            rows = [row._mapping for row in (await conn.execute(query)).all()]
        live = [r for r in rows if r["connection_revoked_at"] is None and r["revoked_at"] is None]
        active = _principal(live[0]) if live else None
        ended = [row["connection_revoked_at"] for row in rows if row["connection_revoked_at"]]
        return ClientConnections(active, max(ended, default=None))

    async def revoke_connection(self, account_id: str, connection_id: str, now: datetime) -> bool:
        """End a connection, its key row and every token at once; False when not found."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(oauth_connections)
                .where(
                    oauth_connections.c.id == connection_id,
                    oauth_connections.c.account_id == account_id,
                    oauth_connections.c.revoked_at.is_(None),
                )
                .values(revoked_at=now)
            )
            if not result.rowcount:
                return False
            await conn.execute(
                update(api_keys)
                .where(api_keys.c.id == connection_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
            await _revoke_tokens(conn, now, oauth_tokens.c.connection_id == connection_id)
        return True

    # -- codes ---------------------------------------------------------------------------------

    async def add_code(
        self,
        code_hash: str,
        connection_id: str,
        redirect_uri: str,
        code_challenge: str,
        scopes: tuple[str, ...],
        resource: str | None,
        expires_at: datetime,
    ) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(oauth_codes).values(
                    code_hash=code_hash,
                    connection_id=connection_id,
                    redirect_uri=redirect_uri,
                    code_challenge=code_challenge,
                    scopes=" ".join(scopes),
                    resource=resource,
                    expires_at=expires_at,
                )
            )

    async def take_code(
        self, code_hash: str, now: datetime
    ) -> tuple[AuthorizationCode, bool] | None:
        """The code and whether this was its first use (it is marked used either way)."""
        query = (
            select(oauth_codes, oauth_connections.c.client_id)
            .join(oauth_connections, oauth_connections.c.id == oauth_codes.c.connection_id)
            .where(oauth_codes.c.code_hash == code_hash)
        )
        async with self._db.write.begin() as conn:
            row = (await conn.execute(query)).first()
            if row is None:
                return None
            first = await conn.execute(
                update(oauth_codes)
                .where(oauth_codes.c.code_hash == code_hash, oauth_codes.c.used_at.is_(None))
                .values(used_at=now)
            )
        code = AuthorizationCode(
            connection_id=row.connection_id,
            redirect_uri=row.redirect_uri,
            code_challenge=row.code_challenge,
            scopes=tuple(row.scopes.split()),
            resource=row.resource,
            expires_at=row.expires_at,
            client_id=row.client_id,
        )
        return code, bool(first.rowcount)

    # -- tokens --------------------------------------------------------------------------------

    async def add_tokens(
        self,
        connection_id: str,
        scopes: tuple[str, ...],
        tokens: list[NewToken],
    ) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                insert(oauth_tokens),
                [
                    {
                        "token_hash": token.token_hash,
                        "kind": token.kind,
                        "connection_id": connection_id,
                        "scopes": " ".join(scopes),
                        "expires_at": token.expires_at,
                    }
                    for token in tokens
                ],
            )

    async def token(self, token_hash: str) -> StoredToken | None:
        """A token, its connection's client, and (while the connection lives) its principal."""
        query = (
            select(
                oauth_tokens.c.kind,
                oauth_tokens.c.connection_id,
                oauth_tokens.c.scopes.label("token_scopes"),
                oauth_tokens.c.expires_at,
                oauth_tokens.c.revoked_at.label("token_revoked_at"),
                oauth_connections.c.client_id,
                oauth_connections.c.revoked_at.label("connection_revoked_at"),
                api_keys,
                *_ACCOUNT_COLUMNS,
            )
            .join(oauth_connections, oauth_connections.c.id == oauth_tokens.c.connection_id)
            .join(api_keys, api_keys.c.id == oauth_connections.c.key_id)
            .join(accounts, accounts.c.id == oauth_connections.c.account_id)
            .where(oauth_tokens.c.token_hash == token_hash)
        )
        async with self._db.read.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        mapping = row._mapping
        principal = None
        if mapping["connection_revoked_at"] is None and mapping["revoked_at"] is None:
            principal = _principal(mapping)
        return StoredToken(
            kind=mapping["kind"],
            connection_id=mapping["connection_id"],
            client_id=mapping["client_id"],
            scopes=tuple(mapping["token_scopes"].split()),
            expires_at=mapping["expires_at"],
            revoked=mapping["token_revoked_at"] is not None,
            principal=principal,
        )

    async def use_token(self, token_hash: str, now: datetime) -> bool:
        """Revoke one token; True only for the call that revoked it (a refresh is used once)."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(oauth_tokens)
                .where(oauth_tokens.c.token_hash == token_hash, oauth_tokens.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return bool(result.rowcount)

    async def revoke_connection_tokens(self, connection_id: str, now: datetime) -> None:
        async with self._db.write.begin() as conn:
            await _revoke_tokens(conn, now, oauth_tokens.c.connection_id == connection_id)


async def _revoke_tokens(conn: AsyncConnection, now: datetime, condition: Any) -> None:
    await conn.execute(
        update(oauth_tokens)
        .where(condition, oauth_tokens.c.revoked_at.is_(None))
        .values(revoked_at=now)
    )
