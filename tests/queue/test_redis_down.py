"""A deployment whose Redis is down answers 503 (retry, nothing charged), never 500."""

from __future__ import annotations

import httpx
import pytest

from carimg.services import Services
from tests.conftest import Customer

pytestmark = pytest.mark.parametrize(
    "overrides", [{"redis_url": "redis://127.0.0.1:1/0"}], indirect=False
)


async def test_an_unreachable_redis_is_a_503_that_charges_nothing(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    params = {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb"}
    response = await client.get("/api/v1/images/car", params=params, headers=customer.headers)
    assert response.status_code == 503
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["retry-after"] == "5"
    assert response.json()["retryable"] is True
    assert await services.ledger.balance(customer.account_id) == 100
