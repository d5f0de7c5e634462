"""Deliveries are keyed by (request id, account) instead of (account, request id).

Request ids start with the time (`carimg.domain.ids`), so a group commit's deliveries now go to
the end of the key's B-tree, a few pages, instead of one page for each account in the batch.
Lookups give both columns, so either order finds a row.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"

_COLUMNS = "request_id, account_id, vehicle_id, view, paint, created_at"


def _rebuild(primary_key: tuple[str, ...], constraint: str) -> None:
    op.create_table(
        "deliveries_rekeyed",
        sa.Column("request_id", sa.String(128), nullable=False),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("vehicle_id", sa.String(20), nullable=False),
        sa.Column("view", sa.String(20), nullable=False),
        sa.Column("paint", sa.String(7), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint(*primary_key, name=constraint),
    )
    op.execute(f"INSERT INTO deliveries_rekeyed ({_COLUMNS}) SELECT {_COLUMNS} FROM deliveries")
    op.drop_table("deliveries")
    op.rename_table("deliveries_rekeyed", "deliveries")


def upgrade() -> None:
    _rebuild(("request_id", "account_id"), "pk_deliveries_by_request")


def downgrade() -> None:
    # 0007's key, under its name (0007 built the table as deliveries_new)
    _rebuild(("account_id", "request_id"), "pk_deliveries_new")
