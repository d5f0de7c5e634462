"""Accounts and API keys in SQL."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from carimg.store.db import Database
from carimg.store.inline import ReadCache, Statement
from carimg.store.ledger import insert_entry
from carimg.store.records import Account, AccountStatus, ApiKey
from carimg.store.tables import accounts, api_keys


def _account(row: Mapping[Any, Any]) -> Account:
    return Account(
        id=row["id"],
        email=row["email"],
        plan=row["plan"],
        status=cast(AccountStatus, row["status"]),
        created_at=row["created_at"],
    )


def _key(row: Mapping[Any, Any]) -> ApiKey:
    return ApiKey(
        id=row["id"],
        account_id=row["account_id"],
        name=row["name"],
        prefix=row["prefix"],
        scopes=tuple(row["scopes"].split()),
        origins=tuple(row["origins"].split()),
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
        rate_limit_per_minute=row["rate_limit_per_minute"],
    )


# An account as `Account` holds it: everything but the balance (which the ledger keeps).
_ACCOUNT_COLUMNS = [column for column in accounts.c if column.name != "credits"]

# Every authenticated request makes this read: compiled once (see carimg.store.inline).
_KEY_WITH_ACCOUNT = Statement(
    select(api_keys, *[c.label(f"acct__{c.name}") for c in _ACCOUNT_COLUMNS])
    .join(accounts, accounts.c.id == api_keys.c.account_id)
    .where(api_keys.c.hash == bindparam("hash"))
)

_TOUCH_KEY = Statement(
    update(api_keys)
    .where(api_keys.c.id == bindparam("key_id"))
    .values(last_used_at=bindparam("used_at"))
)

_KEY_BY_HASH = Statement(select(api_keys).where(api_keys.c.hash == bindparam("hash")))
_ACCOUNT_BY_ID = Statement(select(*_ACCOUNT_COLUMNS).where(accounts.c.id == bindparam("id")))

KEY_USE_RESOLUTION = timedelta(minutes=1)  # a key's last use is recorded to the minute


def _key_or_none(row: Mapping[Any, Any] | None) -> ApiKey | None:
    return None if row is None else _key(row)


def _account_or_none(row: Mapping[Any, Any] | None) -> Account | None:
    return None if row is None else _account(row)


class AccountExists(Exception):
    """An account with this e-mail address already exists."""


class TooManyKeys(Exception):
    """The account already holds the most active keys allowed."""


class AccountStore:
    """Accounts and their keys."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._touched: dict[str, datetime] = {}
        self._keys: ReadCache[ApiKey] | None = None
        self._accounts: ReadCache[Account] | None = None
        if db.inline is not None:
            # fresh: a key revoked by another process (a worker, `carimg admin`) is refused on
            # the next request, not within 5 ms; one PRAGMA is little beside a paid request
            self._keys = ReadCache(db.inline, ("api_keys",), fresh=True)
            # a debit changes only the balance, which `Account` leaves out: a paid request's
            # debit does not evict its account (see BALANCE_ONLY in carimg.store.ledger)
            self._accounts = ReadCache(db.inline, ("accounts",))

    async def create(
        self, *, account_id: str, email: str, plan: str, credits: int, now: datetime
    ) -> Account:
        """A new account whose opening balance is one `grant` ledger entry."""
        try:
            async with self._db.write.begin() as conn:
                await conn.execute(
                    insert(accounts).values(
                        id=account_id,
                        email=email,
                        plan=plan,
                        status="active",
                        credits=credits,
                        created_at=now,
                    )
                )
                if credits:
                    await insert_entry(
                        conn,
                        account_id,
                        "grant",
                        credits,
                        credits,
                        f"grant:signup:{account_id}",
                        "opening credits",
                        now,
                    )
        except IntegrityError as error:
            raise AccountExists(email) from error
        account = await self.by_id(account_id)
        assert account is not None
        return account

    async def by_id(self, account_id: str) -> Account | None:
        async with self._db.read.connect() as conn:
            row = (await conn.execute(select(accounts).where(accounts.c.id == account_id))).first()
        return _account(row._mapping) if row else None

    async def by_email(self, email: str) -> Account | None:
        async with self._db.read.connect() as conn:
            query = select(accounts).where(func.lower(accounts.c.email) == email.lower())
            row = (await conn.execute(query)).first()
        return _account(row._mapping) if row else None

    async def set_status(self, account_id: str, status: AccountStatus) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(status=status)
            )

    async def set_plan(self, account_id: str, plan: str) -> None:
        async with self._db.write.begin() as conn:
            await conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(plan=plan)
            )

    # -- keys ----------------------------------------------------------------------------------

    async def add_key(self, key: ApiKey, key_hash: str, *, max_active: int) -> None:
        """Store a key unless the account already holds `max_active` active ones."""
        async with self._db.write.begin() as conn:
            # Lock the account row so two concurrent creations cannot both pass the count. The
            # no-op change is to a column no foreign key refers to: setting `id`, even to itself,
            # makes SQLite look through every table that refers to accounts.
            await conn.execute(
                update(accounts).where(accounts.c.id == key.account_id).values(plan=accounts.c.plan)
            )
            active = await conn.scalar(
                select(func.count())
                .select_from(api_keys)
                .where(
                    api_keys.c.account_id == key.account_id,
                    api_keys.c.revoked_at.is_(None),
                    api_keys.c.kind == "key",  # connected apps' rows do not count
                )
            )
            if (active or 0) >= max_active:
                raise TooManyKeys(key.account_id)
            await conn.execute(
                insert(api_keys).values(
                    id=key.id,
                    account_id=key.account_id,
                    name=key.name,
                    prefix=key.prefix,
                    hash=key_hash,
                    scopes=" ".join(key.scopes),
                    origins=" ".join(key.origins),
                    created_at=key.created_at,
                    revoked_at=None,
                    rate_limit_per_minute=key.rate_limit_per_minute,
                )
            )

    async def key_with_account(self, key_hash: str) -> tuple[ApiKey, Account] | None:
        """The key with this SHA-256 (active or revoked) and its account."""
        if self._keys is not None and self._accounts is not None:
            # SQLite: the key and its account, each read once while unchanged
            inline = self._keys.inline
            key = self._keys.read(
                key_hash, lambda: _key_or_none(inline.first(_KEY_BY_HASH, hash=key_hash))
            )
            if key is None:
                return None
            account_id = key.account_id
            account = self._accounts.read(
                account_id, lambda: _account_or_none(inline.first(_ACCOUNT_BY_ID, id=account_id))
            )
            return None if account is None else (key, account)
        row = await self._db.first(_KEY_WITH_ACCOUNT, hash=key_hash)
        if row is None:
            return None
        return _key(row), _account({c.name: row[f"acct__{c.name}"] for c in _ACCOUNT_COLUMNS})

    async def touch_key(self, key_id: str, now: datetime) -> None:
        """Record that a key was used, at most once a minute per key and process, so the paid
        image path stays a read almost always."""
        last = self._touched.get(key_id)
        if last is not None and now - last < KEY_USE_RESOLUTION:
            return
        if len(self._touched) >= 100_000:
            self._touched.clear()
        self._touched[key_id] = now
        await self._db.change(_TOUCH_KEY, key_id=key_id, used_at=now)

    async def key(self, key_id: str) -> ApiKey | None:
        async with self._db.read.connect() as conn:
            row = (await conn.execute(select(api_keys).where(api_keys.c.id == key_id))).first()
        return _key(row._mapping) if row else None

    async def keys_of(self, account_id: str) -> list[ApiKey]:
        query = (
            select(api_keys)
            .where(api_keys.c.account_id == account_id, api_keys.c.kind == "key")
            .order_by(api_keys.c.created_at, api_keys.c.id)
        )
        async with self._db.read.connect() as conn:
            return [_key(row._mapping) for row in await conn.execute(query)]

    async def revoke_key(self, key_id: str, now: datetime) -> bool:
        """Revoke an active key; False when it is unknown or already revoked."""
        async with self._db.write.begin() as conn:
            result = await conn.execute(
                update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=now)
            )
        return bool(result.rowcount)
