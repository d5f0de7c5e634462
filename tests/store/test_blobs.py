"""The blob-store contract, run on every backend: a local directory and S3 (moto's server)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from carimg.store.blobs import BlobStore, BlobStoreError, LocalBlobStore, S3BlobStore
from tests.s3 import REGION, S3Server, s3_bucket, s3_server  # noqa: F401  (fixtures)


def s3_store(server: S3Server, bucket: str, prefix: str = "cache/") -> S3BlobStore:
    return S3BlobStore(bucket, prefix=prefix, **_client_options(server))


def _client_options(server: S3Server) -> dict[str, str]:
    options = server.settings("unused")
    return {
        "endpoint_url": options["s3_endpoint_url"],
        "region": options["s3_region"],
        "access_key_id": options["s3_access_key_id"],
        "secret_access_key": options["s3_secret_access_key"],
    }


@pytest.fixture(params=["local", "s3"])
def blobs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BlobStore]:
    store: BlobStore
    if request.param == "local":
        store = LocalBlobStore(tmp_path / "blobs")
    else:
        server: S3Server = request.getfixturevalue("s3_server")
        store = s3_store(server, request.getfixturevalue("s3_bucket"))
    yield store
    store.close()


async def test_a_missing_key_reads_as_none(blobs: BlobStore) -> None:
    assert await blobs.get("source/ab/absent.png") is None


async def test_what_is_put_is_read_back(blobs: BlobStore) -> None:
    await blobs.put("derived/cd/image.webp", b"RIFF-bytes")
    assert await blobs.get("derived/cd/image.webp") == b"RIFF-bytes"


async def test_a_second_put_replaces_the_bytes(blobs: BlobStore) -> None:
    await blobs.put("source/ef/x.png", b"old")
    await blobs.put("source/ef/x.png", b"new")
    assert await blobs.get("source/ef/x.png") == b"new"


async def test_exists_tells_present_from_absent(blobs: BlobStore) -> None:
    await blobs.put("source/gh/there.png", b"png")
    assert await blobs.exists("source/gh/there.png")
    assert not await blobs.exists("source/gh/elsewhere.png")


async def test_a_working_store_passes_its_check(blobs: BlobStore) -> None:
    await blobs.check()


async def test_concurrent_puts_and_gets_of_many_keys(blobs: BlobStore) -> None:
    keys = [f"derived/{i:02d}/k{i}.png" for i in range(40)]
    await asyncio.gather(*(blobs.put(key, key.encode()) for key in keys))
    assert await asyncio.gather(*(blobs.get(key) for key in keys)) == [k.encode() for k in keys]


async def test_local_reads_run_off_the_event_loop_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = LocalBlobStore(tmp_path)
    threads: list[int] = []
    read = LocalBlobStore._read

    def recording(path: Path) -> bytes | None:
        threads.append(threading.get_ident())
        return read(path)

    monkeypatch.setattr(LocalBlobStore, "_read", staticmethod(recording))
    await store.get("derived/ab/missing.png")
    assert threads and threads[0] != threading.get_ident()


async def test_local_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    store = LocalBlobStore(tmp_path)
    await store.put("source/ab/one.png", b"1")
    assert [p.name for p in (tmp_path / "source" / "ab").iterdir()] == ["one.png"]


async def test_local_check_fails_on_a_directory_it_cannot_create(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(BlobStoreError):
        await LocalBlobStore(tmp_path / "file" / "renders").check()


async def test_s3_keys_live_under_the_prefix_with_their_content_type(
    s3_server: S3Server,  # noqa: F811
    s3_bucket: str,  # noqa: F811
) -> None:
    store = s3_store(s3_server, s3_bucket, prefix="renders/")
    await store.put("derived/ab/x.webp", b"w")
    store.close()
    assert s3_server.keys(s3_bucket) == ["renders/derived/ab/x.webp"]
    head = s3_server.client().head_object(Bucket=s3_bucket, Key="renders/derived/ab/x.webp")
    assert head["ContentType"] == "image/webp"


async def test_s3_check_names_a_missing_bucket(s3_server: S3Server) -> None:  # noqa: F811
    store = s3_store(s3_server, "no-such-bucket-here")
    with pytest.raises(BlobStoreError, match="no-such-bucket-here"):
        await store.check()
    store.close()


async def test_an_unreachable_s3_endpoint_is_a_store_error_not_a_miss() -> None:
    store = S3BlobStore(
        "bucket",
        endpoint_url="http://127.0.0.1:9",  # discard port: nothing listens
        region=REGION,
        access_key_id="x",
        secret_access_key="y",
    )
    with pytest.raises(BlobStoreError):
        await store.get("source/ab/x.png")
    store.close()
