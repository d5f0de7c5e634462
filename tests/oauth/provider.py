"""A real external identity provider for tests: an HTTP server on a free local port serving
RFC 8414 metadata and a JWKS of keys made in the test, and the access tokens it would issue."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from joserfc import jwt
from joserfc.jwk import ECKey, Key

AUDIENCE = "http://testserver/api/mcp"  # the resource of the test app's agent endpoint


def new_key() -> ECKey:
    return ECKey.generate_key("P-256", parameters={"kid": uuid.uuid4().hex[:8], "alg": "ES256"})


@dataclass
class Provider:
    issuer: str
    keys: list[Key] = field(default_factory=lambda: [new_key()])
    jwks_fetches: int = 0

    def rotate(self) -> None:
        """Publish a new signing key in place of the old one."""
        self.keys = [new_key()]

    def token(
        self,
        now: float,
        *,
        key: Key | None = None,
        alg: str = "ES256",
        typ: str = "at+jwt",
        lifetime: int = 300,
        **claims: Any,
    ) -> str:
        """An access token as the provider issues it; `claims` add to or replace the usual
        ones (None removes one)."""
        signer = key or self.keys[0]
        body = {
            "iss": self.issuer,
            "aud": AUDIENCE,
            "sub": "user-1",
            "client_id": "agent-host",
            "scope": "images:read account:read",
            "iat": int(now),
            "exp": int(now) + lifetime,
            "jti": uuid.uuid4().hex,
            **claims,
        }
        header = {"alg": alg, "kid": signer.kid, "typ": typ}
        body = {name: value for name, value in body.items() if value is not None}
        return jwt.encode(header, body, signer, algorithms=[alg])

    def answer(self, path: str) -> dict[str, Any] | None:
        if path == "/.well-known/oauth-authorization-server":
            return {
                "issuer": self.issuer,
                "jwks_uri": f"{self.issuer}/jwks",
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "response_types_supported": ["code"],
            }
        if path == "/jwks":
            self.jwks_fetches += 1
            return {"keys": [key.as_dict(private=False) for key in self.keys]}
        return None


@contextmanager
def running_provider() -> Iterator[Provider]:
    provider: Provider | None = None

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            assert provider is not None
            document = provider.answer(self.path)
            body = json.dumps(document).encode()
            self.send_response(200 if document is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    provider = Provider(f"http://127.0.0.1:{server.server_address[1]}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
