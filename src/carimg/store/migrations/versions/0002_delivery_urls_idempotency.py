"""Signed delivery URLs and Idempotency-Key records.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "delivery_urls",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("key_id", sa.String(40), sa.ForeignKey("api_keys.id"), nullable=False),
        sa.Column("params", sa.Text, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("ttl_seconds", sa.Integer, nullable=False),
        sa.Column("max_uses", sa.Integer, nullable=False),
        sa.Column("uses", sa.Integer, nullable=False, server_default="0"),
        sa.Column("state", sa.String(20), nullable=False, server_default="valid"),
        sa.Column("delivered", sa.Integer, nullable=False, server_default="0"),
        sa.Column("debit_reference", sa.String(200), nullable=False),
        sa.Column("renew_until", _TS, nullable=True),
    )
    op.create_table(
        "idempotency",
        sa.Column("account_id", sa.String(40), primary_key=True),
        sa.Column("route", sa.String(100), primary_key=True),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("status", sa.Integer, nullable=True),
        sa.Column("headers", sa.Text, nullable=True),
        sa.Column("body", sa.LargeBinary, nullable=True),
        sa.Column("created_at", _TS, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("idempotency")
    op.drop_table("delivery_urls")
