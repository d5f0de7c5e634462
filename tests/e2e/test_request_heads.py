"""Request heads under `carimg serve` (granian with its HTTP/1 settings): a header over its limit
is a 431 problem document, a head far longer than every limit is refused before it ends, a head
that arrives too slowly has its connection closed (CARIMG_HEADER_TIMEOUT, here 1 s), and
connections that never send a byte do not lock other clients out."""

from __future__ import annotations

import resource
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest

from carimg.domain.limits import MAX_HEADER_FIELD_BYTES
from tests.e2e.serving import Running, start, stop

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    started = start(tmp_path_factory.mktemp("heads"), CARIMG_HEADER_TIMEOUT="1")
    yield started
    stop(started)


def connect(running: Running) -> socket.socket:
    address = urlsplit(running.server.url)
    return socket.create_connection((address.hostname, address.port), timeout=10)


def read_all(connection: socket.socket) -> bytes:
    """What the server sends until it closes (or resets) the connection."""
    received = b""
    try:
        while chunk := connection.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def test_a_header_over_its_limit_is_a_431_problem(running: Running) -> None:
    big = {"X-Big": "x" * MAX_HEADER_FIELD_BYTES}
    response = httpx.get(f"{running.server.url}/api/health", headers=big)
    assert response.status_code == 431
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["status"] == 431


def test_a_head_far_over_every_limit_is_refused_before_it_ends(running: Running) -> None:
    connection = connect(running)
    connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: t\r\nX-Big: ")
    refused = False
    try:
        for _ in range(4096):  # up to 64 MiB of one header that never ends
            connection.sendall(b"x" * 16384)
    except (BrokenPipeError, ConnectionResetError):
        refused = True  # the server closed it: it holds no more
    received = read_all(connection)
    connection.close()
    assert refused or received.startswith(b"HTTP/1.1 431 ")


def test_a_head_slower_than_the_header_timeout_is_closed(running: Running) -> None:
    connection = connect(running)
    connection.sendall(b"GET /api/health HTTP/1.1\r\nHost: t\r\n")  # and then nothing
    started = time.monotonic()
    received = read_all(connection)
    connection.close()
    assert time.monotonic() - started < 5
    assert not received.startswith(b"HTTP/1.1 200")


SILENT = 1_100  # more than granian's default of 1,024 connections a process


@pytest.fixture
def open_files() -> Iterator[None]:
    """This process may open the silent connections and a few more files."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = SILENT + 200
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"the open-file limit ({hard}) is below {wanted}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.usefixtures("open_files")
def test_connections_that_never_send_a_byte_do_not_lock_other_clients_out(
    running: Running,
) -> None:
    silent = [connect(running) for _ in range(SILENT)]
    try:
        response = httpx.get(f"{running.server.url}/api/health", timeout=5)
    finally:
        for connection in silent:
            connection.close()
    assert response.status_code == 200
