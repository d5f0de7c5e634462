"""Checkouts, feedback, render variations and funnel events.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "checkouts",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("provider", sa.String(20), nullable=False),
        sa.Column("credits", sa.BigInteger, nullable=False),
        sa.Column("cents", sa.BigInteger, nullable=False),
        sa.Column("plan", sa.String(20), nullable=True),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("provider_ref", sa.String(200), nullable=True),
        sa.Column("customer_ref", sa.String(200), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("paid_at", _TS, nullable=True),
    )
    op.create_index("ix_checkouts_account", "checkouts", ["account_id"])
    op.create_table(
        "feedback",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("asset_key", sa.String(120), nullable=False),
        sa.Column("variation", sa.Integer, nullable=False),
        sa.Column("rating", sa.Integer, nullable=True),
        sa.Column("verdict", sa.String(10), nullable=True),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("request_id", sa.String(128), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_index("ix_feedback_asset", "feedback", ["asset_key", "variation"])
    op.create_table(
        "render_variations",
        sa.Column("asset_key", sa.String(120), primary_key=True),
        sa.Column("variation", sa.Integer, nullable=False),
        sa.Column("flagged_at", _TS, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("anonymous_id", sa.String(128), nullable=False),
        sa.Column("source", sa.String(32), nullable=False),
        sa.Column("properties", sa.Text, nullable=False),
        sa.Column("occurred_at", _TS, nullable=True),
        sa.Column("received_at", _TS, nullable=False),
    )


def downgrade() -> None:
    for table in ("events", "render_variations", "feedback", "checkouts"):
        op.drop_table(table)
