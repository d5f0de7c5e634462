"""Shared fixtures: the bundled catalog, an isolated app per test, and an in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from carimg.app import create_app
from carimg.catalog import Catalog, load_catalog
from carimg.config import Settings


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "var", base_url="http://testserver")


@pytest.fixture
def app(settings: Settings, catalog: Catalog) -> FastAPI:
    return create_app(settings, catalog=catalog)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client
