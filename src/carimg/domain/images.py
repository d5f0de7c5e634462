"""Delivering an image: cache first, one credit per delivery, one render per new variant.

The order matters: every check that can fail for free (validation, rate, budgets, plan caps,
balance) happens before the charge; a render or encode that fails after the charge is refunded.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import logging
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol

import numpy as np
from numpy.typing import NDArray
from PIL import Image
from sqlalchemy.ext.asyncio import AsyncConnection

from carimg import metrics
from carimg.catalog import Vehicle
from carimg.domain.clock import Clock
from carimg.domain.errors import RenderFailed, Unavailable
from carimg.domain.etags import etag_matches
from carimg.domain.ids import ordered_hex
from carimg.domain.imagerequest import ImageSpec
from carimg.domain.ledger import Ledger
from carimg.domain.outages import answering
from carimg.domain.plancaps import PlanCaps
from carimg.domain.pricing import Pricing
from carimg.domain.renderbudget import RenderBudget
from carimg.formats import MEDIA_TYPES
from carimg.render import Appearance, derive
from carimg.store.ledger import PaidFor
from carimg.store.records import Account, Principal
from carimg.store.render_cache import RenderCache

logger = logging.getLogger("carimg.images")

ImageSource = Literal["cache", "generated"]


@dataclass(frozen=True, slots=True)
class DeliveredImage:
    data: bytes
    media_type: str
    width: int
    height: int
    etag: str
    source: ImageSource
    credits_charged: int
    credits_remaining: int


@dataclass(frozen=True, slots=True)
class RenderedImage:
    data: bytes
    width: int
    height: int
    source: ImageSource


@dataclass(frozen=True, slots=True)
class NotModified:
    etag: str


class VariationSource(Protocol):
    async def variation(self, asset_key: str) -> int: ...

    def variation_now(self, asset_key: str) -> int | None:
        """The variation when known without waiting, else None."""


@dataclass(frozen=True, slots=True)
class SourceRequest:
    """A source render to make: one catalog vehicle, view, paint and variation (seed)."""

    key: str  # where the source goes in the render cache
    vehicle: Vehicle
    view: str
    paint: str  # a preset name or "#rrggbb"
    variation: int

    @property
    def appearance(self) -> Appearance:
        model = self.vehicle.model
        return Appearance(
            self.vehicle.make.slug, model.slug, self.vehicle.year, model.body_style, self.variation
        )


class RenderBackend(Protocol):
    """Who makes new source renders (`carimg.backends`: the procedural renderer, a generative
    model): 1024×1024 RGBA PNGs, in the render cache under the request's key by the time
    `render` returns. Its failures are `Unavailable` (503: retry) or any other error (502)."""

    @property
    def version(self) -> str:
        """Part of every render-cache key and ETag: changes whenever the output would."""

    def admit(self) -> None:
        """Raise `Unavailable` when no new render can start now (before anything is charged)."""

    async def render(self, request: SourceRequest) -> bytes: ...

    async def close(self) -> None: ...


class Renderer:
    """Source renders through the render backend and the cache, one render per new variant."""

    def __init__(
        self, backend: RenderBackend, cache: RenderCache, variations: VariationSource
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.version = backend.version
        self._variations = variations
        self._in_flight: dict[str, asyncio.Future[bytes]] = {}
        self._sizes: dict[str, tuple[int, int]] = {}  # variant key -> pixels
        self._etags: dict[str, str] = {}  # variant key -> ETag

    async def current(self, spec: ImageSpec) -> ImageSpec:
        """The spec at its asset's current variation (feedback may have flagged the render)."""
        variation = await self._variations.variation(spec.asset_key)
        return replace(spec, variation=variation) if variation != spec.variation else spec

    def current_now(self, spec: ImageSpec) -> ImageSpec | None:
        """`current` when known without waiting (the variations are fresh), else None."""
        variation = self._variations.variation_now(spec.asset_key)
        if variation is None:
            return None
        return replace(spec, variation=variation) if variation != spec.variation else spec

    def etag(self, spec: ImageSpec) -> str:
        """Strong validator, stable per variant and renderer version."""
        key = spec.variant_key(self.version)
        etag = self._etags.get(key)
        if etag is None:
            if len(self._etags) >= 50_000:
                self._etags.clear()
            etag = self._etags[key] = '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'
        return etag

    def in_memory(self, spec: ImageSpec) -> RenderedImage | None:
        """The image when this process holds it in memory: the hot case, no I/O at all."""
        key = self.memory_key(spec)
        data = self.held(key)
        if data is None:
            return None
        return RenderedImage(data, *self._size(key, data), "cache")

    def memory_key(self, spec: ImageSpec) -> str:
        """What `held` takes for `spec`."""
        return spec.variant_key(self.version)

    def held(self, key: str) -> bytes | None:
        """The bytes under `memory_key(spec)` while this process holds them in memory (each
        call counts as a use: the cache lets the least recently used go first), else None."""
        data = self.cache.peek_derived(key)
        if data is not None:
            metrics.tally.inc(metrics.RENDER_CACHE_HIT)
        return data

    def _size(self, key: str, data: bytes) -> tuple[int, int]:
        size = self._sizes.get(key)
        if size is None:
            size = self._sizes[key] = image_size(data)
            if len(self._sizes) > 50_000:  # a few MB at most: start over
                self._sizes.clear()
        return size

    async def cached(self, spec: ImageSpec) -> bytes | None:
        with answering():
            return await self.cache.get_derived(spec.variant_key(self.version))

    async def has_source(self, spec: ImageSpec) -> bool:
        with answering():
            return await self.cache.has_source(spec.source_key(self.version))

    async def is_cold(self, spec: ImageSpec) -> bool:
        """Neither the image nor its source exists yet: serving it means a new render (and the
        backend must take one now: else `Unavailable`, raised before anything is charged)."""
        cold = await self.cached(spec) is None and not await self.has_source(spec)
        if cold:
            self.backend.admit()
        return cold

    async def source(self, spec: ImageSpec) -> bytes:
        """The source PNG: from the cache, or rendered once however many requests wait for it."""
        key = spec.source_key(self.version)
        with answering():
            cached = await self.cache.get_source(key)
        if cached is not None:
            return cached
        running = self._in_flight.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        started = time.perf_counter()
        try:
            request = SourceRequest(key, spec.vehicle, spec.view, spec.paint, spec.variation)
            with answering():
                png = await self.backend.render(request)
            metrics.RENDERS_OK.inc()
            metrics.RENDER_SECONDS.observe(time.perf_counter() - started)
            future.set_result(png)
            return png
        except BaseException as error:
            if isinstance(error, Exception):
                metrics.RENDERS_FAILED.inc()
            future.set_exception(error)
            future.exception()  # mark retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._in_flight[key]

    async def image(self, spec: ImageSpec) -> RenderedImage:
        """The encoded image and where it came from: derived cache, cached source, or a render."""
        cached = await self.cached(spec)
        if cached is not None:
            size = self._size(spec.variant_key(self.version), cached)
            metrics.tally.inc(metrics.RENDER_CACHE_HIT)
            return RenderedImage(cached, size[0], size[1], "cache")
        generated = not await self.has_source(spec)
        data, width, height = await self.derived(spec)
        (metrics.RENDER_CACHE_MISS if generated else metrics.RENDER_CACHE_DERIVED).inc()
        return RenderedImage(data, width, height, "generated" if generated else "cache")

    async def derived(self, spec: ImageSpec) -> tuple[bytes, int, int]:
        """The encoded image asked for, derived from the source and cached."""
        source = await self.source(spec)
        image = await asyncio.to_thread(_derive, source, spec)
        with answering():
            await self.cache.put_derived(spec.variant_key(self.version), image[0])
        return image


