"""Real server processes for end-to-end tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    data_dir: Path
    env: dict[str, str]

    def admin(self, *args: str) -> dict[str, object]:
        """Run `carimg admin …  --json` against this server's data and return its JSON."""
        done = subprocess.run(
            [sys.executable, "-m", "carimg", "admin", *args, "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        result: dict[str, object] = json.loads(done.stdout)
        return result


def wait_until_healthy(url: str, process: subprocess.Popen[bytes], seconds: float = 90) -> None:
    # generous: on 2 cores a server starting beside another worker's renders has taken over 30 s
    deadline = time.monotonic() + seconds
    while True:
        try:
            if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with status {process.returncode} on start")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the server did not answer /api/health within {seconds:.0f} s")
        time.sleep(0.1)


@contextmanager
def running_server(data_dir: Path, **settings: str) -> Iterator[Server]:
    """`carimg serve` on a free port with its own data directory and extra `CARIMG_*` settings
    (`operator_token="…"` sets CARIMG_OPERATOR_TOKEN)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "CARIMG_DATA_DIR": str(data_dir),
        "CARIMG_BASE_URL": url,
        "CARIMG_LOG_LEVEL": "warning",
        **{f"CARIMG_{name.upper()}": value for name, value in settings.items()},
    }
    command = [sys.executable, "-m", "carimg", "serve", "--host", "127.0.0.1", "--port", str(port)]
    # logs in a file beside the data directory, where the secrets-in-logs check reads them
    with open(data_dir.parent / f"server-{port}.log", "ab") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=log)
    try:
        wait_until_healthy(url, process)
        yield Server(url, data_dir, env)
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`carimg serve` on a free port with its own data directory."""
    with running_server(tmp_path_factory.mktemp("var")) as running:
        yield running
