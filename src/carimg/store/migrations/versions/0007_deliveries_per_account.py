"""Deliveries are keyed by (account, request id): request ids are chosen by clients, so one
account's ids must not shadow another's.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"

_COLUMNS = "request_id, account_id, vehicle_id, view, paint, created_at"


def _create(name: str, primary_key: tuple[str, ...]) -> None:
    op.create_table(
        name,
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("vehicle_id", sa.String(20), nullable=False),
        sa.Column("view", sa.String(20), nullable=False),
        sa.Column("paint", sa.String(7), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(*primary_key, name=f"pk_{name}"),
    )


def _rebuild(primary_key: tuple[str, ...], name: str) -> None:
    _create(name, primary_key)
    op.execute(f"INSERT INTO {name} ({_COLUMNS}) SELECT {_COLUMNS} FROM deliveries")
    op.drop_table("deliveries")
    op.rename_table(name, "deliveries")


def upgrade() -> None:
    _rebuild(("account_id", "request_id"), "deliveries_new")


def downgrade() -> None:
    # another name than upgrade's: its key's name (pk_deliveries_new) is still taken here
    _rebuild(("request_id",), "deliveries_old")
