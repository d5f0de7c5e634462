"""Device login (RFC 8628): codes, approval, polling, and the key made at the first poll after it.

States: pending → approved (a human, or `carimg admin approve-device`) → consumed (the first poll
after approval creates the key and returns it once); pending → denied; any → expired after ten
minutes. Only SHA-256 digests of the device code and of the normalised user code are stored, and
no key exists until the winning poll creates it, so there is never a plaintext key at rest.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import unicodedata
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from carimg.domain import keys as key_rules
from carimg.domain.accounts import Accounts
from carimg.domain.clock import Clock
from carimg.domain.errors import (
    Conflict,
    DomainError,
    Forbidden,
    InvalidParameter,
    NotFound,
    RateLimited,
)
from carimg.domain.ratelimit import per_address
from carimg.store.accounts import AccountStore
from carimg.store.counters import Counters
from carimg.store.device_codes import DeviceCode, DeviceCodeStore, DuplicateCode
from carimg.store.records import ApiKey

LIFETIME_SECONDS: Final = 600
INTERVAL_SECONDS: Final = 5
SLOW_DOWN_STEP_SECONDS: Final = 5  # RFC 8628 §3.5: the client adds 5 s after each slow_down
MAX_INTERVAL_SECONDS: Final = 60
POLL_GRACE_SECONDS: Final = 1.0  # network jitter: a poll up to 1 s early is not "too fast"
CODES_PER_MINUTE: Final = 20
POLLS_PER_MINUTE: Final = 60
CLIENT_NAME_MAX: Final = 80
DEFAULT_KEY_NAME: Final = "device login"
USER_CODE_ALPHABET: Final = "BCDFGHJKLMNPQRSTVWXZ"  # no vowels (no words), no 0/O, 1/I/L mix-ups
USER_CODE_LENGTH: Final = 8
PURGE_AFTER: Final = timedelta(days=1)


class DeviceFlowError(DomainError):
    """An RFC 8628 / RFC 6749 §5.2 token error: `error` is the OAuth error code."""

    status = 400

    def __init__(self, error: str, description: str) -> None:
        super().__init__(description)
        self.error = error


class DeviceSlowDown(DeviceFlowError):
    """429 slow_down: too many polls of one code, or from one address; retry after `retry_after`."""

    status = 429

    def __init__(self, description: str, *, retry_after: int) -> None:
        super().__init__("slow_down", description)
        self.headers = {"Retry-After": str(retry_after)}
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class DeviceAuthorization:
    """What a client gets from POST /api/auth/device/code (the codes are shown only here)."""

    device_code: str
    user_code: str  # ABCD-EFGH
    expires_in: int
    interval: int
    client_name: str


@dataclass(frozen=True, slots=True)
class DeviceGrant:
    """The key a successful poll created, with its plaintext (returned once)."""

    key: str
    record: ApiKey


@dataclass(frozen=True, slots=True)
class PendingDevice:
    """What a human sees before approving: the client's name and what the key could do."""

    user_code: str
    client_name: str
    scopes: tuple[str, ...]
    expires_in: int


def digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def normalise_user_code(value: str) -> str:
    """`abcd-efgh`, `ABCDEFGH` and ` abcd efgh ` are the same code: letters only, upper case."""
    return "".join(char for char in value.upper() if char not in "- \t")


def display_user_code(normalised: str) -> str:
    half = len(normalised) // 2
    return f"{normalised[:half]}-{normalised[half:]}"


def _user_code_hash(value: str) -> str:
    normalised = normalise_user_code(value)
    if len(normalised) != USER_CODE_LENGTH or any(
        char not in USER_CODE_ALPHABET for char in normalised
    ):
        raise InvalidParameter(
            "user_code",
            f"A user code is {USER_CODE_LENGTH} letters of {USER_CODE_ALPHABET}, "
            "like BCDF-GHJK (dash and case do not matter).",
        )
    return digest(normalised)


