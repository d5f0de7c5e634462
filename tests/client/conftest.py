"""SDK tests run against the in-process app (its lifespan started by the `client` fixture)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from carimg.client import AsyncClient
from tests.conftest import Customer


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    """SQLite only: the SDK speaks HTTP, the database behind it is the API tests' business."""
    return f"sqlite+aiosqlite:///{tmp_path / 'carimg.db'}"


@pytest.fixture(autouse=True)
def _no_ambient_configuration(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Neither the developer's variables nor stored credentials leak into a test."""
    monkeypatch.delenv("CAR_IMAGE_API_KEY", raising=False)
    monkeypatch.delenv("CAR_IMAGE_API_URL", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
async def sdk(client: httpx.AsyncClient, customer: Customer) -> AsyncIterator[AsyncClient]:
    """The async SDK with the customer's key, sending through the in-process app."""
    async with AsyncClient(
        customer.key, base_url="http://testserver", http_client=client, max_retry_wait=2
    ) as sdk:
        yield sdk