def _derive(source_png: bytes, spec: ImageSpec) -> tuple[bytes, int, int]:
    with Image.open(io.BytesIO(source_png)) as opened:
        rgba: NDArray[np.uint8] = np.asarray(opened.convert("RGBA"))
    result = derive(rgba, spec.output)
    return result.data, result.width, result.height


def image_size(data: bytes) -> tuple[int, int]:
    """Pixel size from the encoded header (Pillow reads only the header)."""
    with Image.open(io.BytesIO(data)) as opened:
        return opened.size


class DeliveryRecords(Protocol):
    """What delivering an image records (`carimg.store.usage.UsageStore`)."""

    def delivery_record(
        self,
        request_id: str,
        account_id: str,
        vehicle_id: str,
        view: str,
        paint: str,
        now: datetime,
    ) -> PaidFor:
        """The record of one delivery, written with the debit that pays for it."""

    async def forget_delivery(self, request_id: str, account_id: str) -> None: ...

    async def forget_vehicles(
        self, account_id: str, month: str, vehicle_ids: list[str]
    ) -> None: ...


class ImageService:
    """Charges and delivers images."""

    def __init__(
        self,
        renderer: Renderer,
        ledger: Ledger,
        budget: RenderBudget,
        usage: DeliveryRecords,
        pricing: Pricing,
        caps: PlanCaps,
        clock: Clock,
    ) -> None:
        self.renderer = renderer
        self._ledger = ledger
        self._budget = budget
        self._usage = usage
        self._pricing = pricing
        self._caps = caps
        self._clock = clock

    async def deliver(
        self,
        principal: Principal,
        spec: ImageSpec,
        *,
        request_id: str,
        if_none_match: str | None,
    ) -> DeliveredImage | NotModified:
        """One image for one credit; a matching If-None-Match (a 304) costs nothing."""
        spec = await self.renderer.current(spec)
        etag = self.renderer.etag(spec)
        if etag_matches(if_none_match, etag):
            return NotModified(etag)
        account = principal.account
        image = self.renderer.in_memory(spec)  # the hot case: nothing to render or read
        reserved = image is None and await self.renderer.is_cold(spec)
        if reserved:
            await self._budget.reserve(account)
        counted: list[str] = []  # vehicles this request counted toward a plan cap
        try:
            balance, reference = await self._charge(account, spec, request_id, counted)
        except BaseException:
            if reserved:  # refused (or failed) before rendering: the reservation goes back
                await asyncio.shield(self._budget.release(account))
            raise
        try:
            if image is None:
                image = await self.renderer.image(spec)
        except Exception as error:
            logger.exception("render failed", extra={"request_id": request_id})
            await self._ledger.refund(reference, note="render failed")
            await self._usage.forget_delivery(request_id, account.id)
            await self._usage.forget_vehicles(account.id, self._caps.month(), counted)
            if isinstance(error, Unavailable):
                raise
            raise RenderFailed(
                "The render failed; the credit was refunded. Retry, or try another view."
            ) from error
        return DeliveredImage(
            data=image.data,
            media_type=MEDIA_TYPES[spec.format],
            width=image.width,
            height=image.height,
            etag=etag,
            source=image.source,
            credits_charged=self._pricing.credits_per_image,
            credits_remaining=balance,
        )

    async def _charge(
        self, account: Account, spec: ImageSpec, request_id: str, counted: list[str]
    ) -> tuple[int, str]:
        """Debit one image and record the delivery (and plan usage, into `counted`) with it."""
        reference = f"debit:image:{ordered_hex(10)}"  # appended to the unique index
        now = self._clock.now()

        paid_for = self._usage.delivery_record(
            request_id, account.id, spec.vehicle.id, spec.view, spec.paint, now
        )
        if self._caps.plan_of(account) is not None:  # a capped plan counts the vehicle too

            async def count(conn: AsyncConnection, _balance: int) -> None:
                counted.extend(await self._caps.admit(conn, account, [spec.vehicle.id]))

            paid_for = paid_for.after(count)
        balance = await self._ledger.charge(
            account.id,
            self._pricing.credits_per_image,
            reference,
            note=f"{spec.vehicle.id} {spec.view} {request_id}",
            also=paid_for,
        )
        return balance, reference
