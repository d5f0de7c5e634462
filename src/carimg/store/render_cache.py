"""The render cache: source renders and derived images in a blob store, hot derived images in
memory.

Keys are laid out as `{source|derived}/{first two characters}/{key}` in either store, so a local
cache directory and a bucket hold the same tree.
"""

from __future__ import annotations

from collections import OrderedDict

from carimg.store.blobs import BlobStore

_KNOWN_SOURCES_LIMIT = 100_000


class RenderCache:
    """Sources and derived images in a `BlobStore`, plus a byte-bounded LRU of derived images."""

    def __init__(self, blobs: BlobStore, memory_bytes: int) -> None:
        self.blobs = blobs
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self._memory_bytes = 0
        self._memory_limit = memory_bytes
        # Sources are never rewritten (a flagged render gets a new key), and deleted only by a
        # full bounded local cache, last: a source seen once needs no second round trip to the
        # store until a read finds it gone.
        self._known_sources: set[str] = set()

    @staticmethod
    def _key(kind: str, key: str) -> str:
        return f"{kind}/{key[:2]}/{key}"

    async def has_source(self, key: str) -> bool:
        if key in self._known_sources:
            return True
        present = await self.blobs.exists(self._key("source", key))
        if present:
            self._know_source(key)
        return present

    async def get_source(self, key: str) -> bytes | None:
        data = await self.blobs.get(self._key("source", key))
        if data is not None:
            self._know_source(key)
        else:  # a bounded local cache may have evicted it
            self._known_sources.discard(key)
        return data

    async def put_source(self, key: str, data: bytes) -> None:
        await self.blobs.put(self._key("source", key), data)
        self._know_source(key)

    def peek_derived(self, key: str) -> bytes | None:
        """A derived image this process holds in memory (no I/O), else None."""
        data = self._memory.get(key)
        if data is not None:
            self._memory.move_to_end(key)
        return data

    async def get_derived(self, key: str) -> bytes | None:
        data = self.peek_derived(key)
        if data is not None:
            return data
        data = await self.blobs.get(self._key("derived", key))
        if data is not None:
            self._remember(key, data)
        return data

    async def put_derived(self, key: str, data: bytes) -> None:
        await self.blobs.put(self._key("derived", key), data)
        self._remember(key, data)

    def close(self) -> None:
        self.blobs.close()

    def _know_source(self, key: str) -> None:
        if len(self._known_sources) >= _KNOWN_SOURCES_LIMIT:
            self._known_sources.clear()
        self._known_sources.add(key)

    def _remember(self, key: str, data: bytes) -> None:
        if len(data) > self._memory_limit // 4:
            return
        previous = self._memory.pop(key, None)
        if previous is not None:
            self._memory_bytes -= len(previous)
        self._memory[key] = data
        self._memory_bytes += len(data)
        while self._memory_bytes > self._memory_limit and self._memory:
            _, evicted = self._memory.popitem(last=False)
            self._memory_bytes -= len(evicted)
