"""Device login codes (RFC 8628), stored as digests.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "device_codes",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("device_code_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("user_code_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("client_name", sa.String(80), nullable=False, server_default=""),
        sa.Column("state", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("interval_seconds", sa.Integer, nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("last_polled_at", _TS, nullable=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("decided_at", _TS, nullable=True),
        sa.Column("key_id", sa.String(40), nullable=True),
    )
    op.create_index("ix_device_codes_expires", "device_codes", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_device_codes_expires", table_name="device_codes")
    op.drop_table("device_codes")
