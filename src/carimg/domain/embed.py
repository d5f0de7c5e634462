"""The legacy embed endpoint's grants, tried in the spec's order.

1. a partner-signed URL (exp + sig): free, publicly cacheable until exp, never redirected;
2. mode=cached: free, serves only variants already rendered, never renders;
3. the home-page examples: free;
4. an API key in a header (the `key` query parameter only when the legacy setting is on): 1 credit;
5. the playground cookie or a signed-in session: free.
Anything else is 401 (or, while the deployment still serves open embeds, free with a warning).
"""

from __future__ import annotations

import hmac
import math
import re
from dataclasses import dataclass
from typing import Literal

from carimg.config import Settings
from carimg.domain.clock import Clock
from carimg.domain.errors import Forbidden, NotFound, Unauthenticated
from carimg.domain.imagerequest import ImageSpec
from carimg.domain.images import Renderer
from carimg.domain.renderbudget import RenderBudget
from carimg.domain.signing import MAX_EMBED_LIFETIME, embed_signature, unsign_value
from carimg.store.partners import PartnerStore

Grant = Literal["partner", "cached", "example", "key", "session", "open"]
_SIGNATURE = re.compile(r"[0-9a-f]{64}")
PLAYGROUND_COOKIE = "carimg_playground"
SESSION_COOKIE = "carimg_session"


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
    ) -> None:
        self._partners = partners
        self._renderer = renderer
        self._settings = settings
        self._secret = secret_key
        self._budget = budget
        self._clock = clock
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
        vehicle = spec.vehicle
        entry = (vehicle.make.slug, vehicle.model.slug, str(vehicle.year), spec.view, spec.color)
        return entry in self._examples

    def has_session(self, cookies: dict[str, str]) -> bool:
        """A valid playground cookie or signed-in session cookie (both signed, with an expiry)."""
        for name in (PLAYGROUND_COOKIE, SESSION_COOKIE):
            token = cookies.get(name)
            payload = unsign_value(self._secret, name, token) if token else None
            if payload and float(payload.get("exp", 0)) > self._clock.time():
                return True
        return False

    async def cached_only(self, spec: ImageSpec) -> FreeImage:
        """mode=cached: serve what is already rendered, never render."""
        if self._renderer.cached(spec) is None:
            raise NotFound(
                "This variant was never rendered; mode=cached serves rendered variants only."
            )
        return await self.free(spec, "cached")

    async def free(self, spec: ImageSpec, grant: Grant, max_age: int | None = None) -> FreeImage:
        """Serve a free grant; a new render counts against the deployment's daily ceiling."""
        if self._renderer.cached(spec) is None and not self._renderer.has_source(spec):
            await self._budget.reserve_deployment()
        image = await self._renderer.image(spec)
        return FreeImage(image.data, image.width, image.height, image.source, grant, max_age)


def _equal(left: str, right: str) -> bool:
    return hmac.compare_digest(left, right)


def missing_grant() -> Unauthenticated:
    return Unauthenticated(
        "This embed needs a grant: a partner-signed URL (exp, sig), mode=cached, an API key "
        "header, or a playground session. Browsers should use signed delivery URLs "
        "(POST /api/v1/image-urls).",
        invalid=False,
    )
