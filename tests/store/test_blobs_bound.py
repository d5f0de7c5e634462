"""The local render cache keeps under its size bound (CARIMG_RENDER_CACHE_MAX_MB): a write that
takes it over deletes the least recently used derived images first, source renders last."""

from __future__ import annotations

import os
from pathlib import Path

from carimg.store.blobs import LocalBlobStore
from carimg.store.render_cache import RenderCache

KIB = 1024


def aged(store: LocalBlobStore, *keys: str) -> None:
    """Give `keys` modification times in their order, oldest first, long ago."""
    for age, key in enumerate(reversed(keys), start=1):
        os.utime(store.root / key, (1_000_000 - age, 1_000_000 - age))


def present(store: LocalBlobStore, *keys: str) -> list[str]:
    return [key for key in keys if (store.root / key).exists()]


async def test_a_write_past_the_bound_deletes_the_least_recently_used_derived_images(
    tmp_path: Path,
) -> None:
    store = LocalBlobStore(tmp_path, max_bytes=10 * KIB)
    for key in ("derived/aa/old", "derived/aa/newer", "source/aa/s"):
        await store.put(key, b"x" * 3 * KIB)
    aged(store, "source/aa/s", "derived/aa/old", "derived/aa/newer")
    await store.put("derived/aa/new", b"x" * 3 * KIB)  # 12 KiB: over the bound
    assert present(
        store, "derived/aa/old", "derived/aa/newer", "derived/aa/new", "source/aa/s"
    ) == [
        "derived/aa/newer",
        "derived/aa/new",
        "source/aa/s",
    ]


async def test_source_renders_go_only_once_no_derived_image_is_left(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path, max_bytes=10 * KIB)
    for key in ("source/aa/old", "source/aa/newer", "derived/aa/d"):
        await store.put(key, b"x" * 3 * KIB)
    aged(store, "source/aa/old", "source/aa/newer", "derived/aa/d")
    await store.put("source/aa/new", b"x" * 4 * KIB)  # 13 KiB: the derived one is not enough
    assert present(store, "source/aa/old", "source/aa/newer", "source/aa/new", "derived/aa/d") == [
        "source/aa/newer",
        "source/aa/new",
    ]


async def test_a_read_makes_a_file_recently_used(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path, max_bytes=10 * KIB)
    for key in ("derived/aa/a", "derived/aa/b", "derived/aa/c"):
        await store.put(key, b"x" * 3 * KIB)
    aged(store, "derived/aa/a", "derived/aa/b", "derived/aa/c")
    assert await store.get("derived/aa/a") is not None  # now the most recent
    await store.put("derived/aa/d", b"x" * 3 * KIB)
    assert present(store, "derived/aa/a", "derived/aa/b") == ["derived/aa/a"]


async def test_an_evicted_source_is_read_again_from_the_store(tmp_path: Path) -> None:
    """The render cache remembers sources it saw; one evicted since is not taken for present."""
    cache = RenderCache(LocalBlobStore(tmp_path), 0)
    await cache.put_source("abc", b"png")
    (tmp_path / "source" / "ab" / "abc").unlink()  # evicted (by another process, say)
    assert await cache.get_source("abc") is None
    assert not await cache.has_source("abc")
