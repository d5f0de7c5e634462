"""Keys, tokens, signatures, CSRF and operator tokens are compared in constant time: through
`hmac.compare_digest`, or looked up by their SHA-256 digest (never by the secret itself)."""

from __future__ import annotations

import ast
import hmac
import pathlib
import re

import httpx
import pytest

import carimg
from carimg.domain.signing import sign_value, unsign_value
from tests.conftest import Customer

ROOT = pathlib.Path(next(iter(carimg.__path__)))
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
SECRET_NAME = re.compile(
    r"secret|token|\bsig\b|signature|\bmac\b|digest|_hash\b|csrf|password|credential|verifier|"
    r"plaintext|\bkey\b",
    re.IGNORECASE,
)
# `==` on names that look secret but are not: a file checksum, a request-body fingerprint, a
# query's canonical order, a key's scopes or owner, a connection's fixed display prefix.
NOT_SECRET = {
    "cli/bulk.py": {'_digest(path.read_bytes()) == record.get("sha256")'},
    "domain/idempotency.py": {"stored.request_hash != request_hash"},
    "api/embed.py": {
        'sorted(canonical) != sorted((k, v) for k, v in raw_items if keep_key or k != "key")'
    },
    "domain/billing.py": {"principal.key.prefix == CONNECTION_PREFIX"},
    "domain/oauth_external.py": {"principal.key.scopes != scopes"},
    "domain/web_accounts.py": {"key.account_id != account.id"},
}


def _plain_comparisons() -> list[str]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name.startswith(("render/", "catalog/", "client/")):
            continue
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if not isinstance(node, ast.Compare):
                continue
            if not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                continue
            text = ast.get_source_segment(source, node) or ""
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) for o in operands):
                continue  # against a literal: a kind, a state, a status code
            if ".c." in text:
                continue  # a SQL column: the lookup by digest runs in the database
            if SECRET_NAME.search(text) and text not in NOT_SECRET.get(name, set()):
                found.append(f"{name}:{node.lineno}: {text}")
    return found


def test_no_secret_is_compared_with_equals() -> None:
    assert _plain_comparisons() == []


def test_stored_secrets_are_looked_up_by_their_sha256_digest() -> None:
    """Keys, delivery tokens, OAuth codes and tokens, device codes, sessions and reset tokens:
    the store's lookup column is a digest, so the database never compares the secret."""
    lookups = {
        "store/accounts.py": 'api_keys.c.hash == bindparam("hash")',
        "store/delivery_urls.py": 'delivery_urls.c.token_hash == bindparam("token_hash")',
        "store/oauth.py": "oauth_tokens.c.token_hash == token_hash",
        "store/device_codes.py": "device_codes.c.device_code_hash == digest",
        "store/credentials.py": "web_sessions.c.id_hash == id_hash",
    }
    for module, lookup in lookups.items():
        assert lookup in (ROOT / module).read_text(), module
    assert (
        "password_resets.c.token_hash == token_hash" in (ROOT / "store/credentials.py").read_text()
    )


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[tuple[object, object]]:
    calls: list[tuple[object, object]] = []
    real = hmac.compare_digest

    def counting(a, b):  # type: ignore[no-untyped-def]
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    return calls


def test_signed_values_are_checked_with_compare_digest(compared: list[object]) -> None:
    token = sign_value("secret", "purpose", {"a": 1})
    assert unsign_value("secret", "purpose", token[:-1] + "0") is None
    assert len(compared) == 1


def test_a_non_ascii_signature_is_refused_not_an_error() -> None:
    """compare_digest raises on non-ASCII str; a forged cookie must be refused, not a 500."""
    assert unsign_value("secret", "purpose", "eyJhIjoxfQ.\u00e9") is None


@SQLITE
async def test_api_keys_are_checked_with_compare_digest_after_the_digest_lookup(
    client: httpx.AsyncClient, customer: Customer, compared: list[object]
) -> None:
    response = await client.get("/api/v1/account", headers=customer.headers)
    assert response.status_code == 200
    assert compared  # the display prefix, after the row was found by the key's digest


@SQLITE
@pytest.mark.parametrize("overrides", [{"operator_token": "op-secret-token"}])
async def test_the_operator_token_is_checked_with_compare_digest(
    client: httpx.AsyncClient, compared: list[object]
) -> None:
    response = await client.post(
        "/billing/checkout/chk_x/confirm", data={"operator_token": "op-secret-tokeX"}
    )
    assert response.status_code == 403
    assert (b"op-secret-tokeX", b"op-secret-token") in compared


@SQLITE
async def test_a_non_ascii_csrf_token_is_refused_not_an_error(client: httpx.AsyncClient) -> None:
    page = await client.get("/signin")
    assert page.status_code == 200
    response = await client.post("/signin", data={"csrf_token": "\u00e9t\u00e9", "email": "a@b.c"})
    assert response.status_code == 403
