"""An S3-compatible server for tests: moto's, started by the test suite on a free loopback port.

Use it from any test module (or conftest) with

    from tests.s3 import S3Server, s3_bucket, s3_server  # noqa: F401  (fixtures)

`s3_server` is one server per test session (per xdist worker); `s3_bucket` is a new, empty
bucket per test. `S3Server.settings(bucket)` gives `Settings` keyword arguments and
`S3Server.env(bucket)` the `CARIMG_S3_*` variables for a real `carimg serve`/`carimg worker`.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

ACCESS_KEY_ID = "testing"
SECRET_ACCESS_KEY = "testing"
REGION = "us-east-1"


@dataclass(frozen=True)
class S3Server:
    endpoint_url: str

    def client(self) -> Any:
        import boto3

        return boto3.session.Session().client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name=REGION,
            aws_access_key_id=ACCESS_KEY_ID,
            aws_secret_access_key=SECRET_ACCESS_KEY,
        )

    def new_bucket(self) -> str:
        name = f"carimg-test-{uuid.uuid4().hex[:16]}"
        self.client().create_bucket(Bucket=name)
        return name

    def keys(self, bucket: str) -> list[str]:
        """Every key in the bucket (the first 1000)."""
        listing = self.client().list_objects_v2(Bucket=bucket)
        return [item["Key"] for item in listing.get("Contents", [])]

    def settings(self, bucket: str) -> dict[str, Any]:
        """`Settings(**…)` keyword arguments that put the render cache in `bucket`."""
        return {
            "s3_bucket": bucket,
            "s3_endpoint_url": self.endpoint_url,
            "s3_region": REGION,
            "s3_access_key_id": ACCESS_KEY_ID,
            "s3_secret_access_key": SECRET_ACCESS_KEY,
        }

    def env(self, bucket: str) -> dict[str, str]:
        """The same as `CARIMG_S3_*` environment variables, for server and worker processes."""
        return {f"CARIMG_{name.upper()}": value for name, value in self.settings(bucket).items()}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    """moto's S3 server in a thread of this test process, on a free loopback port."""
    from moto.server import ThreadedMotoServer

    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        server.stop()


@pytest.fixture
def s3_bucket(s3_server: S3Server) -> str:
    """A new, empty bucket on the test S3 server."""
    return s3_server.new_bucket()
