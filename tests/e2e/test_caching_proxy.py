"""Signed URLs behind a real caching proxy: nginx with proxy_cache in front of `carimg serve`.

Unlimited URLs are publicly cacheable, so the proxy answers repeat loads itself; capped URLs are
`private, no-store`, so every load reaches the service (and counts against max_uses).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import Server, free_port

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        shutil.which("nginx") is None, reason="nginx is not installed (scripts/ensure-nginx.sh)"
    ),
]

NGINX_CONF = """
{user}
worker_processes 1;
daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy_temp;
  fastcgi_temp_path {root}/fastcgi;
  uwsgi_temp_path {root}/uwsgi;
  scgi_temp_path {root}/scgi;
  proxy_cache_path {root}/cache levels=1:2 keys_zone=carimg:10m max_size=100m inactive=10m;
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass {upstream};
      proxy_cache carimg;
      proxy_cache_key $scheme$proxy_host$request_uri;
      add_header X-Cache-Status $upstream_cache_status always;
    }}
  }}
}}
"""


@pytest.fixture(scope="session")
def proxy(server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("nginx")
    port = free_port()
    conf = root / "nginx.conf"
    # Workers of a root master would run as nobody and could not write the temp directory.
    user = "user root;" if os.geteuid() == 0 else ""
    conf.write_text(NGINX_CONF.format(user=user, root=root, port=port, upstream=server.url))
    process = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(root)])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                httpx.get(f"{url}/api/health", timeout=1)
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((root / "error.log").read_text()) from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def mint(server: Server, key: str, max_uses: int) -> str:
    response = httpx.post(
        f"{server.url}/api/v1/image-urls",
        json={
            "images": [{"make": "honda", "model": "civic", "year": 2019, "size": "thumb"}],
            "max_uses": max_uses,
        },
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    url: str = response.json()["data"][0]["url"]
    return url


@pytest.fixture(scope="session")
def key(server: Server) -> str:
    server.admin("create-account", "--email", "proxy@example.com")
    created = server.admin("create-key", "--email", "proxy@example.com")
    return str(created["key"])


def through(proxy: str, server: Server, url: str) -> httpx.Response:
    return httpx.get(url.replace(server.url, proxy), timeout=60)


def test_unlimited_urls_are_served_from_the_proxy_cache(
    proxy: str, server: Server, key: str
) -> None:
    url = mint(server, key, max_uses=0)
    first = through(proxy, server, url)
    assert first.status_code == 200
    assert first.headers["x-cache-status"] == "MISS"
    assert first.headers["cache-control"].startswith("public, max-age=")
    repeats = [through(proxy, server, url) for _ in range(3)]
    assert [r.headers["x-cache-status"] for r in repeats] == ["HIT"] * 3
    assert all(r.content == first.content for r in repeats)


def test_capped_urls_always_reach_the_service(proxy: str, server: Server, key: str) -> None:
    url = mint(server, key, max_uses=2)
    loads = [through(proxy, server, url) for _ in range(3)]
    assert [r.status_code for r in loads] == [200, 200, 410]
    assert [r.headers["x-cache-status"] for r in loads[:2]] == ["MISS", "MISS"]
    assert loads[0].headers["cache-control"] == "private, no-store"
