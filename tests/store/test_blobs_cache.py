"""The render cache over a blob store: the same key layout everywhere, memory for hot images."""

from __future__ import annotations

from pathlib import Path

from carimg.store.blobs import LocalBlobStore
from carimg.store.render_cache import RenderCache


class CountingStore(LocalBlobStore):
    """A local store that counts its round trips."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.gets = 0
        self.exists_calls = 0

    async def get(self, key: str) -> bytes | None:
        self.gets += 1
        return await super().get(key)

    async def exists(self, key: str) -> bool:
        self.exists_calls += 1
        return await super().exists(key)


async def test_files_keep_the_layout_of_earlier_caches(tmp_path: Path) -> None:
    cache = RenderCache(LocalBlobStore(tmp_path), 1 << 20)
    await cache.put_source("abcdef.png", b"s")
    await cache.put_derived("12ab.webp", b"d")
    assert (tmp_path / "source" / "ab" / "abcdef.png").read_bytes() == b"s"
    assert (tmp_path / "derived" / "12" / "12ab.webp").read_bytes() == b"d"


async def test_a_hot_derived_image_is_served_from_memory(tmp_path: Path) -> None:
    store = CountingStore(tmp_path)
    cache = RenderCache(store, 1 << 20)
    await LocalBlobStore(tmp_path).put("derived/ab/abc.png", b"bytes")
    assert await cache.get_derived("abc.png") == b"bytes"
    assert await cache.get_derived("abc.png") == b"bytes"
    assert store.gets == 1


async def test_a_derived_miss_asks_the_store_every_time(tmp_path: Path) -> None:
    """Another process may have rendered it since: misses are never remembered."""
    store = CountingStore(tmp_path)
    cache = RenderCache(store, 1 << 20)
    assert await cache.get_derived("abc.png") is None
    await LocalBlobStore(tmp_path).put("derived/ab/abc.png", b"now")
    assert await cache.get_derived("abc.png") == b"now"


async def test_a_source_seen_once_is_known_without_asking_again(tmp_path: Path) -> None:
    store = CountingStore(tmp_path)
    cache = RenderCache(store, 1 << 20)
    assert not await cache.has_source("abc.png")
    await cache.put_source("abc.png", b"png")
    assert await cache.has_source("abc.png")
    assert store.exists_calls == 1


async def test_memory_stays_within_its_byte_limit(tmp_path: Path) -> None:
    cache = RenderCache(LocalBlobStore(tmp_path), 400)
    for index in range(10):
        await cache.put_derived(f"k{index}.png", bytes(100))
    assert cache._memory_bytes <= 400
    assert list(cache._memory) == ["k6.png", "k7.png", "k8.png", "k9.png"]
