"""People in the browser: sign-up, sign-in, sessions, password resets, and what the dashboard
shows and does for a signed-in account (through the same account, key, ledger and billing rules
as the REST API).

Limits: sign-in attempts per address and failed sign-ins per e-mail address in fixed windows
(a correct password does not get past a spent window, so the window is no guessing oracle);
sign-ups and reset requests per address; reset mails per e-mail address.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import secrets
import smtplib
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any, Final, Protocol

from carimg.config import Settings
from carimg.domain import keys as key_rules
from carimg.domain.account import usage_30d
from carimg.domain.accounts import Accounts
from carimg.domain.billing import Billing, HostedUrl
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, NotFound, RateLimited, Unauthenticated
from carimg.domain.ledger import Ledger
from carimg.domain.passwords import Passwords, check_strength
from carimg.domain.pricing import Pack, Plan, Pricing
from carimg.store.accounts import AccountStore
from carimg.store.counters import Counters
from carimg.store.credentials import CredentialStore
from carimg.store.records import Account, ApiKey, Principal

logger = logging.getLogger("carimg.web")

SIGNIN_ATTEMPTS_PER_IP: Final = (30, 600)  # (attempts, window seconds)
SIGNIN_FAILURES_PER_EMAIL: Final = (5, 900)
SIGNUPS_PER_IP: Final = (10, 3600)
RESET_REQUESTS_PER_IP: Final = (10, 3600)
RESET_MAILS_PER_EMAIL: Final = (3, 3600)
RESET_LIFETIME: Final = timedelta(hours=1)
WEB_SESSION_KEY_ID: Final = "web-session"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class WebSession:
    """A new browser session: the secret for the cookie (shown once) and when it ends."""

    account: Account
    token: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class KeyRow:
    key: ApiKey
    last_used_at: datetime | None


@dataclass(frozen=True, slots=True)
class Overview:
    """What the dashboard shows."""

    account: Account
    credits: int
    credits_value_usd: float
    usage: dict[str, Any]  # usage_30d: totals and by_day (days with activity only)
    since: datetime
    keys: list[KeyRow]
    packs: tuple[Pack, ...]
    plans: tuple[Plan, ...]  # the paid plans (pricing variant B)
    has_purchase: bool


class Mailer(Protocol):
    async def send(self, to: str, subject: str, body: str) -> None: ...


class SmtpMailer:
    """Mail through the configured SMTP server (STARTTLS unless turned off)."""

    def __init__(self, settings: Settings) -> None:
        assert settings.smtp_host is not None
        self._settings = settings

    async def send(self, to: str, subject: str, body: str) -> None:
        message = EmailMessage()
        message["From"] = self._settings.mail_from
        message["To"] = to
        message["Subject"] = subject
        message.set_content(body)
        await asyncio.to_thread(self._send, message)

    def _send(self, message: EmailMessage) -> None:
        settings = self._settings
        assert settings.smtp_host is not None
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=20) as smtp:
            if settings.smtp_starttls:
                smtp.starttls()
            if settings.smtp_username:
                smtp.login(settings.smtp_username, settings.smtp_password or "")
            smtp.send_message(message)


def mailer_for(settings: Settings) -> Mailer | None:
    """The configured mail server; None without one (then operators hand out reset links, see
    `WebAccounts.reset_link`)."""
    return SmtpMailer(settings) if settings.smtp_host else None


class WebAccounts:
    """The browser's way in to accounts: credentials, sessions and the dashboard's actions."""

    def __init__(
        self,
        store: CredentialStore,
        accounts: Accounts,
        account_store: AccountStore,
        ledger: Ledger,
        billing: Billing,
        pricing: Pricing,
        counters: Counters,
        mailer: Mailer | None,
        settings: Settings,
        clock: Clock,
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._account_store = account_store
        self._ledger = ledger
        self._billing = billing
        self._pricing = pricing
        self._counters = counters
        self._mailer = mailer
        self._settings = settings
        self._clock = clock
        self.passwords = Passwords(
            settings.password_hash_memory_kib, settings.password_hash_iterations
        )

    # -- limits ----------------------------------------------------------------------------------

    def _window(self, kind: str, subject: str, seconds: int) -> tuple[str, int]:
        """The counter key of the current fixed window, and seconds until it ends."""
        now = self._clock.time()
        window = math.floor(now // seconds)
        left = max(1, math.ceil((window + 1) * seconds - now))
        return f"web:{kind}:{subject}:{window}", left

    async def _spend(self, kind: str, subject: str, limit: tuple[int, int], what: str) -> None:
        count, seconds = limit
        key, left = self._window(kind, subject, seconds)
        if await self._counters.incr(key, 1, seconds + 60) > count:
            raise RateLimited(f"Too many {what}; try again in {_minutes(left)}.", left)

    # -- sign-up, sign-in, sessions --------------------------------------------------------------

    async def sign_up(self, email: str, password: str, *, ip: str) -> WebSession:
        """A new account (with the free credits every account gets) and its first session."""
        await self._spend("signup", ip, SIGNUPS_PER_IP, "sign-ups from this address")
        check_strength(password, email)
        password_hash = await self.passwords.hash(password)
        account = await self._accounts.create_account(email)
        await self._store.set_password_hash(account.id, password_hash, self._clock.now())
        return await self._start(account)

    async def sign_in(self, email: str, password: str, *, ip: str) -> WebSession:
        await self._spend("signin", ip, SIGNIN_ATTEMPTS_PER_IP, "sign-in attempts")
        email = email.strip().lower()
        count, seconds = SIGNIN_FAILURES_PER_EMAIL
        failures_key, left = self._window("signin-failed", digest(email), seconds)
        if await self._counters.get(failures_key) >= count:
            raise RateLimited(
                f"Too many failed sign-ins for this e-mail address; try again in "
                f"{_minutes(left)} or reset the password.",
                left,
            )
        account = await self._account_store.by_email(email) if "@" in email else None
        stored = await self._store.password_hash(account.id) if account else None
        if account is None or stored is None:
            await self.passwords.burn()
            verified = False
        else:
            verified = await self.passwords.verify(stored, password)
        if not verified or account is None or stored is None:
            await self._counters.incr(failures_key, 1, seconds + 60)
            raise Unauthenticated("The e-mail address or the password is wrong.", invalid=True)
        if account.status != "active":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        if self.passwords.needs_rehash(stored):
            new_hash = await self.passwords.hash(password)
            await self._store.set_password_hash(account.id, new_hash, self._clock.now())
        return await self._start(account)

    async def _start(self, account: Account) -> WebSession:
        token = secrets.token_urlsafe(32)
        now = self._clock.now()
        expires_at = now + timedelta(days=self._settings.session_days)
        await self._store.add_session(digest(token), account.id, now, expires_at)
        return WebSession(account, token, expires_at)

    async def session_account(self, token: str) -> Account | None:
        """The active account of a live session; None once it ended, expired or was suspended."""
        account_id = await self._store.session_account(digest(token), self._clock.now())
        account = await self._account_store.by_id(account_id) if account_id else None
        return account if account is not None and account.status == "active" else None

    async def session_is_live(self, token: str) -> bool:
        """Whether a session cookie's secret still opens a session (for free embed previews)."""
        return await self.session_account(token) is not None

    async def sign_out(self, token: str) -> None:
        await self._store.end_session(digest(token))

    # -- password reset --------------------------------------------------------------------------

    async def request_reset(self, email: str, *, ip: str) -> None:
        """Mail a one-hour reset link when an account has this address. The answer is the same
        either way, so the form does not tell who has an account.

        Without a mail server no link is made: a secret never goes to the log (which redacts
        it anyway). The log says that someone asked and how the operator makes a link to pass
        on: `carimg admin reset-link --email …` (`reset_link`)."""
        await self._spend("reset", ip, RESET_REQUESTS_PER_IP, "reset requests from this address")
        email = email.strip().lower()
        account = await self._account_store.by_email(email) if "@" in email else None
        if account is None or account.status != "active":
            return
        count, seconds = RESET_MAILS_PER_EMAIL
        key, _ = self._window("reset-mail", digest(email), seconds)
        if await self._counters.incr(key, 1, seconds + 60) > count:
            return  # quietly: the owner already has several links in the mailbox
        if self._mailer is None:
            logger.warning(
                "password reset asked for %s; no mail server is configured (CARIMG_SMTP_HOST): "
                "`carimg admin reset-link --email %s` prints a one-hour link to pass on",
                account.email,
                account.email,
            )
            return
        link, _ = await self._new_reset_link(account)
        await self._mailer.send(
            account.email,
            "Reset your carimg password",
            "Someone (hopefully you) asked to reset the password of this carimg account.\n\n"
            f"Set a new password within an hour: {link}\n\n"
            "If it was not you, ignore this message; the password stays as it is.\n",
        )

    async def reset_link(self, email: str) -> tuple[str, datetime]:
        """A new one-hour, one-use reset link for the active account with this address, and
        when it expires: the operator's way to help when no mail server is configured."""
        account = await self._accounts.by_email(email.strip().lower())
        if account.status != "active":
            raise Forbidden(
                "This account is suspended; unsuspend it first.", code="account_suspended"
            )
        return await self._new_reset_link(account)

    async def _new_reset_link(self, account: Account) -> tuple[str, datetime]:
        token = secrets.token_urlsafe(32)
        now = self._clock.now()
        await self._store.add_reset(digest(token), account.id, now, now + RESET_LIFETIME)
        return f"{self._settings.base_url}/reset-password?token={token}", now + RESET_LIFETIME

    async def reset_is_valid(self, token: str) -> bool:
        return await self._store.reset_account(digest(token), self._clock.now()) is not None

    async def reset_password(self, token: str, password: str) -> WebSession:
        """Set a new password with a reset token (once); every other session of the account
        ends, and a new one starts."""
        now = self._clock.now()
        account_id = await self._store.reset_account(digest(token), now)
        account = await self._account_store.by_id(account_id) if account_id else None
        if account is None:
            raise NotFound("This reset link is unknown, used or expired; ask for a new one.")
        check_strength(password, account.email)
        password_hash = await self.passwords.hash(password)
        if await self._store.use_reset(digest(token), now) is None:
            raise NotFound("This reset link is unknown, used or expired; ask for a new one.")
        await self._store.set_password_hash(account.id, password_hash, now)
        await self._store.end_sessions_of(account.id)
        if account.status != "active":
            raise Forbidden(
                "This account is suspended; contact the operator.", code="account_suspended"
            )
        return await self._start(account)

    # -- the dashboard ---------------------------------------------------------------------------

    async def overview(self, account: Account) -> Overview:
        since = self._clock.now() - timedelta(days=30)
        credits = await self._ledger.balance(account.id)
        entries = await self._ledger.entries_since(account.id, since)
        last_used = await self._store.keys_last_used(account.id)
        keys = [
            KeyRow(key, last_used.get(key.id))
            for key in await self._account_store.keys_of(account.id)
        ]
        return Overview(
            account=account,
            credits=credits,
            credits_value_usd=round(credits / self._pricing.credits_per_dollar, 2),
            usage=usage_30d(entries),
            since=since,
            keys=keys,
            packs=self._pricing.packs,
            plans=tuple(plan for plan in self._pricing.plans if plan.price_monthly > 0),
            has_purchase=await self._billing.has_payment_method(account.id),
        )

    async def create_key(
        self, account: Account, *, name: str, scopes: tuple[str, ...], origins: tuple[str, ...]
    ) -> tuple[str, ApiKey]:
        """A key with the chosen scopes (the same rules as every key: scope names, origins,
        billing:purchase never with origins, at most ten active)."""
        return await self._accounts.create_key(
            account, scopes=scopes, origins=origins, name=name.strip()
        )

    async def revoke_key(self, account: Account, key_id: str) -> ApiKey:
        """Revoke one of the account's own keys (another account's key is 'not found')."""
        key = await self._account_store.key(key_id)
        if key is None or key.account_id != account.id:
            raise NotFound(f"No key {key_id} on this account.")
        return await self._accounts.revoke_key(key_id)

    async def checkout(
        self, account: Account, *, credits: int | None = None, plan: str | None = None
    ) -> HostedUrl:
        return await self._billing.checkout(session_principal(account), credits=credits, plan=plan)

    async def portal(self, account: Account) -> HostedUrl:
        return await self._billing.portal(session_principal(account))


def session_principal(account: Account) -> Principal:
    """The signed-in human as a principal for billing rules that take one: the account itself,
    through no key (billing looks only at the account)."""
    key = ApiKey(
        id=WEB_SESSION_KEY_ID,
        account_id=account.id,
        name="web session",
        prefix="",
        scopes=(key_rules.BILLING_WRITE,),
        origins=(),
        created_at=account.created_at,
        revoked_at=None,
    )
    return Principal(account=account, key=key)


def _minutes(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return "a minute" if minutes == 1 else f"{minutes} minutes"
