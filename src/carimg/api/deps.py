"""Dependency aliases so handler signatures read like prose."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from carimg.catalog import Catalog
from carimg.config import Settings


# async: FastAPI would run a plain `def` dependency in a worker thread, every request.
async def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def _catalog(request: Request) -> Catalog:
    catalog: Catalog = request.app.state.catalog
    return catalog


SettingsDep = Annotated[Settings, Depends(_settings)]
CatalogDep = Annotated[Catalog, Depends(_catalog)]
