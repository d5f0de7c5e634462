"""Feedback on delivered renders; repeated negative reports flag a render for regeneration.

A report names the image by the request id that delivered it, or by vehicle (with optional view,
color and finish). It is negative when the verdict is `bad` or the rating is 1 or 2. When the
negative reports on one render (at its current variation) reach the deployment's threshold
(`CARIMG_FEEDBACK_FLAG_THRESHOLD`, default 3), the render moves to its next variation: the next
delivery renders a new seed under a new ETag, and the old bytes stay in the cache for audit.
Only accounts that received that variation count: a report counts when it names the request id
of a paid delivery of the render to its account since the variation began. Any other report is
recorded and never moves a render (else accounts that never paid for an image could change its
ETag for everyone, and bill everyone's next conditional request as a new image).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from carimg.catalog import Catalog
from carimg.domain.clock import Clock
from carimg.domain.errors import InvalidParameter, NotFound
from carimg.domain.imagerequest import parse_color, parse_finish, parse_view, resolve_vehicle
from carimg.domain.images import Renderer
from carimg.domain.views import DEFAULT_COLOR, DEFAULT_VIEW
from carimg.render import paint_key
from carimg.store.feedback import FeedbackStore
from carimg.store.records import Principal
from carimg.store.usage import UsageStore

ASSET_NAMESPACE = uuid.UUID("6f1c3e52-3d1b-4c55-9d2e-8a0b1c9e7d41")


@dataclass(frozen=True, slots=True)
class FeedbackReport:
    request_id: str | None = None
    make: str | None = None
    model: str | None = None
    year: int | None = None
    view: str | None = None
    color: str | None = None
    finish: str | None = None
    rating: int | None = None
    verdict: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    asset_id: str
    flagged: bool


def asset_id(asset_key: str) -> str:
    return str(uuid.uuid5(ASSET_NAMESPACE, asset_key))


def is_negative(report: FeedbackReport) -> bool:
    return report.verdict == "bad" or (report.rating is not None and report.rating <= 2)


class FeedbackService:
    def __init__(
        self,
        store: FeedbackStore,
        usage: UsageStore,
        renderer: Renderer,
        catalog: Catalog,
        clock: Clock,
        threshold: int,
    ) -> None:
        self._store = store
        self._usage = usage
        self._renderer = renderer
        self._catalog = catalog
        self._clock = clock
        self._threshold = threshold

    async def _asset_key(self, principal: Principal, report: FeedbackReport) -> str:
        if report.request_id is not None:
            delivered = await self._usage.delivery(report.request_id, principal.account.id)
            if delivered is None:
                raise NotFound(f"Request '{report.request_id}' delivered no image to this account.")
            vehicle_id, view, paint = delivered
            return f"{vehicle_id}|{view}|{paint}"
        if report.make is None and report.model is None and report.year is None:
            raise InvalidParameter(
                "request_id", "Name the image: its request_id, or make, model and year."
            )
        vehicle = resolve_vehicle(
            self._catalog, {"make": report.make, "model": report.model, "year": report.year}
        )
        view = parse_view(report.view or DEFAULT_VIEW)
        color = parse_color(report.color or DEFAULT_COLOR)
        paint = paint_key(color, parse_finish(report.finish, color))  # as ImageSpec.asset_key
        return f"{vehicle.id}|{view}|{paint}"

    async def record(self, principal: Principal, report: FeedbackReport) -> Recorded:
        if report.rating is None and report.verdict is None:
            raise InvalidParameter("rating", "Send a rating (1–5) or a verdict (good or bad).")
        key = await self._asset_key(principal, report)
        variation = await self._store.variation(key)
        await self._store.add(
            feedback_id=str(uuid.uuid4()),
            account_id=principal.account.id,
            asset_key=key,
            variation=variation,
            rating=report.rating,
            verdict=report.verdict,
            reason=report.reason or "",
            request_id=report.request_id,
            now=self._clock.now(),
        )
        flagged = False
        if (
            is_negative(report)
            and await self._store.negative_count(key, variation) >= self._threshold
        ):
            flagged = await self._store.advance_variation(key, variation, self._clock.now())
        return Recorded(asset_id=asset_id(key), flagged=flagged)
