"""A delivery's paint is the render's paint key: a preset or hex, then `:finish` when one was
asked for (`burgundy:metallic`). Seven characters held a hex colour but not `burgundy`.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def _paint_length(length: int) -> None:
    if op.get_bind().dialect.name == "sqlite":
        return  # SQLite stores any length in a VARCHAR: no need to copy the table
    op.alter_column("deliveries", "paint", type_=sa.String(length), existing_nullable=False)


def upgrade() -> None:
    _paint_length(32)


def downgrade() -> None:
    # PostgreSQL refuses while a longer paint key is stored (a finish does not fit in 7)
    _paint_length(7)
