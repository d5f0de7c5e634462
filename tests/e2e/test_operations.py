"""Operations on a real `carimg serve`: JSON logs without secrets, graceful shutdown, metrics
of several worker processes added up."""

from __future__ import annotations

import json
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


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    running = start(tmp_path_factory.mktemp("logged"))
    yield running
    stop(running)


def test_logs_are_json_and_hold_no_key_token_signature_or_cookie(logged: Running) -> None:
    server = logged.server
    key = new_key(server, "logs@example.com")
    bearer = {"Authorization": f"Bearer {key}"}
    image = httpx.get(f"{server.url}/api/v1/images/car", params=IMAGE, headers=bearer, timeout=120)
    assert image.status_code == 200
    minted = httpx.post(f"{server.url}/api/v1/image-urls", json=IMAGE, headers=bearer)
    delivery_url = minted.json()["data"][0]["url"]
    token = delivery_url.rsplit("/", 1)[1]
    assert httpx.get(delivery_url, timeout=60).status_code == 200
    in_query = httpx.get(f"{server.url}/api/v1/images/car", params={**IMAGE, "key": key})
    assert in_query.status_code == 401
    signature = "ab" * 32
    embed = {**IMAGE, "exp": "4102444800", "partner": "ptn_x", "sig": signature}
    httpx.get(f"{server.url}/images/car.png", params=embed)
    cookie = "cookie-value-that-is-secret"
    httpx.get(f"{server.url}/api/v1/account", headers={"x-api-key": key},
              cookies={"carimg_session": cookie})  # fmt: skip
    time.sleep(0.5)  # the access records of the last requests reach the file

    text = logged.log.read_text()
    for secret in (key, key[5:], token, signature, cookie):
        assert secret not in text
    records = logged.records()  # every line parses: all JSON
    access = {r["request_id"]: r for r in records if r["logger"] == "carimg.access"}
    first = access[image.headers["x-request-id"]]
    assert first["route"] == "/api/v1/images/car"
    assert (first["status"], first["method"]) == (200, "GET")
    assert first["duration_ms"] > 0 and first["level"] == "info"
    rejected = access[in_query.headers["x-request-id"]]
    assert rejected["status"] == 401 and "key=[redacted]" in rejected["path"]
    assert any(r["route"] == "/api/v1/delivery/{token}" for r in access.values())


# How granian's log says it started a worker process.
WORKER_STARTED = "Spawning worker-"


def test_sigterm_lets_a_request_in_flight_finish_then_exits_0(tmp_path: Path) -> None:
    running = start(tmp_path)
    key = new_key(running.server, "shutdown@example.com")
    port = int(running.server.url.rsplit(":", 1)[1])
    body = json.dumps({"query": "2020 toyota camry"}).encode()
    head = (
        f"POST /api/v1/images/resolve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as client:
        client.sendall(head + body[:10])  # the handler is now waiting for the rest of the body
        time.sleep(0.5)
        running.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the server stops accepting connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                time.sleep(0.1)
            except OSError:
                break
        else:
            pytest.fail("the server kept accepting connections after SIGTERM")
        assert running.process.poll() is None  # still running: a request is in flight
        client.sendall(body[10:])
        response = b""
        while chunk := client.recv(65536):
            response += chunk
    status_line, _, rest = response.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 200 OK"
    assert b'"confidence"' in rest
    assert running.process.wait(timeout=30) == 0


def test_metrics_of_several_worker_processes_add_up(tmp_path: Path) -> None:
    shared = tmp_path / "metrics"
    running = start(tmp_path, "--workers", "2", PROMETHEUS_MULTIPROC_DIR=str(shared))
    try:
        requests = 30
        for _ in range(requests):  # a new connection each: the kernel spreads them
            with httpx.Client() as client:
                assert client.get(f"{running.server.url}/api/v1/images/options").is_success
        pids = {path.stem.rsplit("_", 1)[1] for path in shared.glob("counter_*.db")}
        assert len(pids) == 2, "both worker processes served and counted"
        line = (
            'carimg_http_requests_total{method="GET",route="/api/v1/images/options",status="200"}'
        )
        for _ in range(4):  # whichever process answers the scrape reports the sum of both
            with httpx.Client() as client:
                text = client.get(f"{running.server.url}/metrics").text
            counts = [row for row in text.splitlines() if row.startswith(line)]
            assert counts == [f"{line} {float(requests)}"]
    finally:
        assert stop(running) == 0
    assert running.log.read_text().count(WORKER_STARTED) == 2
