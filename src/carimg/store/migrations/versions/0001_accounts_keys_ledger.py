"""Accounts, API keys, the credit ledger, monthly vehicles and deliveries.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False, unique=True),
        sa.Column("plan", sa.String(20), nullable=False, server_default="free"),
        sa.Column("status", sa.String(20), nullable=False, server_default="active"),
        sa.Column("credits", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("created_at", _TS, nullable=False),
        sa.CheckConstraint("credits >= 0", name="ck_accounts_credits_not_negative"),
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(80), nullable=False, server_default=""),
        sa.Column("prefix", sa.String(20), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", sa.Text, nullable=False),
        sa.Column("origins", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("revoked_at", _TS, nullable=True),
    )
    op.create_index("ix_api_keys_account", "api_keys", ["account_id"])
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("reference", sa.String(200), nullable=False, unique=True),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
        sa.Column("created_at", _TS, nullable=False),
    )
    op.create_index("ix_ledger_account", "ledger", ["account_id", "id"])
    op.create_table(
        "monthly_vehicles",
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("month", sa.String(7), nullable=False),
        sa.Column("vehicle_id", sa.String(20), nullable=False),
        sa.UniqueConstraint("account_id", "month", "vehicle_id", name="uq_monthly_vehicles"),
    )
    op.create_table(
        "deliveries",
        sa.Column("request_id", sa.String(128), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("vehicle_id", sa.String(20), nullable=False),
        sa.Column("view", sa.String(20), nullable=False),
        sa.Column("paint", sa.String(7), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
    )


def downgrade() -> None:
    for table in ("deliveries", "monthly_vehicles", "ledger", "api_keys", "accounts"):
        op.drop_table(table)
