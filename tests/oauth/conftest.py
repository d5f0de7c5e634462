"""OAuth fixtures: a registered public client, a signed-in person, and the flow's steps."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.web.helpers import csrf_of, sign_up

REDIRECT_URI = "http://127.0.0.1:33418/callback"


@pytest.fixture
def overrides() -> dict[str, Any]:
    return {"password_hash_memory_kib": 64, "password_hash_iterations": 1}


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return verifier, challenge.decode().rstrip("=")


def query_of(location: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


@dataclass
class Flow:
    client: httpx.AsyncClient
    client_id: str
    email: str

    def request(self, challenge: str, **extra: str) -> dict[str, str]:
        """The parameters of an authorization request (S256, the registered redirect URI);
        `extra` adds to or replaces them."""
        return {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": REDIRECT_URI,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            **extra,
        }

    async def authorize(
        self, *, scope: str | None = None, keep: tuple[str, ...] = (), **extra: str
    ) -> tuple[str, str]:
        """Authorize and approve on the consent page, the optional scopes in `keep` ticked;
        returns (code, verifier)."""
        verifier, challenge = pkce_pair()
        params = self.request(
            challenge, **{"state": "xyz", **({"scope": scope} if scope else {}), **extra}
        )
        start = await self.client.get("/oauth/authorize", params=params)
        assert start.status_code == 302, start.text
        consent = await self.client.get(start.headers["location"])
        assert consent.status_code == 200, consent.text
        sealed = query_of(start.headers["location"])["request"]
        decided = await self.client.post(
            "/oauth/consent",
            data={
                "csrf_token": csrf_of(consent.text),
                "request": sealed,
                "decision": "approve",
                "scopes": list(keep),
            },
        )
        assert decided.status_code == 303, decided.text
        answer = query_of(decided.headers["location"])
        assert answer["state"] == "xyz"
        return answer["code"], verifier

    async def exchange(self, code: str, verifier: str, **extra: str) -> httpx.Response:
        return await self.client.post(
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT_URI,
                "client_id": self.client_id,
                "code_verifier": verifier,
                **extra,
            },
        )

    async def tokens(self, scope: str | None = None, keep: tuple[str, ...] = ()) -> dict[str, Any]:
        code, verifier = await self.authorize(scope=scope, keep=keep)
        response = await self.exchange(code, verifier)
        assert response.status_code == 200, response.text
        tokens: dict[str, Any] = response.json()
        return tokens

    async def refresh(self, refresh_token: str) -> httpx.Response:
        return await self.client.post(
            "/oauth/token",
            data={
                "grant_type": "refresh_token",
                "refresh_token": refresh_token,
                "client_id": self.client_id,
            },
        )


@pytest.fixture
async def flow(client: httpx.AsyncClient) -> Flow:
    registered = await client.post(
        "/oauth/register",
        json={"client_name": "Test Agent", "redirect_uris": [REDIRECT_URI]},
    )
    assert registered.status_code == 201, registered.text
    email = await sign_up(client)
    return Flow(client, registered.json()["client_id"], email)
