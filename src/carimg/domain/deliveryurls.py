"""Signed delivery URLs: minting (one debit per batch), and the load state machine.

States: valid → exhausted (loads reach max_uses: 410), expired (403), revoked with the minting
key (403), consumed by a failed first load (502, that URL's credit refunded). A 503 leaves the URL
valid and its use uncounted. HEAD validates without rendering or counting.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncConnection

from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import (
    Exhausted,
    Forbidden,
    InsufficientCredits,
    InvalidParameter,
    RenderFailed,
    Unavailable,
)
from carimg.domain.etags import etag_matches
from carimg.domain.imagerequest import ImageSpec, parse_image_request
from carimg.domain.images import Renderer
from carimg.domain.ledger import Ledger
from carimg.domain.plancaps import PlanCaps
from carimg.domain.ready import ReadyAnswers, share_of_cache
from carimg.domain.renderbudget import RenderBudget
from carimg.store.accounts import AccountStore
from carimg.store.delivery_urls import DeliveryUrlRow, DeliveryUrlStore, NewDeliveryUrl
from carimg.store.ledger import InsufficientBalance, LedgerStore, PaidFor
from carimg.store.records import Principal

DELIVERY_PATH = "/api/v1/delivery/"
_EXHAUSTED = "This URL's loads are used up (max_uses reached); mint a new one."
TTL_RANGE = (60, 604800)
MAX_USES_RANGE = (0, 1000)
RENEW_DAYS_RANGE = (1, 365)


@dataclass(frozen=True, slots=True)
class MintedUrl:
    id: str
    url: str
    expires_at: datetime
    max_uses: int
    spec: ImageSpec
    renews_until: datetime | None


@dataclass(frozen=True, slots=True)
class Minted:
    urls: list[MintedUrl]
    credits_charged: int
    credits_remaining: int


@dataclass(frozen=True, slots=True)
class Loaded:
    """What a load serves: the image (None for HEAD and 304s) and how to cache it."""

    spec: ImageSpec
    etag: str
    data: bytes | None
    width: int | None
    height: int | None
    source: str | None
    max_uses: int
    seconds_left: int
    restricted: bool = False  # the minting key lists allowed origins: no shared caching


@dataclass(frozen=True, slots=True)
class _Ready:
    """An answer `load_now` made, and what it rests on (see there)."""

    loaded: Loaded
    snapshot: tuple[int, ...]  # the row cache's, when the row was read
    expires: float  # the URL's expiry, in clock time
    memory_key: str  # its image's, in the renderer's memory


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


# `Sec-Fetch-Site` values (Fetch Metadata) that say the page is carimg's own or that nobody's
# page asked (the address bar, a bookmark); any other value names another site's page.
_NOT_ANOTHER_SITE = frozenset({"same-origin", "none"})


@dataclass(frozen=True, slots=True)
class Asking:
    """Who asks for a load, as a browser tells it: the `Referer`, `Origin` and `Sec-Fetch-Site`
    request headers (each None when not sent)."""

    referer: str | None = None
    origin: str | None = None
    fetch_site: str | None = None


_NO_PAGE = Asking()  # the service's own loads (the agent endpoint's images)


def _admitted(row: DeliveryUrlRow | None, asking: Asking, sec_fetch: bool) -> DeliveryUrlRow:
    """`row` when it may be loaded from this page; else Forbidden.

    A URL whose minting key lists allowed origins loads only where the page's origin (from
    `Origin`, else `Referer`) is listed. A load that names no origin passes (the spec: "requests
    with neither header pass"), unless `sec_fetch` (`CARIMG_DELIVERY_ORIGIN_SEC_FETCH`) and the
    browser's `Sec-Fetch-Site` says another site's page asked (`cross-site`, `same-site`): a
    page that sends no Referer (`referrerpolicy="no-referrer"`) cannot then show the URL
    anywhere. Clients that send no `Sec-Fetch-Site` (servers, curl, older browsers) could send
    any Referer they like, so refusing them would protect nothing."""
    if row is None:
        raise Forbidden("This delivery URL is not valid (unknown or altered token).")
    if row.key_revoked:
        raise Forbidden("The key that minted this URL was revoked; the URL no longer works.")
    if row.key_origins:
        page = _origin_of(asking.origin) or _origin_of(asking.referer)
        allowed = ", ".join(row.key_origins)
        if page is not None and page not in row.key_origins:
            raise Forbidden(f"This URL may only be shown on {allowed}.", code="origin_not_allowed")
        fetch_site = (asking.fetch_site or "none").strip().lower()
        if page is None and sec_fetch and fetch_site not in _NOT_ANOTHER_SITE:
            raise Forbidden(
                f"This URL may only be shown on {allowed}, and this page names no site (no "
                "Referer or Origin): let it send at least its origin (the default "
                "Referrer-Policy, strict-origin-when-cross-origin, does).",
                code="origin_not_allowed",
            )
    return row


def _origin_of(value: str | None) -> str | None:
    if not value:
        return None
    text = value.strip()
    try:  # a malformed header (an unclosed "[", a port out of range) is itself the origin
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text.lower()
    if not parts.scheme or not parts.hostname:
        return text.lower()
    scheme = parts.scheme.lower()
    default = {"http": 80, "https": 443}.get(scheme)
    netloc = parts.hostname if port in (None, default) else f"{parts.hostname}:{port}"
    return f"{scheme}://{netloc}".lower()


class DeliveryUrls:
    """Mints signed URLs and serves their loads."""

    def __init__(
        self,
        store: DeliveryUrlStore,
        ledger_store: LedgerStore,
        ledger: Ledger,
        renderer: Renderer,
        catalog: Catalog,
        settings: Settings,
        caps: PlanCaps,
        budget: RenderBudget,
        accounts: AccountStore,
        clock: Clock,
    ) -> None:
        self._store = store
        self._ledger_store = ledger_store
        self._ledger = ledger
        self._renderer = renderer
        self._catalog = catalog
        self._settings = settings
        self._caps = caps
        self._budget = budget
        self._accounts = accounts
        self._clock = clock
        # URL id -> its spec. A URL's parameters never change; parse_image_request remembers
        # specs too, but it builds its key from every parameter on every load
        self._specs: dict[str, ImageSpec] = {}
        self._ready: ReadyAnswers[_Ready] = ReadyAnswers(share_of_cache(settings))  # load_now

    # -- minting --------------------------------------------------------------------------------

    def clamp_ttl(self, ttl_seconds: int | None) -> int:
        """60–604800 (else 400), then clamped to this deployment's bounds."""
        ttl = self._settings.delivery_ttl_default if ttl_seconds is None else ttl_seconds
        low, high = TTL_RANGE
        if not low <= ttl <= high:
            raise InvalidParameter("ttl_seconds", f"'ttl_seconds' must be from {low} to {high}.")
        return max(self._settings.delivery_ttl_min, min(self._settings.delivery_ttl_max, ttl))

    async def mint(
        self,
        principal: Principal,
        specs: list[ImageSpec],
        *,
        ttl_seconds: int | None = None,
        max_uses: int = 0,
        renew: bool = False,
        renew_days: int | None = None,
        on_minted: Callable[[AsyncConnection, Minted], Awaitable[None]] | None = None,
    ) -> Minted:
        """One URL per spec, paid by one debit of one credit per URL, all in one transaction.

        `on_minted` records the result in that same transaction (an idempotent response), so a
        crash after the commit can never leave a charge without its answer.
        """
        ttl = self.clamp_ttl(ttl_seconds)
        if not MAX_USES_RANGE[0] <= max_uses <= MAX_USES_RANGE[1]:
            raise InvalidParameter("max_uses", "'max_uses' must be from 0 to 1000.")
        if renew_days is not None and not renew:
            raise InvalidParameter("renew_days", "'renew_days' goes with renew: true.")
        if renew and max_uses:
            raise InvalidParameter("renew", "Renewing URLs are unlimited: send max_uses 0.")
        days = renew_days if renew_days is not None else RENEW_DAYS_RANGE[1]
        if renew and not RENEW_DAYS_RANGE[0] <= days <= RENEW_DAYS_RANGE[1]:
            raise InvalidParameter("renew_days", "'renew_days' must be from 1 to 365.")
        now = self._clock.now()
        renew_until = now + timedelta(days=days) if renew else None
        tokens = [secrets.token_urlsafe(32) for _ in specs]
        rows = [
            NewDeliveryUrl(
                id=str(uuid.uuid4()),
                token_hash=token_hash(token),
                key_id=principal.key.id,
                params=dict(spec.record()),
                created_at=now,
                expires_at=now + timedelta(seconds=ttl),
                ttl_seconds=ttl,
                max_uses=max_uses,
                renew_until=renew_until,
            )
            for token, spec in zip(tokens, specs, strict=True)
        ]
        reference = f"debit:urls:{uuid.uuid4().hex}"
        price = len(specs)

        base = self._settings.base_url + DELIVERY_PATH
        urls = [
            MintedUrl(row.id, base + token, row.expires_at, max_uses, spec, renew_until)
            for token, row, spec in zip(tokens, rows, specs, strict=True)
        ]

        async def insert(conn: AsyncConnection, balance: int) -> None:
            await self._caps.admit(conn, principal.account, [spec.vehicle.id for spec in specs])
            await self._store.insert_all(conn, principal.account.id, reference, rows)
            if on_minted is not None:
                await on_minted(conn, Minted(urls, len(specs), balance))

        try:
            _, balance = await self._ledger_store.apply(
                principal.account.id,
                "debit",
                -price,
                reference,
                note=f"{price} delivery URL{'s' if price != 1 else ''}",
                now=now,
                also=PaidFor(insert),
            )
        except InsufficientBalance as low:
            raise InsufficientCredits(balance=low.balance, required=price) from low
        return Minted(urls=urls, credits_charged=price, credits_remaining=balance)

    # -- loading --------------------------------------------------------------------------------

    async def _open(self, token: str, asking: Asking) -> DeliveryUrlRow:
        row = await self._store.by_token_hash(token_hash(token)) if token else None
        return _admitted(row, asking, self._settings.delivery_origin_sec_fetch)

    def load_now(self, token: str, *, if_none_match: str | None = None) -> Loaded | None:
        """`load`'s answer to a GET when it is known without waiting or writing anything: an
        unlimited, non-renewing URL with no allowed-origins list whose row is cached and
        unchanged, already delivered, not expired, its image held in memory and no ETag sent.
        None otherwise: then `load` (which also raises every error).

        A popular URL is loaded over and over: its answer is kept (the same `Loaded`, so a
        caller may keep what it makes of it too) while it still holds, which is cheaper to
        check than to make again: the URL has not expired and its `seconds_left` is still the
        whole seconds left, no row it rests on changed (the row cache's snapshot), its
        asset's variation is the same and its image is still held in memory."""
        if if_none_match is not None:  # a 304, perhaps
            return None
        now = self._clock.time()
        ready = self._ready.get(token)
        if (
            ready is not None
            and now < ready.expires
            and math.floor(ready.expires - now) == ready.loaded.seconds_left
            and ready.snapshot == self._store.snapshot()
            and self._renderer.current_now(ready.loaded.spec) is ready.loaded.spec
            and self._renderer.held(ready.memory_key) is not None  # kept recent in the cache
        ):
            return ready.loaded
        row = self._store.cached_by_token_hash(token_hash(token))
        if (
            row is None
            or row.key_revoked
            or row.key_origins
            or row.state == "consumed"
            or row.max_uses
            or row.renew_until is not None
            or not row.delivered
        ):
            return None
        spec = self._specs.get(row.id)
        spec = None if spec is None else self._renderer.current_now(spec)
        expires = row.expires_at.timestamp()
        if spec is None or now >= expires:
            return None
        image = self._renderer.in_memory(spec)
        if image is None:
            return None
        seconds_left = math.floor(expires - now)
        loaded = Loaded(
            spec, self._renderer.etag(spec), image.data, image.width, image.height, image.source,
            0, seconds_left,
        )  # fmt: skip
        snapshot = cast(tuple[int, ...], self._store.snapshot())  # a row was cached: not None
        kept = _Ready(loaded, snapshot, expires, self._renderer.memory_key(spec))
        self._ready.put(token, kept, len(image.data))
        return loaded

    async def _current_expiry(
        self, row: DeliveryUrlRow, now: datetime, *, bill: bool
    ) -> tuple[datetime, str]:
        """Expiry at `now`, and the renewal debit's reference ('' when none was made now).

        A renewing URL's new window is billed on its first delivering load (once per window);
        HEAD and 304s (`bill=False`) see the window without paying for it.
        """
        if now < row.expires_at:
            return row.expires_at, ""
        if row.renew_until is None or now >= row.renew_until:
            raise Forbidden("This delivery URL expired; mint a new one.")
        window = int((now - row.created_at).total_seconds() // row.ttl_seconds)
        starts = row.created_at + timedelta(seconds=window * row.ttl_seconds)
        ends = min(starts + timedelta(seconds=row.ttl_seconds), row.renew_until)
        if not bill:
            return ends, ""
        reference = f"debit:renew:{row.id}:{window}"
        try:
            charged, _ = await self._ledger_store.apply(
                row.account_id,
                "debit",
                -1,
                reference,
                note=f"renewal window {window} of {row.id}",
                now=now,
            )
        except InsufficientBalance as low:
            charged = False
            # Paid already when a racing load took the last credit for this window: serve.
            if await self._ledger_store.entry(reference) is None:
                raise InsufficientCredits(
                    balance=low.balance,
                    required=1,
                    renewal_window={
                        "index": window,
                        "starts_at": starts.isoformat(),
                        "ends_at": ends.isoformat(),
                    },
                ) from low
        await self._store.extend(row.id, ends)
        return ends, reference if charged else ""

    async def _spec(self, row: DeliveryUrlRow) -> ImageSpec:
        spec = self._specs.get(row.id)
        if spec is None:
            if len(self._specs) >= 50_000:
                self._specs.clear()
            spec = self._specs[row.id] = parse_image_request(self._catalog, row.params)
        return await self._renderer.current(spec)  # at the asset's current variation

    async def load(
        self,
        token: str,
        *,
        asking: Asking = _NO_PAGE,
        head: bool = False,
        if_none_match: str | None = None,
    ) -> Loaded:
        """Serve one load; HEAD and matching ETags neither render nor count a use. `asking`:
        the page's headers (none for the service's own loads)."""
        row = await self._open(token, asking)
        if row.state == "consumed":
            raise RenderFailed("A failed render consumed this URL; mint a new one.")
        if row.max_uses and row.uses >= row.max_uses:
            if row.renew_until is None and self._clock.now() >= row.expires_at:
                raise Forbidden("This delivery URL expired; mint a new one.")
            raise Exhausted(_EXHAUSTED)
        spec = await self._spec(row)
        etag = self._renderer.etag(spec)
        now = self._clock.now()
        if head or etag_matches(if_none_match, etag):
            expires_at, _ = await self._current_expiry(row, now, bill=False)
            left = max(0, math.floor((expires_at - now).total_seconds()))
            return Loaded(spec, etag, None, None, None, None, row.max_uses, left, row.restricted)
        image = self._renderer.in_memory(spec)  # the hot case: nothing to render or read
        if image is None and await self._renderer.is_cold(spec):
            # a first load renders for the minting account: its daily share applies
            account = await self._accounts.by_id(row.account_id)
            if account is not None:
                await self._budget.reserve(account)
        expires_at, renewal = await self._current_expiry(row, now, bill=True)
        seconds_left = max(0, math.floor((expires_at - now).total_seconds()))
        if row.max_uses and not await self._store.claim_use(row.id):
            raise Exhausted(_EXHAUSTED)
        try:
            if image is None:
                image = await self._renderer.image(spec)
        except Unavailable:
            if row.max_uses:
                await self._store.release_use(row.id)
            await self._refund_renewal(row, renewal)
            raise
        except Exception as error:
            await self._refund_renewal(row, renewal)
            if not row.delivered and await self._store.consume(row.id):
                await self._refund_one(row)
            raise RenderFailed(
                "The render failed; this URL is consumed and its credit refunded. Mint a new one."
            ) from error
        if not row.delivered:
            await self._store.mark_delivered(row.id)
        return Loaded(
            spec, etag, image.data, image.width, image.height, image.source, row.max_uses,
            seconds_left, row.restricted,
        )  # fmt: skip

    async def _refund_renewal(self, row: DeliveryUrlRow, reference: str) -> None:
        """A load that delivered nothing gives back the renewal it just paid."""
        if reference:
            await self._ledger_store.apply(
                row.account_id,
                "refund",
                1,
                f"refund:{reference}",
                note="renewal load delivered nothing",
                now=self._clock.now(),
            )

    async def _refund_one(self, row: DeliveryUrlRow) -> None:
        await self._ledger_store.apply(
            row.account_id,
            "refund",
            1,
            f"refund:url:{row.id}",
            note=f"failed first load of {row.id}",
            now=self._clock.now(),
        )
