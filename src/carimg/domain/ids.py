"""Identifiers that sort by creation time, as UUIDv7 does: the time first, then randomness.

Every paid image inserts rows keyed by its request id and its ledger reference (a unique index).
With random ids each insert lands on a random page of those B-trees, so a group commit of a few
dozen debits dirties and writes a few dozen pages per index, more as the tables grow; with
time-ordered ids they all land on the last pages.
"""

from __future__ import annotations

import os
import secrets
import time


class _RandomHex:
    """`secrets` bytes in hex, cut from a pool: one system call and one conversion per few
    hundred ids, not per id. A forked child starts a pool of its own (no bytes are ever used
    by two processes)."""

    _POOL = 4096  # bytes

    def __init__(self) -> None:
        self._pool = ""
        self._at = 0
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._pool, self._at = "", 0

    def take(self, count: int) -> str:
        """`count` random bytes as 2 × `count` lowercase hex digits."""
        digits = 2 * count
        if self._at + digits > len(self._pool):
            self._pool, self._at = secrets.token_bytes(max(self._POOL, count)).hex(), 0
        start, self._at = self._at, self._at + digits
        return self._pool[start : self._at]


class _MillisecondHex:
    """The Unix time in milliseconds as 12 hex digits, formatted once per millisecond (a busy
    process makes many ids in each, and formatting is most of an id's cost)."""

    def __init__(self) -> None:
        self._millisecond = -1
        self._hex = ""

    def now(self) -> str:
        millisecond = time.time_ns() // 1_000_000
        if millisecond != self._millisecond:
            self._millisecond, self._hex = millisecond, f"{millisecond:012x}"
        return self._hex


_random = _RandomHex()
_millis = _MillisecondHex()


def ordered_hex(random_bytes: int) -> str:
    """48 bits of Unix time in milliseconds, then `random_bytes` random bytes, in lowercase hex
    (12 + 2 × random_bytes characters): ids made later sort later, a millisecond at a time."""
    return _millis.now() + _random.take(random_bytes)
