"""OAuth 2.1 for connected apps: registered clients, connections (each backed by an api_keys row
of kind 'connection', so scopes, rate windows and minted URLs work as for keys), authorization
codes and tokens, all secrets stored as SHA-256 digests.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column(
        "api_keys", sa.Column("kind", sa.String(20), nullable=False, server_default="key")
    )
    op.create_table(
        "oauth_clients",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=True),
        sa.Column("redirect_uris", sa.Text, nullable=False),
        sa.Column("metadata", sa.Text, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_table(
        "oauth_connections",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("client_id", sa.String(64), sa.ForeignKey("oauth_clients.id"), nullable=False),
        sa.Column("key_id", sa.String(40), sa.ForeignKey("api_keys.id"), nullable=False),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("revoked_at", _TS, nullable=True),
    )
    op.create_index("ix_oauth_connections_account", "oauth_connections", ["account_id"])
    op.create_table(
        "oauth_codes",
        sa.Column("code_hash", sa.String(64), primary_key=True),
        sa.Column(
            "connection_id", sa.String(40), sa.ForeignKey("oauth_connections.id"), nullable=False
        ),
        sa.Column("redirect_uri", sa.Text, nullable=False),
        sa.Column("code_challenge", sa.String(128), nullable=False),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("resource", sa.Text, nullable=True),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("used_at", _TS, nullable=True),
    )
    op.create_table(
        "oauth_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column(
            "connection_id", sa.String(40), sa.ForeignKey("oauth_connections.id"), nullable=False
        ),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("revoked_at", _TS, nullable=True),
    )
    op.create_index("ix_oauth_tokens_connection", "oauth_tokens", ["connection_id"])


def downgrade() -> None:
    op.drop_index("ix_oauth_tokens_connection", table_name="oauth_tokens")
    op.drop_table("oauth_tokens")
    op.drop_table("oauth_codes")
    op.drop_index("ix_oauth_connections_account", table_name="oauth_connections")
    op.drop_table("oauth_connections")
    op.drop_table("oauth_clients")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("kind")
