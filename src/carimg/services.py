"""The composition root's parts: every service built once from the settings, closed together."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from carimg.backends import build_backend
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.account import AccountView
from carimg.domain.accounts import Accounts
from carimg.domain.billing import Billing, CheckoutProvider, LocalProvider, StripeProvider
from carimg.domain.clock import Clock, SystemClock
from carimg.domain.deliveryurls import DeliveryUrls
from carimg.domain.device import DeviceLogin
from carimg.domain.embed import EmbedGrants
from carimg.domain.feedback import FeedbackService
from carimg.domain.idempotency import Idempotency
from carimg.domain.images import ImageService, Renderer
from carimg.domain.ledger import Ledger
from carimg.domain.oauth import OAuthServer
from carimg.domain.outages import AnsweringCounters
from carimg.domain.plancaps import PlanCaps
from carimg.domain.pricing import Pricing, pricing_for
from carimg.domain.ratelimit import RateWindows
from carimg.domain.renderbudget import RenderBudget
from carimg.domain.web_accounts import WebAccounts, mailer_for
from carimg.queue import QueueRenders
from carimg.render import RenderPool
from carimg.store.accounts import AccountStore
from carimg.store.blobs import BlobStore, LocalBlobStore, S3BlobStore
from carimg.store.checkouts import CheckoutStore
from carimg.store.counters import MemoryCounters, RedisCounters
from carimg.store.credentials import CredentialStore
from carimg.store.db import Database, migrate
from carimg.store.delivery_urls import DeliveryUrlStore
from carimg.store.device_codes import DeviceCodeStore
from carimg.store.events import EventStore
from carimg.store.feedback import FeedbackStore
from carimg.store.idempotency import IdempotencyStore
from carimg.store.ledger import LedgerStore
from carimg.store.oauth import OAuthStore
from carimg.store.partners import PartnerStore
from carimg.store.render_cache import RenderCache
from carimg.store.usage import UsageStore


@dataclass
class Services:
    settings: Settings
    catalog: Catalog
    clock: Clock
    db: Database
    counters: AnsweringCounters
    accounts: Accounts
    ledger: Ledger
    rate: RateWindows
    images: ImageService
    delivery_urls: DeliveryUrls
    idempotency: Idempotency
    partners: PartnerStore
    embed: EmbedGrants
    secret_key: str
    pricing: Pricing
    billing: Billing
    account_view: AccountView
    feedback: FeedbackService
    events: EventStore
    render_pool: RenderPool
    device: DeviceLogin
    render_queue: QueueRenders | None  # CARIMG_RENDER_QUEUE=redis
    web_accounts: WebAccounts
    oauth: OAuthServer

    @property
    def engine(self) -> AsyncEngine:
        """The engine that writes (and can read): for tests and tools that run raw SQL."""
        return self.db.write

    async def close(self) -> None:
        await self.images.renderer.backend.close()
        self.render_pool.close()
        if self.render_queue is not None:
            await self.render_queue.close()
        self.images.renderer.cache.close()
        await self.counters.close()
        await self.db.dispose()


def _persistent_secret(path: Path) -> str:
    """A random secret created once per data directory and kept there (mode 0600)."""
    if path.exists():
        return path.read_text().strip()
    secret = secrets.token_urlsafe(32)
    path.write_text(secret)
    path.chmod(0o600)
    return secret


def build_blob_store(settings: Settings) -> BlobStore:
    """The S3 bucket when one is set, else the local render cache directory."""
    if settings.s3_bucket:
        return S3BlobStore(
            settings.s3_bucket,
            prefix=settings.s3_prefix,
            endpoint_url=settings.s3_endpoint_url,
            region=settings.s3_region,
            access_key_id=settings.s3_access_key_id,
            secret_access_key=settings.s3_secret_access_key,
        )
    bound = settings.render_cache_max_mb * 1024 * 1024 or None
    return LocalBlobStore(settings.render_cache_dir, max_bytes=bound)


def build_render_cache(settings: Settings) -> RenderCache:
    """The render cache of one process (server or render worker)."""
    return RenderCache(build_blob_store(settings), settings.derived_cache_mb * 1024 * 1024)


def _render_queue(settings: Settings, cache: RenderCache) -> QueueRenders | None:
    """Render jobs for `carimg worker` processes, when the deployment runs them."""
    if settings.render_queue == "local":
        return None
    if not settings.redis_url:
        raise ValueError("CARIMG_RENDER_QUEUE=redis needs CARIMG_REDIS_URL")
    return QueueRenders(
        settings.redis_url,
        settings.render_queue_name,
        cache,
        wait_seconds=settings.render_queue_wait,
    )


async def build_services(
    settings: Settings,
    catalog: Catalog,
    *,
    clock: Clock | None = None,
    render_pool: RenderPool | None = None,
) -> Services:
    """Open the database (migrated), counters, render pool and cache for one process."""
    clock = clock or SystemClock()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    db = Database.open(settings.resolved_database_url)
    await migrate(db.write)
    counters = AnsweringCounters(
        RedisCounters(settings.redis_url) if settings.redis_url else MemoryCounters()
    )
    ledger_store = LedgerStore(db)
    ledger = Ledger(ledger_store, clock)
    pool = render_pool or RenderPool(settings.render_workers)
    cache = build_render_cache(settings)
    pricing = pricing_for(settings.pricing_variant)
    feedback_store = FeedbackStore(db)
    usage = UsageStore(db)
    # a generative backend's servers call the model themselves: no render queue
    queue = _render_queue(settings, cache) if settings.render_backend == "procedural" else None
    renderer = Renderer(build_backend(settings, pool, cache, queue), cache, feedback_store)
    caps = PlanCaps(pricing, clock)
    budget = RenderBudget(
        counters, clock, settings.daily_render_ceiling, settings.free_render_share
    )
    account_store = AccountStore(db)
    images = ImageService(
        renderer,
        ledger,
        budget,
        usage,
        pricing,
        caps,
        clock,
    )
    secret_key = settings.secret_key or _persistent_secret(settings.data_dir / "secret.key")
    partners = PartnerStore(db)
    provider: CheckoutProvider = (
        StripeProvider(settings)
        if settings.payment_provider == "stripe"
        else LocalProvider(settings, secret_key, clock)
    )
    web_accounts = WebAccounts(
        CredentialStore(db),
        Accounts(account_store, ledger_store, clock),
        account_store,
        ledger,
        Billing(CheckoutStore(db), provider, pricing, settings, clock),
        pricing,
        counters,
        mailer_for(settings),
        settings,
        clock,
    )
    return Services(
        settings=settings,
        catalog=catalog,
        clock=clock,
        db=db,
        counters=counters,
        accounts=Accounts(account_store, ledger_store, clock),
        ledger=ledger,
        rate=RateWindows(counters, clock),
        images=images,
        delivery_urls=DeliveryUrls(
            DeliveryUrlStore(db),
            ledger_store,
            ledger,
            renderer,
            catalog,
            settings,
            caps,
            budget,
            account_store,
            clock,
        ),
        idempotency=Idempotency(IdempotencyStore(db, secret_key), clock),
        partners=partners,
        embed=EmbedGrants(
            partners,
            renderer,
            settings,
            secret_key,
            budget,
            clock,
            counters,
            live_session=web_accounts.session_is_live,
        ),
        secret_key=secret_key,
        pricing=pricing,
        billing=Billing(CheckoutStore(db), provider, pricing, settings, clock),
        account_view=AccountView(ledger, usage, pricing, settings, clock),
        feedback=FeedbackService(
            feedback_store, usage, renderer, catalog, clock, settings.feedback_flag_threshold
        ),
        events=EventStore(db, clock, settings.events_retention_days),
        render_pool=pool,
        render_queue=queue,
        device=DeviceLogin(
            DeviceCodeStore(db),
            Accounts(AccountStore(db), ledger_store, clock),
            AccountStore(db),
            counters,
            clock,
        ),
        web_accounts=web_accounts,
        oauth=OAuthServer(OAuthStore(db), account_store, settings, secret_key, clock),
    )
