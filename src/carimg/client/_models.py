"""Typed responses. JSON answers are pydantic models that keep members they do not name
(`extra="allow"`), so a newer service never breaks an older client; images are plain values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True, defer_build=True)


# --- images and URLs --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Image:
    """An image from `GET /api/v1/images/car`, a delivery URL or the embed endpoint.

    `not_modified` is True for a 304 (If-None-Match matched): `data` is empty and nothing was
    charged.
    """

    data: bytes
    content_type: str
    etag: str | None
    width: int | None
    height: int | None
    source: str | None  # cache | generated
    credits_charged: int | None
    credits_remaining: int | None
    request_id: str | None
    content_location: str | None = None
    not_modified: bool = False

    @property
    def extension(self) -> str:
        """File extension for the image's type: png, webp or jpg."""
        subtype = self.content_type.split(";")[0].split("/")[-1].strip()
        return "jpg" if subtype == "jpeg" else subtype or "bin"


@dataclass(frozen=True, slots=True)
class DeliveryCheck:
    """`HEAD /api/v1/delivery/{token}`: valid, with the type it will serve (no use consumed)."""

    content_type: str
    request_id: str | None


class VehicleParams(_Model):
    make: str
    model: str
    year: int
    view: str
    color: str
    format: str
    finish: str | None = None  # only when one was asked for
    width: int | None = None
    height: int | None = None


class DeliveryUrl(_Model):
    id: str
    url: str
    expires_at: str
    max_uses: int
    vehicle: VehicleParams
    renews_until: str | None = None


class ImageUrlData(_Model):
    url: str
    expires_at: str
    max_uses: int
    vehicle: VehicleParams
    width: int
    height: int
    format: str


class Billing(_Model):
    credits_charged: int
    credits_remaining: int


class UrlsBilling(Billing):
    charged_on: Literal["creation"] = "creation"
    credits_per_url: int = 1


class ImageUrlResponse(_Model):
    """`GET /api/v1/images/car?response=url`: one signed URL, charged now."""

    data: ImageUrlData
    billing: Billing
    request_id: str


class ImageUrlsResponse(_Model):
    """`POST /api/v1/image-urls`: the URLs and the one debit that paid for them.

    `replayed` is True when the service answered from an earlier request with the same
    Idempotency-Key (nothing new was charged)."""

    data: list[DeliveryUrl]
    billing: UrlsBilling
    request_id: str
    replayed: bool = False
    idempotency_key: str | None = None


# --- catalog ----------------------------------------------------------------------------------


class CatalogMake(_Model):
    id: int
    name: str
    slug: str


class CatalogModel(_Model):
    name: str
    slug: str
    vehicle_type: str | None = None
    body_style: str | None = None


class CatalogVehicle(_Model):
    id: str
    year: int


class CatalogSearchHit(_Model):
    kind: Literal["make", "model"]
    make_name: str
    make_slug: str
    years: list[int]
    match_kind: str
    model_name: str | None = None
    model_slug: str | None = None
    vehicle_type: str | None = None


class _CatalogAnswer(_Model):
    """The `data` of a `GET /api/v1/vehicles` answer, with the answer's `request_id`."""

    request_id: str | None = None


class YearsData(_CatalogAnswer):
    years: list[int]


class YearMakesData(_CatalogAnswer):
    year: int
    makes: list[CatalogMake]


class YearMakeModelsData(_CatalogAnswer):
    year: int
    make_id: int
    models: list[CatalogModel]


class SearchData(_CatalogAnswer):
    query: str
    year: int | None = None
    results: list[CatalogSearchHit]


class MakeModelsData(_CatalogAnswer):
    make: CatalogMake
    year: int | None = None
    models: list[CatalogModel]


class MakeModelYearsData(_CatalogAnswer):
    make: CatalogMake
    model: CatalogModel
    years: list[int]
    vehicles: list[CatalogVehicle] = Field(default_factory=list)


VehiclesData = (
    YearsData
    | YearMakesData
    | YearMakeModelsData
    | SearchData
    | MakeModelsData
    | MakeModelYearsData
)


class Envelope(_Model):
    """`{data, request_id}` with data of any shape (options, pricing)."""

    data: dict[str, Any]
    request_id: str | None = None


class Options(Envelope):
    """`GET /api/v1/images/options`: views, colors, sizes, formats, pricing, catalog, limits."""

    @property
    def views(self) -> list[dict[str, Any]]:
        return list(self.data.get("views", []))

    @property
    def colors(self) -> list[dict[str, Any]]:
        return list(self.data.get("colors", []))

    @property
    def finishes(self) -> list[dict[str, Any]]:
        """Paint finishes (carimg's own `finish` parameter); absent from other services."""
        return list(self.data.get("finishes", []))


class Pricing(Envelope):
    """`GET /api/v1/pricing`: packs, plans (variant B), credits per dollar."""


class Health(_Model):
    status: str
    checks: dict[str, str] = Field(default_factory=dict)
    failing: list[str] = Field(default_factory=list)
    request_id: str | None = None


# --- resolve, feedback, account, billing, events ---------------------------------------------


class ResolvedParams(_Model):
    make: str
    model: str
    year: int
    view: str
    color: str
    size: str | None = None
    width: int | None = None
    format: str | None = None
    vehicle_id: str | None = None


class ResolveCandidate(_Model):
    make_name: str
    make_slug: str
    model_name: str | None = None
    model_slug: str | None = None
    years: list[int] = Field(default_factory=list)
    match_kind: str | None = None


class ResolveData(_Model):
    params: ResolvedParams
    display: dict[str, str]
    candidates: list[ResolveCandidate]
    confidence: Literal["high", "medium", "low"]
    image_path: str
    extracted: dict[str, Any]


class Resolution(_Model):
    """`POST /api/v1/images/resolve`."""

    data: ResolveData
    request_id: str


class FeedbackData(_Model):
    asset_id: str
    recorded: bool
    flagged: bool | None = None


class FeedbackResult(_Model):
    data: FeedbackData
    request_id: str


class AccountData(_Model):
    credits: int
    credits_value_usd: float | None = None
    auto_reload: bool | None = None
    has_payment_method: bool | None = None
    pricing: dict[str, Any] = Field(default_factory=dict)
    usage_30d: dict[str, Any] | None = None
    key: dict[str, Any] | None = None
    plan: Any = None
    email: str | None = None


class Account(_Model):
    """`GET /api/v1/account`: balance, pricing, usage, this key, links."""

    data: AccountData
    links: dict[str, str] = Field(default_factory=dict)
    request_id: str | None = None


class HostedUrlData(_Model):
    url: str


class Checkout(_Model):
    """`POST /api/v1/billing/checkout`: a hosted page a human opens to pay."""

    data: HostedUrlData
    request_id: str | None = None


class Portal(_Model):
    """`POST /api/v1/billing/portal`: the hosted customer portal."""

    data: HostedUrlData
    request_id: str | None = None


class EventsAccepted(_Model):
    accepted: int
    request_id: str | None = None


class DeviceCode(_Model):
    """`POST /api/auth/device/code` (RFC 8628 §3.2)."""

    device_code: str
    user_code: str
    verification_uri: str | None = None
    verification_uri_complete: str
    expires_in: int = 600
    interval: int = 5
    request_id: str | None = None


class DeviceToken(_Model):
    """`POST /api/auth/device/token` after approval: the new key, returned exactly once."""

    access_token: str
    token_type: str = "Bearer"
    scope: str = ""
    api_key: str | None = None
    key_id: str | None = None
    key_prefix: str | None = None
    request_id: str | None = None

    @property
    def key(self) -> str:
        return self.api_key or self.access_token