def check_client_name(value: str | None) -> str:
    """The key's name: printable, at most 80 characters; blank means the default name."""
    name = (value or "").strip()
    if len(name) > CLIENT_NAME_MAX:
        raise InvalidParameter(
            "client_name", f"client_name is at most {CLIENT_NAME_MAX} characters."
        )
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise InvalidParameter("client_name", "client_name cannot hold control characters.")
    return name


class DeviceLogin:
    """The device flow's rules over the code store, the accounts and the per-IP counters."""

    def __init__(
        self,
        store: DeviceCodeStore,
        accounts: Accounts,
        account_store: AccountStore,
        counters: Counters,
        clock: Clock,
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._account_store = account_store
        self._counters = counters
        self._clock = clock

    async def _per_ip(self, kind: str, ip: str, limit: int) -> int | None:
        """None while `ip` is within `limit` a minute, else the seconds until the next window."""
        return await per_address(self._counters, self._clock, f"device-{kind}", ip, limit)

    async def start(self, client_name: str | None, *, ip: str) -> DeviceAuthorization:
        """New device and user codes (429 beyond 20 a minute from one address)."""
        retry = await self._per_ip("code", ip, CODES_PER_MINUTE)
        if retry is not None:
            raise RateLimited(
                f"More than {CODES_PER_MINUTE} device code requests a minute from this address.",
                retry_after=retry,
            )
        name = check_client_name(client_name)
        now = self._clock.now()
        await self._store.purge(now - PURGE_AFTER)
        for _ in range(5):
            device_code = secrets.token_urlsafe(32)
            user_code = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))
            code = DeviceCode(
                id=uuid.uuid4().hex,
                client_name=name,
                state="pending",
                interval_seconds=INTERVAL_SECONDS,
                created_at=now,
                expires_at=now + timedelta(seconds=LIFETIME_SECONDS),
                last_polled_at=None,
                account_id=None,
                decided_at=None,
                key_id=None,
            )
            try:
                await self._store.add(
                    code, device_code_hash=digest(device_code), user_code_hash=digest(user_code)
                )
            except DuplicateCode:  # a live user code drawn twice: draw again
                continue
            return DeviceAuthorization(
                device_code=device_code,
                user_code=display_user_code(user_code),
                expires_in=LIFETIME_SECONDS,
                interval=INTERVAL_SECONDS,
                client_name=name,
            )
        raise Conflict("Could not draw an unused user code; retry.")  # pragma: no cover

    async def _live(self, user_code: str) -> tuple[str, PendingDevice]:
        """The digest of a user code and what waits behind it: 404 when nothing (or expired),
        409 when already decided, 400 when it cannot be a user code."""
        code_hash = _user_code_hash(user_code)
        code = await self._store.by_user_hash(code_hash)
        now = self._clock.now()
        if code is None or code.expires_at <= now:
            raise NotFound("No device login waits for this code; it may have expired.")
        if code.state != "pending":
            raise Conflict(f"This device login was already {code.state}.", state=code.state)
        return code_hash, PendingDevice(
            user_code=display_user_code(normalise_user_code(user_code)),
            client_name=code.client_name,
            scopes=key_rules.DEVICE_SCOPES,
            expires_in=max(0, math.floor((code.expires_at - now).total_seconds())),
        )

    async def pending(self, user_code: str) -> PendingDevice:
        """What the activation page shows before a human approves or denies."""
        _, shown = await self._live(user_code)
        return shown

    async def approve(self, user_code: str, email: str) -> PendingDevice:
        """Approve for the account of `email`; the key is made at the client's next poll."""
        account = await self._accounts.by_email(email)
        if account.status != "active":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        code_hash, shown = await self._live(user_code)
        if not await self._store.decide(
            code_hash, "approved", self._clock.now(), account_id=account.id
        ):
            raise Conflict("This device login was decided or expired meanwhile.")
        return shown

    async def deny(self, user_code: str) -> PendingDevice:
        code_hash, shown = await self._live(user_code)
        if not await self._store.decide(code_hash, "denied", self._clock.now()):
            raise Conflict("This device login was decided or expired meanwhile.")
        return shown

    async def poll(self, device_code: str, *, ip: str) -> DeviceGrant:
        """The key, exactly once after approval; otherwise a `DeviceFlowError`."""
        retry = await self._per_ip("poll", ip, POLLS_PER_MINUTE)
        if retry is not None:
            raise DeviceSlowDown(
                f"More than {POLLS_PER_MINUTE} polls a minute from this address.",
                retry_after=retry,
            )
        code = await self._store.by_device_hash(digest(device_code))
        if code is None:
            raise DeviceFlowError("invalid_request", "Unknown device_code.")
        if code.state == "consumed":
            raise DeviceFlowError(
                "invalid_request", "This device_code was already used; its key was delivered."
            )
        now = self._clock.now()
        if now >= code.expires_at:
            raise DeviceFlowError(
                "expired_token", "The device_code expired (ten minutes); start over."
            )
        if code.state == "denied":
            raise DeviceFlowError("access_denied", "The device login was denied.")
        if code.state == "pending":
            await self._pending_poll(code, now)
        return await self._deliver(code)

    async def _pending_poll(self, code: DeviceCode, now: datetime) -> None:
        """slow_down (and a 5 s longer interval) when polled too fast, else pending."""
        too_fast = (
            code.last_polled_at is not None
            and (now - code.last_polled_at).total_seconds()
            < code.interval_seconds - POLL_GRACE_SECONDS
        )
        if too_fast:
            interval = min(code.interval_seconds + SLOW_DOWN_STEP_SECONDS, MAX_INTERVAL_SECONDS)
            await self._store.record_poll(code, now, interval_seconds=interval)
            raise self._slow_down(interval)
        if not await self._store.record_poll(code, now):
            raise self._slow_down(code.interval_seconds)  # another poll of this code just now
        raise DeviceFlowError(
            "authorization_pending", "The user has not approved this device login yet."
        )

    @staticmethod
    def _slow_down(interval: int) -> DeviceSlowDown:
        return DeviceSlowDown(
            f"Polling too fast: wait {interval} seconds between polls.", retry_after=interval
        )

    async def _deliver(self, code: DeviceCode) -> DeviceGrant:
        """Claim the approved code (one poll wins), then create the key and return it once."""
        if code.state != "approved" or not await self._store.claim(code.id, self._clock.now()):
            current = await self._store.by_id(code.id)  # a racing poll won, or time ran out
            state = current.state if current is not None else "consumed"
            if state == "consumed":
                raise DeviceFlowError(
                    "invalid_request",
                    "This device_code was already used; its key was delivered.",
                )
            if state == "denied":
                raise DeviceFlowError("access_denied", "The device login was denied.")
            if current is None or self._clock.now() >= current.expires_at:
                raise DeviceFlowError(
                    "expired_token", "The device_code expired (ten minutes); start over."
                )
            raise DeviceFlowError(  # a racing poll failed and released the code: poll again
                "authorization_pending", "The key is not ready yet; poll again."
            )
        try:
            assert code.account_id is not None
            account = await self._account_store.by_id(code.account_id)
            if account is None:
                raise NotFound("The approving account no longer exists.")
            key, record = await self._accounts.create_key(
                account,
                scopes=key_rules.DEVICE_SCOPES,
                name=code.client_name or DEFAULT_KEY_NAME,
            )
        except DomainError as error:
            await self._store.set_state(code.id, "denied")
            raise DeviceFlowError(
                "access_denied", f"No key could be created: {error.detail}"
            ) from error
        except BaseException:
            await self._store.set_state(code.id, "approved")  # release: the next poll retries
            raise
        await self._store.set_state(code.id, "consumed", key_id=record.id)
        return DeviceGrant(key=key, record=record)
