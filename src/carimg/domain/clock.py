"""Time comes from an injectable clock so tests can move it."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Seconds since the epoch, and the same instant as an aware UTC datetime."""

    def time(self) -> float: ...

    def now(self) -> datetime: ...


class SystemClock:
    """The real time."""

    def time(self) -> float:
        return time.time()

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.time(), UTC)


class FixedClock:
    """A clock that stands still until moved (tests)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start

    def time(self) -> float:
        return self._now

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._now, UTC)

    def advance(self, seconds: float) -> None:
        self._now += seconds
