"""Records the store returns: accounts, API keys, ledger entries, the authenticated principal."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

AccountStatus = Literal["active", "suspended"]
LedgerKind = Literal["grant", "debit", "refund", "purchase"]


@dataclass(frozen=True, slots=True)
class Account:
    """Who an account is and the rules it is under. Its balance is the ledger's
    (`Ledger.balance`): every paid request changes it, so an account read once stays true while
    its balance moves (and is cached so, see `AccountStore.key_with_account`)."""

    id: str
    email: str
    plan: str
    status: AccountStatus
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ApiKey:
    """A stored key: never the plaintext, only its SHA-256 and a display prefix."""

    id: str
    account_id: str
    name: str
    prefix: str
    scopes: tuple[str, ...]
    origins: tuple[str, ...]
    created_at: datetime
    revoked_at: datetime | None
    rate_limit_per_minute: int | None = None  # an Enterprise agreement's own limit for the key

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    id: int
    account_id: str
    kind: LedgerKind
    amount: int
    balance_after: int
    reference: str
    note: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is asking: an account through one of its keys."""

    account: Account
    key: ApiKey
