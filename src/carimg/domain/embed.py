"""The legacy embed endpoint's grants, tried in the spec's order.

1. a partner-signed URL (exp + sig): free, publicly cacheable until exp, never redirected;
2. mode=cached: free, serves only variants already rendered, never renders;
3. the home-page examples: free, at the size and in the format the home page shows them;
4. an API key in a header (the `key` query parameter only when the legacy setting is on): 1 credit;
5. a signed-in session, or the playground cookie: free; a playground cookie previews at most
   `playground_daily_limit` distinct variants a day (repeat loads of one variant count once), a
   signed-in account `session_daily_limit`, and the cookies and sessions of one client address
   `preview_address_daily_limit` together; one address is given at most
   `playground_cookies_per_minute` new playground cookies.
Anything else is 401 (or, while the deployment still serves open embeds, free with a warning).
Every free grant's new renders come from the free grants' share of the daily render ceiling.
"""

from __future__ import annotations

import hmac
import math
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, NotFound, RateLimited, Unauthenticated
from carimg.domain.imagerequest import ImageSpec
from carimg.domain.images import Renderer
from carimg.domain.ratelimit import address_key, per_address
from carimg.domain.renderbudget import RenderBudget
from carimg.domain.signing import MAX_EMBED_LIFETIME, embed_signature, sign_value, unsign_value
from carimg.domain.views import DEFAULT_FORMAT, SIZE_PRESETS
from carimg.store.counters import Counters
from carimg.store.partners import PartnerStore

Grant = Literal["partner", "cached", "example", "key", "session", "open"]
_SIGNATURE = re.compile(r"[0-9a-f]{64}")
PLAYGROUND_COOKIE = "carimg_playground"
SESSION_COOKIE = "carimg_session"
# The home page's examples: the size preset it shows them at and the output that gives (width,
# height, format, negotiated); the example grant serves nothing else.
EXAMPLE_SIZE = "small"
EXAMPLE_OUTPUT = (SIZE_PRESETS[EXAMPLE_SIZE], None, DEFAULT_FORMAT, False)
PLAYGROUND_LIFETIME = 86400  # seconds a playground cookie lasts; the page renews it on each visit
_DAY = 86400


@dataclass(frozen=True, slots=True)
class FreeImage:
    data: bytes
    width: int
    height: int
    source: str
    grant: Grant
    max_age: int | None  # seconds a shared cache may keep it (partner URLs: until exp)


