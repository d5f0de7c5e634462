"""Passwords: the strength rule for new ones, argon2id hashing and verification."""

from __future__ import annotations

import asyncio
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from carimg.domain.errors import InvalidParameter

MIN_LENGTH: Final = 10
MAX_LENGTH: Final = 256
# The most common passwords long enough to pass the length rule (from public breach lists).
_COMMON: Final = frozenset(
    {
        "1234567890", "12345678910", "0123456789", "1111111111", "0000000000", "qwertyuiop",
        "1q2w3e4r5t", "password123", "password1234", "passw0rd123", "iloveyou123", "qwerty1234",
        "qwerty12345", "abcdefghij", "abc1234567", "letmein123", "welcome123", "administrator",
        "123456789a", "a123456789", "1234567890a", "q1w2e3r4t5", "zaq12wsxcde", "asdfghjkl1",
        "changeme123", "football123", "monkey12345", "dragon12345", "sunshine123", "trustno1234",
    }
)  # fmt: skip


def check_strength(password: str, email: str) -> None:
    """400 with a reason unless the password is long enough and not guessable from the e-mail."""
    if len(password) < MIN_LENGTH:
        raise InvalidParameter(
            "password", f"Use at least {MIN_LENGTH} characters (a few words work well)."
        )
    if len(password) > MAX_LENGTH:
        raise InvalidParameter("password", f"Use at most {MAX_LENGTH} characters.")
    lowered = password.lower()
    local = email.strip().lower().partition("@")[0]
    if lowered in _COMMON or len(set(lowered)) < 4:
        raise InvalidParameter("password", "This password is too easy to guess; choose another.")
    if len(local) >= 4 and local in lowered:
        raise InvalidParameter("password", "The password must not contain your e-mail address.")


class Passwords:
    """argon2id hashing. The defaults are RFC 9106's second recommended option (64 MiB, t=3,
    p=4); hashes made with other parameters are upgraded at the next sign-in."""

    def __init__(self, memory_kib: int = 65536, time_cost: int = 3) -> None:
        self._hasher = PasswordHasher(memory_cost=memory_kib, time_cost=time_cost, parallelism=4)
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        """A new hash, computed off the event loop (it takes tens of milliseconds by design)."""
        return await asyncio.to_thread(self._hasher.hash, password)

    async def verify(self, password_hash: str, password: str) -> bool:
        return await asyncio.to_thread(self._verify, password_hash, password)

    def needs_rehash(self, password_hash: str) -> bool:
        return self._hasher.check_needs_rehash(password_hash)

    async def burn(self) -> None:
        """Spend one verification's time when no account matches, so response times do not
        tell which e-mail addresses have accounts."""
        if self._dummy is None:
            self._dummy = await self.hash("carimg: no such account")
        await self.verify(self._dummy, "not the password")

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False
