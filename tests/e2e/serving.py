"""A real `carimg serve` process per test module: its own data directory, port and log file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Server, free_port, wait_until_healthy


@dataclass
class Running:
    server: Server
    process: subprocess.Popen[bytes]
    log: Path

    def records(self) -> list[dict[str, Any]]:
        """Every log line, each of which must be one JSON object."""
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]


def start(tmp: Path, *args: str, **env: str) -> Running:
    """`carimg serve` on a free port, its stderr (the logs) kept in a file."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    full_env = {
        **os.environ,
        "CARIMG_DATA_DIR": str(tmp / "var"),
        "CARIMG_BASE_URL": url,
        "CARIMG_LOG_LEVEL": "info",
        "CARIMG_LOG_FORMAT": "json",
        "CARIMG_RENDER_WORKERS": "0",
        **env,
    }
    log = tmp / "server.log"
    command = [sys.executable, "-m", "carimg", "serve", "--port", str(port), *args]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, env=full_env, stderr=sink)
    try:
        wait_until_healthy(url, process)
    except BaseException:
        process.kill()
        raise
    return Running(Server(url, tmp / "var", full_env), process, log)


def stop(running: Running) -> int:
    if running.process.poll() is None:
        running.process.terminate()
    return running.process.wait(timeout=30)


def new_key(server: Server, email: str, *account: str, key: tuple[str, ...] = ()) -> str:
    """A new account (`account`: more `create-account` options) and a key of its own."""
    server.admin("create-account", "--email", email, *account)
    return str(server.admin("create-key", "--email", email, *key)["key"])
