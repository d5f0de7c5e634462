"""The render cache: source renders and derived images as files, hot derived images in memory."""

from __future__ import annotations

import os
import tempfile
from collections import OrderedDict
from pathlib import Path


class RenderCache:
    """Files under one directory (atomic writes), plus a byte-bounded LRU of derived images."""

    def __init__(self, root: Path, memory_bytes: int) -> None:
        self._root = root
        self._memory: OrderedDict[str, bytes] = OrderedDict()
        self._memory_bytes = 0
        self._memory_limit = memory_bytes

    def _path(self, kind: str, key: str) -> Path:
        return self._root / kind / key[:2] / key

    def has_source(self, key: str) -> bool:
        return self._path("source", key).exists()

    def get_source(self, key: str) -> bytes | None:
        return self._read(self._path("source", key))

    def put_source(self, key: str, data: bytes) -> None:
        self._write(self._path("source", key), data)

    def get_derived(self, key: str) -> bytes | None:
        data = self._memory.get(key)
        if data is not None:
            self._memory.move_to_end(key)
            return data
        data = self._read(self._path("derived", key))
        if data is not None:
            self._remember(key, data)
        return data

    def put_derived(self, key: str, data: bytes) -> None:
        self._write(self._path("derived", key), data)
        self._remember(key, data)

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
