"""`carimg serve` runs granian, on a real process: the service end to end, the logs, no trusted
forwarded headers, the stop (and, in test_operations.py, the stop under a request in flight and
the metrics of several workers)."""

from __future__ import annotations

import signal
import socket
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
    running = start(tmp_path_factory.mktemp("granian"))
    yield running
    stop(running)


def test_carimg_serve_runs_granian_and_it_serves_the_health_check(granian: Running) -> None:
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


def test_a_stop_runs_the_lifespan_shutdown_which_closes_the_database(tmp_path: Path) -> None:
    running = start(tmp_path)
    wal = running.server.data_dir / "carimg.db-wal"
    assert wal.exists()  # the server holds the SQLite database open
    assert stop(running) == 0
    assert not wal.exists()  # the last connection closed (a killed process leaves it behind)


def test_a_request_in_flight_past_the_shutdown_timeout_does_not_hold_the_stop(
    tmp_path: Path,
) -> None:
    running = start(tmp_path, CARIMG_SHUTDOWN_TIMEOUT="1")
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
