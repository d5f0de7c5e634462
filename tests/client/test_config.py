"""Where the SDK finds its key and address; the blocking client on the same app."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from carimg.client import (
    DEFAULT_BASE_URL,
    Client,
    Credentials,
    NotFoundError,
    credentials_path,
    load_credentials,
    save_credentials,
)
from carimg.config import Settings


def test_the_default_address_is_a_deployments_default() -> None:
    assert Settings.model_fields["base_url"].default == DEFAULT_BASE_URL


def test_explicit_arguments_beat_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CAR_IMAGE_API_KEY", "cimg_env")
    monkeypatch.setenv("CAR_IMAGE_API_URL", "https://env.example/")
    assert (Client().api_key, Client().base_url) == ("cimg_env", "https://env.example")
    client = Client("cimg_arg", base_url="https://arg.example")
    assert (client.api_key, client.base_url) == ("cimg_arg", "https://arg.example")


def test_stored_credentials_serve_only_their_own_address(monkeypatch: pytest.MonkeyPatch) -> None:
    save_credentials(Credentials(api_key="cimg_stored", base_url="https://mine.example"))
    assert (Client().api_key, Client().base_url) == ("cimg_stored", "https://mine.example")
    monkeypatch.setenv("CAR_IMAGE_API_URL", "https://other.example")
    assert Client().api_key is None  # never sent to another deployment


def test_credentials_are_written_for_the_owner_only(tmp_path: Path) -> None:
    path = save_credentials(Credentials(api_key="cimg_x", base_url="https://a.example"))
    assert path == credentials_path() and path.is_relative_to(tmp_path / "config")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert load_credentials() == Credentials(api_key="cimg_x", base_url="https://a.example")


def test_the_blocking_client_speaks_the_same_api(app: FastAPI) -> None:
    with TestClient(app, base_url="http://testserver") as http:
        services = app.state.services
        account = http.portal.call(services.accounts.create_account, "sync@example.com")
        key, _ = http.portal.call(services.accounts.create_key, account)
        with Client(key, base_url="http://testserver", http_client=http) as client:
            image = client.image("toyota", "camry", 2020, size="thumb")
            assert image.width == 256 and image.credits_remaining == 99
            with pytest.raises(NotFoundError):
                client.image("toyota", "camryy", 2020)
            assert client.account().data.credits == 99


def test_importing_the_sdk_leaves_the_server_stack_unloaded() -> None:
    code = (
        "import sys, carimg.client; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'fastapi', 'numba', 'sqlalchemy'})"
        " + sorted(m for m in sys.modules if m.startswith(('carimg.catalog', 'carimg.render'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
