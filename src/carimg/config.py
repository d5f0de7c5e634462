"""Settings: one object, read from `CARIMG_*` environment variables, built once and passed down."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from carimg.domain import limits


class Settings(BaseSettings):
    """Every knob of a deployment. Defaults run one process on SQLite with no external service."""

    model_config = SettingsConfigDict(env_prefix="CARIMG_", extra="ignore", frozen=True)

    data_dir: Path = Field(
        default=Path("var"), description="Directory for the SQLite database and the render cache."
    )
    database_url: str | None = Field(
        default=None,
        description="SQLAlchemy URL; default is SQLite at `{data_dir}/carimg.db`.",
    )
    base_url: str = Field(
        default="http://127.0.0.1:8000",
        description="Public address of this deployment, used in links and problem `type` URLs.",
    )
    pricing_variant: Literal["A", "B"] = Field(
        default="A", description="Pricing and cache variant of the spec (A or B)."
    )
    render_workers: int = Field(
        default=1, ge=0, description="Render processes; 0 renders in-process (tests)."
    )
    delivery_ttl_default: int = Field(default=3600, ge=60, le=604800)
    delivery_ttl_min: int = Field(default=60, ge=60, le=604800)
    delivery_ttl_max: int = Field(default=604800, ge=60, le=604800)
    max_batch_urls: int = Field(default=50, ge=1, le=50)
    delivery_origin_sec_fetch: bool = Field(
        default=True,
        description="A signed URL whose key lists allowed origins, loaded by a page that names "
        "no site (neither Referer nor Origin): refused (403 origin_not_allowed) when the "
        "browser's Sec-Fetch-Site says another site's page asked (cross-site, same-site); "
        "false: every such load passes, as the spec's letter has it.",
    )
    render_cache_path: Path | None = Field(
        default=None, description="Render cache directory; default `{data_dir}/renders`."
    )
    render_cache_max_mb: int = Field(
        default=10240,
        ge=0,
        description="Most megabytes the local render cache directory may hold (0: no bound); "
        "past it the least recently used derived images are deleted, source renders last. "
        "A bucket (`s3_bucket`) is not bounded here: use its lifecycle rules.",
    )
    redis_url: str | None = Field(
        default=None,
        description="Redis URL for rate windows and render budgets shared by several processes.",
    )
    render_queue: Literal["local", "redis"] = Field(
        default="local",
        description="`local`: new renders run in this process's render pool; `redis`: in "
        "`carimg worker` processes fed through Redis (needs `redis_url` and a render cache "
        "every process shares: one directory or an S3 bucket).",
    )
    render_queue_name: str = Field(
        default="carimg:renders", description="Redis queue (and job id prefix) of render jobs."
    )
    render_queue_wait: float = Field(
        default=30, gt=0, description="Seconds a request waits for a worker's render (then 503)."
    )
    render_job_timeout: float = Field(
        default=20,
        gt=0,
        description="Seconds a worker may spend on one render; a job whose worker died is "
        "retried this long (plus 2 s) after it started.",
    )
    render_backend: Literal["procedural", "openai"] = Field(
        default="procedural",
        description="Who makes new source renders: `procedural` (the built-in renderer: "
        "offline, free, deterministic) or `openai` (an OpenAI-compatible image model, "
        "`openai_*` settings; servers call it themselves, not through the render queue).",
    )
    openai_api_key: SecretStr | None = Field(
        default=None,
        description="API key of the image model's provider (never logged or shown); may be "
        "unset for a self-hosted server that needs none.",
    )
    openai_base_url: str | None = Field(
        default=None,
        description="An OpenAI-compatible images API, e.g. `http://gpu-host:8000/v1`; default: "
        "OpenAI's.",
    )
    openai_model: str = Field(
        default="gpt-image-2.5-sunburst",
        min_length=1,
        description="Image model (part of the render version: changing it changes every ETag).",
    )
    openai_quality: Literal["low", "medium", "high", "auto"] = Field(
        default="medium",
        description="Image quality asked of the model (price and time grow "
        "with it); part of the render version.",
    )
    openai_timeout: float = Field(
        default=150,
        gt=0,
        le=170,
        description="Seconds one new source may take, reference generation and edit together "
        "(the spec tells clients to allow three minutes); past it the request is a 502, "
        "refunded.",
    )
    openai_concurrency: int = Field(
        default=4, ge=1, description="Model calls in flight at once in one server process."
    )
    openai_fleet_concurrency: int = Field(
        default=16,
        ge=1,
        description="Model calls in flight at once across every process (needs `redis_url`; "
        "also makes each reference and view once across the fleet).",
    )
    openai_breaker_failures: int = Field(
        default=5,
        ge=1,
        description="Provider failures in a row (timeouts, 5xx) that open the circuit breaker: "
        "new renders then answer 503 with Retry-After, charging nothing.",
    )
    openai_breaker_seconds: float = Field(
        default=30, gt=0, description="Seconds the circuit breaker stays open."
    )
    daily_render_ceiling: int = Field(
        default=20000, ge=1, description="New (cold) renders per day for the whole deployment."
    )
    derived_cache_mb: int = Field(
        default=64, ge=0, description="In-memory cache of encoded images, megabytes per process."
    )
    secret_key: str | None = Field(
        default=None,
        description="Signs cookies; default: a random key kept in `{data_dir}/secret.key`.",
    )
    embed_examples: tuple[str, ...] = Field(
        default=(
            "toyota/camry/2020/front-3-4/silver",
            "ford/f-150/2022/front-3-4/blue",
            "porsche/911/2020/side/red",
            "honda/cr-v/2021/front-3-4/white",
            "toyota/sienna/2021/side/gray",
            "harley-davidson/road-glide/2024/side/black",
        ),
        description="Free home-page example variants (make/model/year/view/color) on the embed "
        "endpoint.",
    )
    embed_query_key: bool = Field(
        default=False, description="Honour the deprecated `key` query parameter on /images/car.png."
    )
    embed_open: bool = Field(
        default=False,
        description="Serve unauthenticated embeds (with an X-Api-Key-Warning header).",
    )
    payment_provider: Literal["local", "stripe"] = Field(
        default="local",
        description="`local`: a hosted checkout page an operator confirms; `stripe`: Stripe "
        "Checkout, webhooks and the billing portal.",
    )
    stripe_secret_key: str | None = Field(default=None, description="Stripe API key (sk_…).")
    stripe_webhook_secret: str | None = Field(
        default=None, description="Stripe webhook signing secret (whsec_…)."
    )
    operator_token: str | None = Field(
        default=None,
        description="Lets an operator confirm local checkouts on the hosted page (else use "
        "`carimg admin confirm-checkout`).",
    )
    feedback_flag_threshold: int = Field(
        default=3, ge=1, description="Negative reports that flag a render for regeneration."
    )
    oauth_issuer: str | None = Field(
        default=None,
        description="An external identity provider (issuer URL, exactly as in its tokens) as the "
        "authorization server of connected apps. Unset: carimg's own (/oauth/…). Set: the "
        "protected-resource metadata names it, and its JWT access tokens (RFC 9068) are "
        "accepted, checked against the keys its metadata's jwks_uri serves.",
    )
    oauth_audience: str | None = Field(
        default=None,
        description="The audience (`aud`) the external provider's access tokens must name; "
        "default `{base_url}/api/mcp`.",
    )
    oauth_account_claim: str = Field(
        default="email",
        min_length=1,
        description="The claim of the external provider's access tokens that holds the e-mail "
        "address of the carimg account.",
    )
    oauth_access_token_seconds: int = Field(
        default=3600, ge=60, le=86400, description="Lifetime of connected apps' access tokens."
    )
    event_loop: Literal["auto", "asyncio", "uvloop"] = Field(
        default="auto",
        description="Event loop of `carimg serve`'s processes. `auto`: uvloop when installed, "
        "else asyncio's own.",
    )
    log_level: str = Field(default="info", description="Log level of carimg and its server.")
    s3_bucket: str | None = Field(
        default=None,
        description="Keep the render cache in this S3 bucket instead of the local directory.",
    )
    s3_endpoint_url: str | None = Field(
        default=None, description="S3-compatible endpoint (MinIO, …); default: AWS."
    )
    s3_region: str | None = Field(default=None, description="S3 region.")
    s3_access_key_id: str | None = Field(
        default=None, description="S3 access key id; default: boto3's credential chain."
    )
    s3_secret_access_key: str | None = Field(default=None, description="S3 secret access key.")
    s3_prefix: str = Field(
        default="renders/", description="Key prefix of the render cache inside the bucket."
    )
    log_format: Literal["json", "text"] = Field(
        default="json",
        description="`carimg serve` logs: one JSON object per line, or plain text. Keys, tokens, "
        "signatures and cookies are redacted in both.",
    )
    metrics_token: str | None = Field(
        default=None,
        description="When set, GET /metrics needs `Authorization: Bearer <token>`; else it is "
        "open (serve it on an internal network only).",
    )
    shutdown_timeout: int = Field(
        default=30,
        ge=1,
        description="Seconds a stopping server waits for requests in flight before it closes them.",
    )
    session_days: int = Field(
        default=14, ge=1, le=365, description="Days a web sign-in lasts (the session cookie)."
    )
    password_hash_memory_kib: int = Field(
        default=65536, ge=64, description="argon2id memory per password hash, KiB (RFC 9106)."
    )
    password_hash_iterations: int = Field(
        default=3, ge=1, description="argon2id passes per password hash."
    )
    smtp_host: str | None = Field(
        default=None,
        description="Mail server for password-reset links; unset: no link is mailed or logged, "
        "the server log (level WARNING, logger carimg.web) says who asked, and "
        "`carimg admin reset-link --email E` prints a link for the operator to pass on.",
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="Mail server port.")
    smtp_username: str | None = Field(default=None, description="Mail server user name.")
    smtp_password: str | None = Field(default=None, description="Mail server password.")
    smtp_starttls: bool = Field(default=True, description="Upgrade the mail connection (STARTTLS).")
    mail_from: str = Field(
        default="carimg <no-reply@localhost>", description="Sender of password-reset mail."
    )
    playground_daily_limit: int = Field(
        default=200,
        ge=1,
        description="New image variants one playground cookie may preview per day (UTC) on "
        "/images/car.png; past it the preview answers 429.",
    )
    session_daily_limit: int = Field(
        default=200,
        ge=1,
        description="New image variants one signed-in account may preview for free per day "
        "(UTC) on /images/car.png (the session grant); past it the preview answers 429.",
    )
    preview_address_daily_limit: int = Field(
        default=1000,
        ge=1,
        description="New image variants the playground and signed-in sessions may preview for "
        "free per day (UTC) for one client address (an IPv6 address counts by its /64), whatever "
        "cookies and accounts it uses; past it the preview answers 429. Behind a proxy every "
        "client shares the proxy's address.",
    )
    playground_cookies_per_minute: int = Field(
        default=10,
        ge=1,
        description="New playground cookies one client address may be given per minute (a visit "
        "with a valid cookie keeps it); past it /playground answers 429 without a cookie.",
    )
    free_render_share: float = Field(
        default=0.10,
        ge=0,
        le=1,
        description="Share of `daily_render_ceiling` that free grants (playground, signed-in "
        "sessions, home-page examples, partner-signed and open embeds) may spend on new renders "
        "each day; past it they serve cached images only (502 generation_at_capacity), and the "
        "rest of the ceiling stays for paying accounts.",
    )
    events_retention_days: int = Field(
        default=90,
        ge=1,
        description="Days funnel events (POST /api/v1/events) are kept; each server process "
        "deletes older ones at most once an hour.",
    )
    catalog_requests_per_minute: int = Field(
        default=limits.CATALOG_REQUESTS_PER_MINUTE,
        ge=1,
        description="Requests one client address may make a minute to the free catalog "
        "endpoints (/api/v1/vehicles, /api/v1/images/options) together; then 429.",
    )
    max_header_bytes: int = Field(
        default=limits.MAX_HEADER_BYTES,
        ge=1024,
        description="Most bytes of all header names and values of one request together; more "
        "is 431. Servers hold no more of a request head than every limit allows.",
    )
    max_header_field_bytes: int = Field(
        default=limits.MAX_HEADER_FIELD_BYTES,
        ge=256,
        description="Most bytes of one header (name and value); more is 431.",
    )
    max_request_target_bytes: int = Field(
        default=limits.MAX_REQUEST_TARGET_BYTES,
        ge=256,
        description="Most bytes of the request line's target (path and query); more is 414.",
    )
    max_headers: int = Field(
        default=limits.MAX_HEADERS, ge=8, description="Most headers one request may carry (431)."
    )
    header_timeout: float = Field(
        default=limits.HEADER_TIMEOUT_SECONDS,
        gt=0,
        description="Seconds a request's head (request line and headers) may take to arrive, "
        "from its first byte or the connection's start; then the connection is closed (408).",
    )

    @field_validator("base_url")
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to SQLite inside the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'carimg.db').resolve()}"

    @property
    def render_cache_dir(self) -> Path:
        return self.render_cache_path or self.data_dir / "renders"
