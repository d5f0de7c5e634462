"""Calendar keys for usage counting (UTC)."""

from __future__ import annotations

from datetime import datetime


def month_key(moment: datetime) -> str:
    """The calendar month (UTC) a moment falls in, as `YYYY-MM`."""
    return moment.strftime("%Y-%m")
