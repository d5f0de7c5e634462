"""End to end: the real server process (`carimg serve`) called over HTTP."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.conftest import Server

pytestmark = pytest.mark.e2e


def test_health_over_http(server: Server) -> None:
    assert httpx.get(f"{server.url}/api/health").json()["status"] == "ok"


def test_search_lists_porsche_911_first(server: Server) -> None:
    response = httpx.get(f"{server.url}/api/v1/vehicles", params={"q": "porsche 911"})
    first = response.json()["data"]["results"][0]
    assert (first["make_name"], first["model_name"], first["match_kind"]) == (
        "Porsche",
        "911",
        "exact",
    )


def test_options_report_the_catalog_counts(server: Server) -> None:
    catalog = httpx.get(f"{server.url}/api/v1/images/options").json()["data"]["catalog"]
    assert (catalog["makes"], catalog["models"]) == (1145, 14841)


def test_errors_are_problems_over_http(server: Server) -> None:
    response = httpx.get(f"{server.url}/api/v1/vehicles", params={"bogus": "1"})
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["x-request-id"] == response.json()["request_id"]


def test_a_keyed_image_over_http_is_billed_and_renders_in_a_worker(server: Server) -> None:
    server.admin("create-account", "--email", "e2e@example.com")
    key = server.admin("create-key", "--email", "e2e@example.com")["key"]
    headers = {"Authorization": f"Bearer {key}"}
    params = {"make": "toyota", "model": "camry", "year": 2020, "size": "small", "format": "webp"}
    response = httpx.get(
        f"{server.url}/api/v1/images/car", params=params, headers=headers, timeout=60
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/webp"
    assert response.headers["x-credits-remaining"] == "99"
    again = httpx.get(
        f"{server.url}/api/v1/images/car",
        params=params,
        headers={**headers, "If-None-Match": response.headers["etag"]},
    )
    assert again.status_code == 304
