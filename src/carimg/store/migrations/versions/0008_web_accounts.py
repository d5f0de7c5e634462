"""Web accounts: password hashes, browser sessions, password-reset tokens (all as digests where
they are secrets), and when each API key was last used.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"

_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.add_column("api_keys", sa.Column("last_used_at", _TS, nullable=True))
    op.create_table(
        "web_passwords",
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("updated_at", _TS, nullable=False),
    )
    op.create_table(
        "web_sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
    )
    op.create_index("ix_web_sessions_account", "web_sessions", ["account_id"])
    op.create_table(
        "password_resets",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.Column("used_at", _TS, nullable=True),
    )
    op.create_index("ix_password_resets_account", "password_resets", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_password_resets_account", table_name="password_resets")
    op.drop_table("password_resets")
    op.drop_index("ix_web_sessions_account", table_name="web_sessions")
    op.drop_table("web_sessions")
    op.drop_table("web_passwords")
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("last_used_at")
