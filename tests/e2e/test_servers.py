"""`carimg serve` under granian (`--server granian` or CARIMG_SERVER=granian) on a real process:
the same service and the same operations promises as under uvicorn (the stop and the metrics
of several workers are tested for both servers in test_operations.py), CARIMG_EVENT_LOOP
choosing the event loop the server runs, and uvicorn sending each response in one write."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.serving import Running, new_key, start, stop

pytestmark = pytest.mark.e2e

IMAGE = {"make": "toyota", "model": "camry", "year": "2020", "size": "thumb", "format": "webp"}


def served_by_granian(running: Running) -> bool:
    """granian's own records (logger `_granian`) are in the server's log."""
    return any(record["logger"] == "_granian" for record in running.records())


@pytest.fixture(scope="module")
def granian(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    running = start(tmp_path_factory.mktemp("granian"), "--server", "granian")
    yield running
    stop(running)


def test_the_server_option_runs_granian_and_it_serves_the_health_check(granian: Running) -> None:
    response = httpx.get(f"{granian.server.url}/api/health")
    assert response.status_code == 200 and response.json()["status"] == "ok"
    assert response.headers["server"] == "granian"
    assert served_by_granian(granian)


def test_granian_serves_a_paid_image_end_to_end(granian: Running) -> None:
    server = granian.server
    key = new_key(server, "granian-paid@example.com")
    response = httpx.get(
        f"{server.url}/api/v1/images/car",
        params=IMAGE,
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/webp"
    assert response.content[:4] == b"RIFF" and response.content[8:12] == b"WEBP"
    assert response.headers["x-credits-remaining"] == "99"


def test_under_granian_every_log_line_is_json_and_there_is_no_server_access_log(
    granian: Running,
) -> None:
    health = httpx.get(f"{granian.server.url}/api/health")
    time.sleep(0.3)  # the access record reaches the file
    records = granian.records()  # every line parses: all JSON
    access = [r for r in records if r.get("request_id") == health.headers["x-request-id"]]
    assert [r["logger"] for r in access] == ["carimg.access"]  # carimg's own, once
    assert not any(r["logger"].startswith("granian.access") for r in records)


def test_under_granian_forwarded_headers_are_not_trusted(granian: Running) -> None:
    forged = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
    response = httpx.get(f"{granian.server.url}/api/health", headers=forged)
    time.sleep(0.3)  # the access record reaches the file
    request_id = response.headers["x-request-id"]
    (record,) = [r for r in granian.records() if r.get("request_id") == request_id]
    assert record["client"] == "127.0.0.1"


def test_carimg_server_granian_selects_granian(tmp_path: Path) -> None:
    running = start(tmp_path, CARIMG_SERVER="granian")
    try:
        assert httpx.get(f"{running.server.url}/api/health").headers["server"] == "granian"
        assert served_by_granian(running)
    finally:
        stop(running)


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_a_stop_runs_the_lifespan_shutdown_which_closes_the_database(
    tmp_path: Path, server: str
) -> None:
    running = start(tmp_path, "--server", server)
    wal = running.server.data_dir / "carimg.db-wal"
    assert wal.exists()  # the server holds the SQLite database open
    assert stop(running) == 0
    assert not wal.exists()  # the last connection closed (a killed process leaves it behind)


@pytest.mark.parametrize("server", ["uvicorn", "granian"])
def test_a_request_in_flight_past_the_shutdown_timeout_does_not_hold_the_stop(
    tmp_path: Path, server: str
) -> None:
    running = start(tmp_path, "--server", server, CARIMG_SHUTDOWN_TIMEOUT="1")
    port = int(running.server.url.rsplit(":", 1)[1])
    head = (
        f"POST /api/v1/billing/webhook HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(head)  # the handler waits for a body that never comes
        time.sleep(0.5)
        started = time.monotonic()
        running.process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert running.process.poll() is None  # the request in flight holds the stop a while
        assert running.process.wait(timeout=15) == 0
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    ("args", "env", "shown"),
    [
        (["--server", "nginx"], {}, "--server"),
        ([], {"CARIMG_SERVER": "nginx"}, "CARIMG_SERVER"),
    ],
    ids=["option", "setting"],
)
def test_an_unknown_server_is_a_clear_error_with_a_non_zero_exit(
    tmp_path: Path, args: list[str], env: dict[str, str], shown: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "carimg", "serve", "--port", "1", *args],
        env={**os.environ, "CARIMG_DATA_DIR": str(tmp_path / "var"), "COLUMNS": "200", **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert shown in done.stderr and "granian" in done.stderr
    assert "Traceback" not in done.stderr


def _uvloop_mapped(pid: int) -> bool:
    """Whether uvloop's compiled loop is loaded in the process (Linux: its memory maps)."""
    return "uvloop/loop." in Path(f"/proc/{pid}/maps").read_text()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc (Linux)")
@pytest.mark.parametrize(("choice", "uvloop"), [("asyncio", False), ("auto", True)])
def test_carimg_event_loop_picks_the_loop_uvicorn_runs(
    tmp_path: Path, choice: str, uvloop: bool
) -> None:
    running = start(tmp_path, CARIMG_EVENT_LOOP=choice)
    try:
        assert httpx.get(f"{running.server.url}/api/health").status_code == 200
        assert _uvloop_mapped(running.process.pid) is uvloop
    finally:
        stop(running)


def test_uvicorn_sends_a_response_whole_in_one_segment(tmp_path: Path) -> None:
    """Status line, headers and body leave in one write (carimg.cli._uvicorn_http), so the
    client's first read holds the whole response."""
    running = start(tmp_path)
    try:
        host, port = running.server.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as client:
            client.sendall(b"GET /api/health HTTP/1.1\r\nHost: carimg\r\n\r\n")
            first_read = client.recv(65536)
        head, _, body = first_read.partition(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        assert head.startswith(b"HTTP/1.1 200 OK") and len(body) == length > 0
    finally:
        stop(running)
