"""A small memo for answers that hold image bytes: bounded in entries and in bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from carimg.config import Settings

V = TypeVar("V")

READY_ENTRIES = 1_024


def share_of_cache(settings: Settings) -> int:
    """The bytes one memo of images may hold: a quarter of the in-memory image cache. What it
    keeps is mostly the cache's own bytes; only images the cache has let go cost more."""
    return settings.derived_cache_mb * 1024 * 1024 // 4


class ReadyAnswers(Generic[V]):
    """Answers kept by key (a delivery token) for whoever checks they still hold. Emptied when
    full: the few keys a deployment serves most come back within moments, and an image held
    here after its cache let it go must not keep memory without bound."""

    def __init__(self, byte_limit: int, entries: int = READY_ENTRIES) -> None:
        self._entries = entries
        self._byte_limit = byte_limit
        self._answers: dict[str, tuple[V, int]] = {}
        self._bytes = 0

    def get(self, key: str) -> V | None:
        kept = self._answers.get(key)
        return None if kept is None else kept[0]

    def put(self, key: str, answer: V, size: int) -> None:
        """Keep `answer` (holding `size` bytes) under `key`, in place of any earlier one."""
        earlier = self._answers.pop(key, None)
        if earlier is not None:
            self._bytes -= earlier[1]
        if len(self._answers) >= self._entries or self._bytes + size > self._byte_limit:
            self._answers.clear()
            self._bytes = 0
        if size <= self._byte_limit:
            self._answers[key] = (answer, size)
            self._bytes += size

    def __len__(self) -> int:
        return len(self._answers)
