"""SQL tables (SQLAlchemy Core), shared by SQLite and PostgreSQL. Alembic migrations create them."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.engine import Dialect


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every engine (SQLite hands back naive ones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is not None:
            value = value.astimezone(UTC)
            if dialect.name == "sqlite":
                value = value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


metadata = MetaData()

accounts = Table(
    "accounts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("email", String(320), nullable=False, unique=True),
    Column("plan", String(20), nullable=False, server_default="free"),
    Column("status", String(20), nullable=False, server_default="active"),
    Column("credits", BigInteger, nullable=False, server_default="0"),
    Column("created_at", UtcDateTime(), nullable=False),
    CheckConstraint("credits >= 0", name="ck_accounts_credits_not_negative"),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("name", String(80), nullable=False, server_default=""),
    Column("prefix", String(20), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
    Column("scopes", Text, nullable=False),
    Column("origins", Text, nullable=False, server_default=""),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Column("rate_limit_per_minute", Integer, nullable=True),
    Column("last_used_at", UtcDateTime(), nullable=True),  # written at most once a minute
    # "key", or "connection": the key behind an OAuth connected app (migration 0009)
    Column("kind", String(20), nullable=False, server_default="key"),
    Index("ix_api_keys_account", "account_id"),
)

# Append-only: every change of a balance is one row with a unique reference.
ledger = Table(
    "ledger",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("amount", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Column("reference", String(200), nullable=False, unique=True),
    Column("note", Text, nullable=False, server_default=""),
    Column("created_at", UtcDateTime(), nullable=False),
    Index("ix_ledger_account", "account_id", "id"),
)

# Distinct vehicles served per account and calendar month (UTC), for plan caps (variant B).
monthly_vehicles = Table(
    "monthly_vehicles",
    metadata,
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("month", String(7), nullable=False),
    Column("vehicle_id", String(20), nullable=False),
    UniqueConstraint("account_id", "month", "vehicle_id", name="uq_monthly_vehicles"),
)

# Every delivered image, by account and the request id that delivered it (feedback refers to it).
deliveries = Table(
    "deliveries",
    metadata,
    # keyed (request id, account): time-ordered request ids append (migration 0010)
    Column("request_id", String(128), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), primary_key=True),
    Column("vehicle_id", String(20), nullable=False),
    Column("view", String(20), nullable=False),
    Column("paint", String(32), nullable=False),  # the paint key: `red`, `red:matte` (0011)
    Column("created_at", UtcDateTime(), nullable=False),
)

# Signed delivery URLs: only the token's SHA-256 is stored; loads are counted atomically.
delivery_urls = Table(
    "delivery_urls",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("key_id", String(40), ForeignKey("api_keys.id"), nullable=False),
    Column("params", Text, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("ttl_seconds", Integer, nullable=False),
    Column("max_uses", Integer, nullable=False),
    Column("uses", Integer, nullable=False, server_default="0"),
    Column("state", String(20), nullable=False, server_default="valid"),
    Column("delivered", Integer, nullable=False, server_default="0"),
    Column("debit_reference", String(200), nullable=False),
    Column("renew_until", UtcDateTime(), nullable=True),
)

# Idempotency-Key records, claimed in the database so several processes agree.
idempotency = Table(
    "idempotency",
    metadata,
    Column("account_id", String(40), primary_key=True),
    Column("route", String(100), primary_key=True),
    Column("key", String(255), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(20), nullable=False),
    Column("status", Integer, nullable=True),
    Column("headers", Text, nullable=True),
    Column("body", LargeBinary, nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
)

# Partners sign legacy embed URLs with a shared secret (HMAC-SHA256).
partners = Table(
    "partners",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("name", String(120), nullable=False),
    Column("secret", String(128), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("revoked_at", UtcDateTime(), nullable=True),
)

# Hosted checkouts (local provider or Stripe); a paid checkout credits its account once.
checkouts = Table(
    "checkouts",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("provider", String(20), nullable=False),
    Column("credits", BigInteger, nullable=False),
    Column("cents", BigInteger, nullable=False),
    Column("plan", String(20), nullable=True),
    Column("state", String(20), nullable=False),
    Column("provider_ref", String(200), nullable=True),
    Column("customer_ref", String(200), nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("paid_at", UtcDateTime(), nullable=True),
    Index("ix_checkouts_account", "account_id"),
)

# Feedback on delivered renders; enough negative reports flag a render for regeneration.
feedback = Table(
    "feedback",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("asset_key", String(120), nullable=False),
    Column("variation", Integer, nullable=False),
    Column("rating", Integer, nullable=True),
    Column("verdict", String(10), nullable=True),
    Column("reason", Text, nullable=False, server_default=""),
    Column("request_id", String(128), nullable=True),
    Column("created_at", UtcDateTime(), nullable=False),
    Index("ix_feedback_asset", "asset_key", "variation"),
)

# The current variation (seed) of a render asset (vehicle × view × paint); absent means 0.
render_variations = Table(
    "render_variations",
    metadata,
    Column("asset_key", String(120), primary_key=True),
    Column("variation", Integer, nullable=False),
    Column("flagged_at", UtcDateTime(), nullable=False),
)

# Funnel events from clients (never billed, never tied to an account).
events = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("anonymous_id", String(128), nullable=False),
    Column("source", String(32), nullable=False),
    Column("properties", Text, nullable=False),
    Column("occurred_at", UtcDateTime(), nullable=True),
    Column("received_at", UtcDateTime(), nullable=False),
)

# Device login codes (RFC 8628): only SHA-256 digests of the device code and of the normalised
# user code are stored; the key is created at the first poll after approval, never kept here.
device_codes = Table(
    "device_codes",
    metadata,
    Column("id", String(36), primary_key=True),
    Column("device_code_hash", String(64), nullable=False, unique=True),
    Column("user_code_hash", String(64), nullable=False, unique=True),
    Column("client_name", String(80), nullable=False, server_default=""),
    Column("state", String(20), nullable=False, server_default="pending"),
    Column("interval_seconds", Integer, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("last_polled_at", UtcDateTime(), nullable=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=True),
    Column("decided_at", UtcDateTime(), nullable=True),
    Column("key_id", String(40), nullable=True),
    Index("ix_device_codes_expires", "expires_at"),
)

# Web sign-in (migration 0008): an argon2id hash per account that has a password, browser sessions
# and password-reset tokens stored as SHA-256 digests (the cookie and the e-mailed link hold them).
web_passwords = Table(
    "web_passwords",
    metadata,
    Column("account_id", String(40), ForeignKey("accounts.id"), primary_key=True),
    Column("password_hash", String(255), nullable=False),
    Column("updated_at", UtcDateTime(), nullable=False),
)

web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Index("ix_web_sessions_account", "account_id"),
)

password_resets = Table(
    "password_resets",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("used_at", UtcDateTime(), nullable=True),
    Index("ix_password_resets_account", "account_id"),
)

# OAuth 2.1 for connected apps (migration 0009). A connection is one account's grant to one
# client; its api_keys row (kind "connection") carries the scopes. Secrets are SHA-256 digests.
oauth_clients = Table(
    "oauth_clients",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("secret_hash", String(64), nullable=True),  # None: a public client (PKCE only)
    Column("redirect_uris", Text, nullable=False),  # JSON array, matched exactly
    Column("metadata", Text, nullable=False),  # the RFC 7591 metadata as registered (JSON)
    Column("created_at", UtcDateTime(), nullable=False),
)

oauth_connections = Table(
    "oauth_connections",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("client_id", String(64), ForeignKey("oauth_clients.id"), nullable=False),
    Column("key_id", String(40), ForeignKey("api_keys.id"), nullable=False),
    Column("scopes", Text, nullable=False),
    Column("created_at", UtcDateTime(), nullable=False),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Index("ix_oauth_connections_account", "account_id"),
)

oauth_codes = Table(
    "oauth_codes",
    metadata,
    Column("code_hash", String(64), primary_key=True),
    Column("connection_id", String(40), ForeignKey("oauth_connections.id"), nullable=False),
    Column("redirect_uri", Text, nullable=False),
    Column("code_challenge", String(128), nullable=False),
    Column("scopes", Text, nullable=False),
    Column("resource", Text, nullable=True),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("used_at", UtcDateTime(), nullable=True),
)

oauth_tokens = Table(
    "oauth_tokens",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("kind", String(10), nullable=False),  # access | refresh
    Column("connection_id", String(40), ForeignKey("oauth_connections.id"), nullable=False),
    Column("scopes", Text, nullable=False),
    Column("expires_at", UtcDateTime(), nullable=False),
    Column("revoked_at", UtcDateTime(), nullable=True),
    Index("ix_oauth_tokens_connection", "connection_id"),
)
