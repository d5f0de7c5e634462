"""Blob stores: bytes by key, in a local directory (the default) or an S3-compatible bucket.

Both are async; the blocking I/O runs on worker threads so that a cache miss never stalls the
event loop. Provider errors are normalised: a missing key is `None`/`False`, anything else that
stops the store from answering is `BlobStoreError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar

from carimg.formats import MEDIA_TYPES
from carimg.store.outage import DependencyUnavailable

T = TypeVar("T")


class BlobStoreError(DependencyUnavailable):
    """The store could not be reached or refused the operation (not: the key is missing)."""


class BlobStore(Protocol):
    """The contract every backend passes (`tests/store/test_blobs.py` runs it on each)."""

    kind: str  # "local" or "s3": named by the health check

    async def get(self, key: str) -> bytes | None:
        """The bytes stored at `key`, or None when there are none."""
        ...

    async def put(self, key: str, data: bytes) -> None:
        """Store `data` at `key` whole: a reader sees the old bytes or the new, never a part."""
        ...

    async def exists(self, key: str) -> bool: ...

    async def check(self) -> None:
        """Raise `BlobStoreError` unless the store answers (for `/api/health`)."""
        ...

    def close(self) -> None: ...


class LocalBlobStore:
    """Files under one directory; writes go to a temporary file renamed into place.

    With `max_bytes`, the directory is kept under that size: a write that takes it over deletes
    the least recently used files (a read or a write makes a file recent: its modification
    time) until it is at 90 % of the bound, those under `evicted_last` (source renders) only
    once nothing else is left. The size is counted from a scan of the tree, at the first write
    and at each eviction, so several processes sharing the directory stay near the bound."""

    kind = "local"

    def __init__(
        self, root: Path, max_bytes: int | None = None, evicted_last: str = "source/"
    ) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self._evicted_last = evicted_last
        self._used: int | None = None  # bytes in the tree as this process counts them
        self._lock = threading.Lock()  # one eviction at a time in this process

    def _path(self, key: str) -> Path:
        return self.root / key

    async def get(self, key: str) -> bytes | None:
        path = self._path(key)
        if self.max_bytes is None:
            return await asyncio.to_thread(self._read, path)
        return await asyncio.to_thread(self._read_recent, path)

    def _read_recent(self, path: Path) -> bytes | None:
        """`_read`, the file then the most recently used (its modification time)."""
        data = self._read(path)
        if data is not None:
            with contextlib.suppress(FileNotFoundError):
                os.utime(path)
        return data

    async def put(self, key: str, data: bytes) -> None:
        await asyncio.to_thread(self._bounded_write, self._path(key), data)

    def _bounded_write(self, path: Path, data: bytes) -> None:
        if self.max_bytes is None:
            self._write(path, data)
            return
        try:
            before = path.stat().st_size
        except FileNotFoundError:
            before = 0
        self._write(path, data)
        with self._lock:
            used = self._scan()[0] if self._used is None else self._used + len(data) - before
            self._used = self._evict() if used > self.max_bytes else used

    def _scan(self) -> tuple[int, list[tuple[bool, float, int, str]]]:
        """Bytes in the tree, and each file as (evicted last, modified, size, path)."""
        total, files = 0, []
        for directory, _, names in os.walk(self.root):
            for name in names:
                if name.startswith(".tmp-"):
                    continue
                path = os.path.join(directory, name)
                try:
                    status = os.stat(path)
                except FileNotFoundError:  # another process evicted it meanwhile
                    continue
                key = os.path.relpath(path, self.root)
                files.append(
                    (key.startswith(self._evicted_last), status.st_mtime, status.st_size, path)
                )
                total += status.st_size
        return total, files

    def _evict(self) -> int:
        """Delete least recently used files down to 90 % of `max_bytes`; returns the bytes left."""
        assert self.max_bytes is not None
        total, files = self._scan()
        target = self.max_bytes * 9 // 10
        for _, _, size, path in sorted(files):  # others before `evicted_last`, oldest first
            if total <= target:
                break
            Path(path).unlink(missing_ok=True)
            total -= size
        return total

    async def exists(self, key: str) -> bool:
        return await asyncio.to_thread(self._path(key).exists)

    async def check(self) -> None:
        def writable() -> bool:
            self.root.mkdir(parents=True, exist_ok=True)
            return os.access(self.root, os.W_OK)

        try:
            ok = await asyncio.to_thread(writable)
        except OSError as error:
            raise BlobStoreError(f"render cache directory: {error.strerror}") from error
        if not ok:
            raise BlobStoreError("render cache directory is not writable")

    def close(self) -> None:
        pass

    @staticmethod
    def _read(path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


_CONTENT_TYPES = {f".{fmt}": media for fmt, media in MEDIA_TYPES.items()}
_MISSING = {"404", "NoSuchKey", "NotFound"}


class S3BlobStore:
    """One bucket (and key prefix) of an S3-compatible store, through boto3.

    boto3 clients are thread-safe; calls run on this store's own threads (as many as the client
    has connections) so slow object-store round trips never queue behind image encoding on the
    default executor.
    """

    kind = "s3"

    def __init__(
        self,
        bucket: str,
        *,
        prefix: str = "",
        endpoint_url: str | None = None,
        region: str | None = None,
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        connections: int = 32,
    ) -> None:
        import boto3
        from botocore.config import Config

        self.bucket = bucket
        self.prefix = prefix
        self._client: Any = boto3.session.Session().client(
            "s3",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=access_key_id,
            aws_secret_access_key=secret_access_key,
            config=Config(
                max_pool_connections=connections,
                connect_timeout=3,
                read_timeout=15,
                retries={"mode": "standard", "max_attempts": 3},
                # path-style works with MinIO, moto and AWS alike (no wildcard DNS needed)
                s3={"addressing_style": "path"},
            ),
        )
        self._threads = ThreadPoolExecutor(connections, thread_name_prefix="carimg-s3")

    async def _call(self, function: Callable[..., T], /, **kwargs: Any) -> T:
        from botocore.exceptions import BotoCoreError, ClientError

        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._threads, functools.partial(function, **kwargs))
        except ClientError as error:
            code = str(error.response.get("Error", {}).get("Code", ""))
            if code in _MISSING:
                raise KeyError(kwargs.get("Key")) from error
            raise BlobStoreError(f"object store: {code or 'error'}") from error
        except BotoCoreError as error:
            raise BlobStoreError(f"object store: {type(error).__name__}") from error

    async def get(self, key: str) -> bytes | None:
        try:
            return await self._call(self._get_bytes, Key=self.prefix + key)
        except KeyError:
            return None

    def _get_bytes(self, **kwargs: Any) -> bytes:
        # The body is read on the worker thread too: it is a blocking stream.
        body: bytes = self._client.get_object(Bucket=self.bucket, **kwargs)["Body"].read()
        return body

    async def put(self, key: str, data: bytes) -> None:
        content_type = _CONTENT_TYPES.get(Path(key).suffix, "application/octet-stream")
        await self._call(
            self._client.put_object,
            Bucket=self.bucket,
            Key=self.prefix + key,
            Body=data,
            ContentType=content_type,
        )

    async def exists(self, key: str) -> bool:
        try:
            await self._call(self._client.head_object, Bucket=self.bucket, Key=self.prefix + key)
        except KeyError:
            return False
        return True

    async def check(self) -> None:
        try:
            await self._call(self._client.head_bucket, Bucket=self.bucket)
        except KeyError as error:
            raise BlobStoreError(f"object store: no bucket {self.bucket!r}") from error

    def close(self) -> None:
        self._threads.shutdown(wait=False)
        self._client.close()
