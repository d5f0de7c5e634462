"""End to end: start the real server process (`carimg serve`) and call it over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.e2e


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    data_dir: Path = tmp_path_factory.mktemp("var")
    env = {**os.environ, "CARIMG_DATA_DIR": str(data_dir), "CARIMG_LOG_LEVEL": "warning"}
    command = [sys.executable, "-m", "carimg", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_health_over_http(base_url: str) -> None:
    assert httpx.get(f"{base_url}/api/health").json()["status"] == "ok"


def test_search_lists_porsche_911_first(base_url: str) -> None:
    response = httpx.get(f"{base_url}/api/v1/vehicles", params={"q": "porsche 911"})
    first = response.json()["data"]["results"][0]
    assert (first["make_name"], first["model_name"], first["match_kind"]) == (
        "Porsche",
        "911",
        "exact",
    )


def test_options_report_the_catalog_counts(base_url: str) -> None:
    catalog = httpx.get(f"{base_url}/api/v1/images/options").json()["data"]["catalog"]
    assert (catalog["makes"], catalog["models"]) == (1145, 14841)


def test_errors_are_problems_over_http(base_url: str) -> None:
    response = httpx.get(f"{base_url}/api/v1/vehicles", params={"bogus": "1"})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["x-request-id"] == response.json()["request_id"]