class EmbedGrants:
    """Decides which free grant (if any) covers an embed request, and serves it."""

    def __init__(
        self,
        partners: PartnerStore,
        renderer: Renderer,
        settings: Settings,
        secret_key: str,
        budget: RenderBudget,
        clock: Clock,
        counters: Counters,
        *,
        live_session: Callable[[str], Awaitable[bool]] | None = None,
    ) -> None:
        self._partners = partners
        # the web layer's session check: a signed cookie outlives sign-out, the session does not
        self._live_session = live_session
        self._renderer = renderer
        self._settings = settings
        self._secret = secret_key
        self._budget = budget
        self._clock = clock
        self._counters = counters
        self._examples = {tuple(entry.split("/")) for entry in settings.embed_examples}

    async def check_partner_signature(self, raw: list[tuple[str, str]]) -> int:
        """Seconds until `exp` for a valid partner signature; 403 for anything else."""
        values = dict(raw)
        exp, sig = values.get("exp"), values.get("sig")
        if exp is None or sig is None:
            raise Forbidden("A signed embed URL needs both 'exp' and 'sig'.")
        if not re.fullmatch(r"[0-9]{1,12}", exp):
            raise Forbidden("'exp' must be unix seconds.")
        if not _SIGNATURE.fullmatch(sig):
            raise Forbidden("'sig' must be 64 lowercase hex characters (HMAC-SHA256).")
        left = int(exp) - math.floor(self._clock.time())
        if left <= 0:
            raise Forbidden("This signed embed URL expired.")
        if left > MAX_EMBED_LIFETIME:
            raise Forbidden("'exp' may be at most 30 days ahead.")
        for partner in await self._partners.active():
            if _equal(embed_signature(partner.secret, raw), sig):
                return left
        raise Forbidden("The signature does not match this URL.")

    def is_example(self, spec: ImageSpec) -> bool:
        """One of the home page's examples, at the size and in the format the page shows them
        (each other size or format would be another image to render and keep, for free)."""
        if (spec.width, spec.height, spec.format, spec.negotiated) != EXAMPLE_OUTPUT:
            return False
        if spec.finish is not None:  # the page shows each example in its preset's own finish
            return False
        vehicle = spec.vehicle
        entry = (vehicle.make.slug, vehicle.model.slug, str(vehicle.year), spec.view, spec.color)
        return entry in self._examples

    def playground_cookie(self, current: str | None = None) -> tuple[str, int]:
        """The playground cookie for a page visit and its lifetime in seconds: a fresh expiry,
        keeping the id of a still valid `current` cookie (its day's count goes on)."""
        kept = self._cookie_id({PLAYGROUND_COOKIE: current}, PLAYGROUND_COOKIE) if current else None
        payload = {
            "id": kept or secrets.token_urlsafe(12),
            "exp": self._clock.time() + PLAYGROUND_LIFETIME,
        }
        return sign_value(self._secret, PLAYGROUND_COOKIE, payload), PLAYGROUND_LIFETIME

    async def issue_playground_cookie(self, current: str | None, ip: str) -> tuple[str, int]:
        """`playground_cookie` for a visit from `ip`; a new cookie (no valid `current` one)
        counts against the address's `playground_cookies_per_minute` (429 past it)."""
        if self._cookie_id({PLAYGROUND_COOKIE: current or ""}, PLAYGROUND_COOKIE) is None:
            limit = self._settings.playground_cookies_per_minute
            wait = await per_address(self._counters, self._clock, "pg-mint", address_key(ip), limit)
            if wait is not None:
                raise RateLimited(
                    f"Too many new playground sessions from this address ({limit} a minute); "
                    f"try again in {wait} seconds.",
                    retry_after=wait,
                    code="playground_cookie_rate",
                    limit=limit,
                )
        return self.playground_cookie(current)

    def _cookie_id(self, cookies: dict[str, str], name: str) -> str | None:
        """The id of a valid cookie (signed for `name`, not expired), else None."""
        token = cookies.get(name)
        if not token:
            return None
        payload = unsign_value(self._secret, name, token)
        if not payload or float(payload.get("exp", 0)) <= self._clock.time():
            return None
        # a cookie signed without an id is told apart by its signature
        return str(payload.get("id") or token.rpartition(".")[2][:24])

    async def session_grant(self, cookies: dict[str, str], variant: str, ip: str) -> bool:
        """A signed-in session, or a playground cookie, within its daily previews of new variants
        and its address's (429 past either)."""
        settings, address = self._settings, address_key(ip)
        account = await self._signed_in(cookies)
        if account is not None:
            limit = settings.session_daily_limit
            await self._count_preview(("ps", account, limit, "account"), address, variant)
            return True
        playground = self._cookie_id(cookies, PLAYGROUND_COOKIE)
        if playground is None:
            return False
        limit = settings.playground_daily_limit
        await self._count_preview(("pg", playground, limit, "cookie"), address, variant)
        return True

    async def _signed_in(self, cookies: dict[str, str]) -> str | None:
        """The account of a validly signed, unexpired session cookie whose session is still
        live, else None."""
        token = cookies.get(SESSION_COOKIE)
        payload = unsign_value(self._secret, SESSION_COOKIE, token) if token else None
        if not payload or float(payload.get("exp", 0)) <= self._clock.time():
            return None
        if self._live_session is not None and not await self._live_session(
            str(payload.get("sid", ""))
        ):
            return None
        return str(payload.get("acc", ""))

    async def _count_preview(
        self, owner: tuple[str, str, int, str], address: str, variant: str
    ) -> None:
        """Count a variant new to its owner (a playground cookie `pg` or an account `ps`: kind,
        id, daily limit, scope) today against the owner's and the address's daily previews
        (each counts a variant once); 429, counting nothing, past either."""
        kind, owner_id, limit, scope = owner
        now = math.floor(self._clock.time())
        day, left = now // _DAY, _DAY - now % _DAY
        owner_total, address_total = f"{kind}:{owner_id}:{day}", f"pga:{address}:{day}"
        by_owner = await self._take(owner_total, variant, limit, left)
        if by_owner is False:
            return  # this cookie or account already previewed this variant today
        if by_owner is None:
            raise _preview_limit(scope, limit, day, left)
        address_limit = self._settings.preview_address_daily_limit
        if await self._take(address_total, variant, address_limit, left) is None:
            await self._give_back(owner_total, variant, left)
            raise _preview_limit("address", address_limit, day, left)

    async def _take(self, total_key: str, variant: str, limit: int, left: int) -> bool | None:
        """Count `variant` once under `total_key` for the day: False when it was counted
        already, True when counted now, None when that would pass `limit` (nothing counted)."""
        seen_key = f"{total_key}:{variant}"
        if await self._counters.incr(seen_key, 1, left) > 1:
            return False
        if await self._counters.incr(total_key, 1, left) > limit:
            await self._give_back(total_key, variant, left)
            return None
        return True

    async def _give_back(self, total_key: str, variant: str, left: int) -> None:
        await self._counters.incr(total_key, -1, left)
        await self._counters.incr(f"{total_key}:{variant}", -1, left)

    async def cached_only(self, spec: ImageSpec) -> FreeImage:
        """mode=cached: serve what is already rendered, never render."""
        if await self._renderer.cached(spec) is None:
            raise NotFound(
                "This variant was never rendered; mode=cached serves rendered variants only."
            )
        return await self.free(spec, "cached")

    async def free(self, spec: ImageSpec, grant: Grant, max_age: int | None = None) -> FreeImage:
        """Serve a free grant; a new render counts against the free grants' share of the
        deployment's daily ceiling."""
        if await self._renderer.is_cold(spec):
            await self._budget.reserve_free()
        image = await self._renderer.image(spec)
        return FreeImage(image.data, image.width, image.height, image.source, grant, max_age)


# scope of a preview limit -> who reached it, the problem's code, what to do instead
_PREVIEWERS = {
    "cookie": ("This playground session", "playground_daily_limit", "Sign in, or use an API key"),
    "account": ("This account's signed-in session", "session_daily_limit", "Use an API key"),
    "address": ("This address", "playground_daily_limit", "Use an API key"),
}


def _preview_limit(scope: str, limit: int, day: int, left: int) -> RateLimited:
    who, code, instead = _PREVIEWERS[scope]
    reset_at = datetime.fromtimestamp((day + 1) * _DAY, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return RateLimited(
        f"{who} previewed its {limit} free new images for today; previews resume at "
        f"{reset_at}. {instead} for more.",
        retry_after=left,
        code=code,
        limit=limit,
        reset_at=reset_at,
        scope=scope,
    )


def _equal(left: str, right: str) -> bool:
    return hmac.compare_digest(left, right)


def missing_grant() -> Unauthenticated:
    return Unauthenticated(
        "This embed needs a grant: a partner-signed URL (exp, sig), mode=cached, an API key "
        "header, or a playground session. Browsers should use signed delivery URLs "
        "(POST /api/v1/image-urls).",
        invalid=False,
    )
