"""Accounts and keys: sign-up grants, suspension, key creation, revocation and authentication."""

from __future__ import annotations

import hmac
import uuid

from carimg.domain import keys as key_rules
from carimg.domain.clock import Clock
from carimg.domain.errors import (
    Conflict,
    Forbidden,
    InvalidParameter,
    NotFound,
    Unauthenticated,
)
from carimg.domain.limits import ACCOUNT_REQUESTS_PER_MINUTE
from carimg.domain.pricing import FREE_CREDITS
from carimg.store.accounts import AccountExists, AccountStore, TooManyKeys
from carimg.store.ledger import LedgerStore
from carimg.store.records import Account, AccountStatus, ApiKey, Principal

PLANS = tuple(ACCOUNT_REQUESTS_PER_MINUTE)


class Accounts:
    """The account and key rules, over the account store and the ledger."""

    def __init__(self, store: AccountStore, ledger: LedgerStore, clock: Clock) -> None:
        self._store = store
        self._ledger = ledger
        self._clock = clock

    async def create_account(
        self, email: str, *, credits: int = FREE_CREDITS, plan: str = "free"
    ) -> Account:
        email = email.strip().lower()
        if "@" not in email or len(email) > 320:
            raise InvalidParameter("email", f"'{email}' is not an e-mail address.")
        if plan not in PLANS:
            raise InvalidParameter("plan", f"Plans are {', '.join(PLANS)}.")
        if credits < 0:
            raise InvalidParameter("credits", "Credits cannot be negative.")
        try:
            return await self._store.create(
                account_id=f"acc_{uuid.uuid4().hex}",
                email=email,
                plan=plan,
                credits=credits,
                now=self._clock.now(),
            )
        except AccountExists as error:
            raise Conflict(f"An account for {email} already exists.") from error

    async def by_email(self, email: str) -> Account:
        account = await self._store.by_email(email.strip())
        if account is None:
            raise NotFound(f"No account for {email}.")
        return account

    async def set_status(self, email: str, status: AccountStatus) -> Account:
        account = await self.by_email(email)
        await self._store.set_status(account.id, status)
        return await self.by_email(email)

    async def create_key(
        self,
        account: Account,
        *,
        scopes: tuple[str, ...] = key_rules.DEFAULT_SCOPES,
        origins: tuple[str, ...] = (),
        name: str = "",
        rate_limit_per_minute: int | None = None,
    ) -> tuple[str, ApiKey]:
        """A new key; returns the plaintext (shown once) and the stored record.

        `rate_limit_per_minute` is a key's own limit, which only an Enterprise agreement sets.
        """
        if rate_limit_per_minute is not None and (
            account.plan != "enterprise" or rate_limit_per_minute < 1
        ):
            raise InvalidParameter(
                "rate_limit", "A key's own rate limit is for Enterprise accounts (at least 1)."
            )
        origins = key_rules.check_origins(origins)
        scopes = key_rules.check_scopes(scopes, origins)
        plaintext = key_rules.new_key()
        record = ApiKey(
            id=f"key_{uuid.uuid4().hex[:20]}",
            account_id=account.id,
            name=name[:80],
            prefix=key_rules.display_prefix(plaintext),
            scopes=scopes,
            origins=origins,
            created_at=self._clock.now(),
            revoked_at=None,
            rate_limit_per_minute=rate_limit_per_minute,
        )
        try:
            await self._store.add_key(
                record, key_rules.key_hash(plaintext), max_active=key_rules.MAX_ACTIVE_KEYS
            )
        except TooManyKeys as error:
            raise Conflict(
                f"An account holds at most {key_rules.MAX_ACTIVE_KEYS} active keys; "
                "revoke one first.",
                code="key_limit_reached",
            ) from error
        return plaintext, record

    async def revoke_key(self, key_id: str) -> ApiKey:
        key = await self._store.key(key_id)
        if key is None:
            raise NotFound(f"No key {key_id}.")
        await self._store.revoke_key(key_id, self._clock.now())
        revoked = await self._store.key(key_id)
        assert revoked is not None
        return revoked

    async def authenticate(self, credential: str | None) -> Principal:
        """The principal behind a presented key, or 401 (missing vs invalid) / 403 (suspended)."""
        if credential is None or key_rules.is_placeholder(credential):
            raise Unauthenticated(
                "No API key was sent. Send it as 'Authorization: Bearer cimg_…' "
                "(or 'x-api-key: cimg_…').",
                invalid=False,
            )
        credential = credential.strip()
        if not key_rules.is_well_formed(credential):
            raise Unauthenticated(
                "The API key is malformed: keys start with 'cimg_' followed by 43 characters.",
                invalid=True,
            )
        digest = key_rules.key_hash(credential)
        found = await self._store.key_with_account(digest)
        if found is None:
            raise Unauthenticated("The API key is not valid (unknown key).", invalid=True)
        key, account = found
        if not hmac.compare_digest(key.prefix, key_rules.display_prefix(credential)):
            raise Unauthenticated("The API key is not valid.", invalid=True)
        if not key.active:
            raise Unauthenticated("The API key was revoked.", invalid=True)
        if account.status == "suspended":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        await self._store.touch_key(key.id, self._clock.now())
        return Principal(account=account, key=key)


def require_scope(principal: Principal, *scopes: str) -> None:
    """403 naming the missing scope unless the key holds one of `scopes`."""
    if not any(scope in principal.key.scopes for scope in scopes):
        raise Forbidden(
            f"This key lacks the scope {scopes[0]} needed here.", required_scope=scopes[0]
        )
