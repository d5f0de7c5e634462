"""Web page fixtures: cheap password hashing and a signed-in client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.web.helpers import sign_up


@pytest.fixture
def overrides() -> dict[str, Any]:
    """Tests hash with tiny argon2id parameters (the defaults take ~0.2 s per hash)."""
    return {"password_hash_memory_kib": 64, "password_hash_iterations": 1}


@pytest.fixture
async def signed_in(client: httpx.AsyncClient) -> str:
    """The client is signed in to a new account; returns its e-mail address."""
    return await sign_up(client)
