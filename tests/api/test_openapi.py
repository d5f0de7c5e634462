"""GET /openapi.json: OpenAPI 3.1, version 2.0.0, every endpoint with parameters and problems."""

from __future__ import annotations

import httpx
import pytest


@pytest.fixture
async def document(client: httpx.AsyncClient) -> dict:
    response = await client.get("/openapi.json")
    assert response.status_code == 200
    return response.json()


async def test_openapi_3_1_version_2_0_0(document: dict) -> None:
    assert document["openapi"].startswith("3.1")
    assert document["info"]["version"] == "2.0.0"


async def test_every_implemented_endpoint_is_described(document: dict) -> None:
    assert {
        "/api/health",
        "/api/v1/images/options",
        "/api/v1/vehicles",
        "/api/v1/images/car",
        "/api/v1/image-urls",
        "/api/v1/delivery/{token}",
        "/images/car.png",
        "/api/v1/images/resolve",
        "/api/v1/account",
        "/api/v1/pricing",
        "/api/v1/billing/checkout",
        "/api/v1/billing/portal",
        "/api/v1/feedback",
        "/api/v1/events",
        "/api/auth/device/code",
        "/api/auth/device/token",
    } <= set(document["paths"])


async def test_json_bodies_are_described(document: dict) -> None:
    for path in ("/api/v1/image-urls", "/api/v1/images/resolve", "/api/v1/feedback"):
        body = document["paths"][path]["post"]["requestBody"]
        assert body["content"]["application/json"]["schema"], path


async def test_vehicle_parameters_are_described(document: dict) -> None:
    operation = document["paths"]["/api/v1/vehicles"]["get"]
    names = {param["name"] for param in operation["parameters"]}
    assert names == {"year", "makeId", "q", "limit", "make", "model"}
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 25)


async def test_errors_are_described_as_problem_documents(document: dict) -> None:
    responses = document["paths"]["/api/v1/vehicles"]["get"]["responses"]
    assert {"200", "400", "404"} <= set(responses)
    assert "422" not in responses
    problem = responses["404"]["content"]["application/problem+json"]["schema"]
    assert problem == {"$ref": "#/components/schemas/Problem"}
    schema = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "request_id"} <= set(schema["required"])


async def test_operation_ids_are_stable_names(document: dict) -> None:
    operation = document["paths"]["/api/v1/vehicles"]["get"]
    assert operation["operationId"] == "list_vehicles"


async def test_image_responses_are_binary_bodies(document: dict) -> None:
    for path in ("/api/v1/images/car", "/api/v1/delivery/{token}", "/images/car.png"):
        content = document["paths"][path]["get"]["responses"]["200"]["content"]
        assert set(content) == {"image/png", "image/webp", "image/jpeg"}, path
        for media_type in content.values():
            assert set(media_type) == {"schema"}, path  # a media type object has no description
            assert (media_type["schema"]["type"], media_type["schema"]["format"]) == (
                "string",
                "binary",
            ), path
