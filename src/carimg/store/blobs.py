"""Blob stores: bytes by key, in a local directory (the default) or an S3-compatible bucket.

Both are async; the blocking I/O runs on worker threads so that a cache miss never stalls the
event loop. Provider errors are normalised: a missing key is `None`/`False`, anything else that
stops the store from answering is `BlobStoreError`.
"""

from __future__ import annotations

import asyncio
import functools
import os
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class BlobStoreError(RuntimeError):
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
    """Files under one directory; writes go to a temporary file renamed into place."""

    kind = "local"

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        return self.root / key

    async def get(self, key: str) -> bytes | None:
        return await asyncio.to_thread(self._read, self._path(key))

    async def put(self, key: str, data: bytes) -> None:
        await asyncio.to_thread(self._write, self._path(key), data)

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


_CONTENT_TYPES = {".png": "image/png", ".webp": "image/webp", ".jpg": "image/jpeg"}
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
