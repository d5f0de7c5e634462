"""An external identity provider (CARIMG_OAUTH_ISSUER): its JWT access tokens, checked against
the JWKS a real local HTTP server serves, map to carimg accounts by e-mail address."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from joserfc.jwk import OctKey, RSAKey

from carimg.domain.clock import FixedClock
from carimg.services import Services
from carimg.store.jwks import REFETCH_AFTER_SECONDS
from tests.conftest import Customer
from tests.oauth.provider import Provider, running_provider

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
def provider() -> Iterator[Provider]:
    with running_provider() as running:
        yield running


@pytest.fixture
def overrides(provider: Provider, request: pytest.FixtureRequest) -> dict[str, Any]:
    """The provider as issuer; a test adds settings with an indirect `overrides` parameter."""
    return {"oauth_issuer": provider.issuer, **getattr(request, "param", {})}


@dataclass
class Issue:
    """Tokens the provider issues now, by default for the customer's address."""

    provider: Provider
    clock: FixedClock
    email: str

    def __call__(self, **claims: Any) -> str:
        return self.provider.token(self.clock.time(), **({"email": self.email} | claims))


@pytest.fixture
def issue(provider: Provider, clock: FixedClock, customer: Customer) -> Issue:
    return Issue(provider, clock, customer.email)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def account_with(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.get("/api/v1/account", headers=bearer(token))


async def test_a_provider_token_reads_its_accounts_balance(
    client: httpx.AsyncClient, issue: Issue, customer: Customer
) -> None:
    response = await account_with(client, issue())
    assert response.status_code == 200, response.text
    assert response.json()["data"]["email"] == customer.email


@SQLITE_ONLY
async def test_mcp_tools_answer_a_provider_token(client: httpx.AsyncClient, issue: Issue) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    call["params"] = {"name": "get_account", "arguments": {}}
    token = issue()
    response = await client.post("/api/mcp", json=call, headers=bearer(token) | ACCEPT)
    assert response.status_code == 200, response.text
    assert response.json()["result"]["structuredContent"]["credits"] == 100


@SQLITE_ONLY
async def test_the_resource_metadata_names_the_provider(
    client: httpx.AsyncClient, provider: Provider
) -> None:
    document = (await client.get("/.well-known/oauth-protected-resource")).json()
    assert document["authorization_servers"] == [provider.issuer]


@SQLITE_ONLY
async def test_keys_are_fetched_once_and_cached(
    client: httpx.AsyncClient, issue: Issue, provider: Provider
) -> None:
    for _ in range(3):
        token = issue()
        assert (await account_with(client, token)).status_code == 200
    assert provider.jwks_fetches == 1


@SQLITE_ONLY
async def test_a_rotated_key_is_fetched_when_a_token_names_an_unknown_kid(
    client: httpx.AsyncClient, issue: Issue, provider: Provider, clock: FixedClock
) -> None:
    assert (await account_with(client, issue())).is_success
    provider.rotate()
    clock.advance(REFETCH_AFTER_SECONDS)
    response = await account_with(client, issue())
    assert response.status_code == 200, response.text
    assert provider.jwks_fetches == 2


@SQLITE_ONLY
async def test_unknown_kids_do_not_refetch_the_keys_at_every_request(
    client: httpx.AsyncClient, issue: Issue, provider: Provider
) -> None:
    stranger = RSAKey.generate_key(2048, parameters={"kid": "stranger"})
    for _ in range(3):
        token = issue(key=stranger, alg="RS256")
        assert (await account_with(client, token)).status_code == 401
    assert provider.jwks_fetches == 1  # the first look; refetching waits REFETCH_AFTER_SECONDS


@SQLITE_ONLY
async def test_a_token_signed_by_another_key_is_401_invalid_token(
    client: httpx.AsyncClient, issue: Issue, provider: Provider
) -> None:
    impostor = RSAKey.generate_key(2048, parameters={"kid": provider.keys[0].kid})
    token = issue(key=impostor, alg="RS256")
    response = await account_with(client, token)
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


@SQLITE_ONLY
async def test_an_hmac_token_is_refused(
    client: httpx.AsyncClient, issue: Issue, provider: Provider
) -> None:
    secret = OctKey.generate_key(256, parameters={"kid": provider.keys[0].kid})
    token = issue(key=secret, alg="HS256")
    assert (await account_with(client, token)).status_code == 401


@SQLITE_ONLY
@pytest.mark.parametrize(
    "claims",
    [
        {"iss": "https://other-issuer.example"},
        {"aud": "https://other-resource.example/api/mcp"},
        {"aud": None},
        {"iat": None},
    ],
    ids=["issuer", "audience", "no-audience", "no-issued-at"],
)
async def test_a_token_for_someone_else_is_401(
    client: httpx.AsyncClient, issue: Issue, claims: dict[str, Any]
) -> None:
    token = issue(**claims)
    assert (await account_with(client, token)).status_code == 401


@SQLITE_ONLY
async def test_an_expired_token_is_401_saying_so(
    client: httpx.AsyncClient, issue: Issue, clock: FixedClock
) -> None:
    token = issue(lifetime=60)
    clock.advance(120)
    response = await account_with(client, token)
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]


@SQLITE_ONLY
async def test_an_id_token_is_not_an_access_token(client: httpx.AsyncClient, issue: Issue) -> None:
    token = issue(typ="JWT")
    response = await account_with(client, token)
    assert response.status_code == 401
    assert "at+jwt" in response.json()["detail"]


@SQLITE_ONLY
async def test_an_address_without_an_account_is_403_saying_where_to_sign_up(
    client: httpx.AsyncClient, provider: Provider, clock: FixedClock
) -> None:
    response = await account_with(client, provider.token(clock.time(), email="new@example.com"))
    assert response.status_code == 403
    assert response.json()["code"] == "no_account"
    assert "http://testserver/signup" in response.json()["detail"]


@SQLITE_ONLY
async def test_an_unverified_address_is_refused(client: httpx.AsyncClient, issue: Issue) -> None:
    token = issue(email_verified=False)
    assert (await account_with(client, token)).status_code == 403


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"oauth_account_claim": "upn"}], indirect=True)
async def test_the_account_claim_setting_names_the_claim(
    client: httpx.AsyncClient, customer: Customer, provider: Provider, clock: FixedClock
) -> None:
    token = provider.token(clock.time(), upn=customer.email, email="someone-else@example.com")
    response = await account_with(client, token)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["email"] == customer.email


@SQLITE_ONLY
@pytest.mark.parametrize(
    "overrides", [{"oauth_audience": "https://api.carimg.test"}], indirect=True
)
async def test_the_audience_setting_replaces_the_resource(
    client: httpx.AsyncClient, issue: Issue
) -> None:
    token = issue(aud="https://api.carimg.test")
    assert (await account_with(client, token)).status_code == 200


@SQLITE_ONLY
async def test_scopes_are_only_connectable_ones_the_token_grants(
    client: httpx.AsyncClient, issue: Issue, customer: Customer, services: Services
) -> None:
    scope = "openid images:read billing:write billing:purchase"
    token = issue(scope=scope)
    response = await account_with(client, token)  # needs account:read, not granted
    assert response.status_code == 403
    assert response.json()["required_scope"] == "account:read"
    [connection] = await services.oauth.connections(customer.account_id)
    assert connection.scopes == ("images:read", "billing:write")


@SQLITE_ONLY
async def test_a_token_granting_no_connectable_scope_is_403(
    client: httpx.AsyncClient, issue: Issue
) -> None:
    token = issue(scope="openid billing:purchase")
    assert (await account_with(client, token)).status_code == 403


async def test_revoking_the_connection_refuses_tokens_issued_before(
    client: httpx.AsyncClient,
    issue: Issue,
    customer: Customer,
    clock: FixedClock,
    services: Services,
) -> None:
    earlier = issue()
    assert (await account_with(client, earlier)).status_code == 200
    [connection] = await services.oauth.connections(customer.account_id)
    assert connection.client_name.startswith("agent-host")
    clock.advance(1)
    await services.oauth.revoke_connection(customer.account_id, connection.id)
    assert (await account_with(client, earlier)).status_code == 401
    clock.advance(1)
    later = issue()  # the person connected again
    assert (await account_with(client, later)).status_code == 200


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"oauth_issuer": "http://127.0.0.1:9"}], indirect=True)
async def test_an_unreachable_provider_is_503(client: httpx.AsyncClient, issue: Issue) -> None:
    token = issue(iss="http://127.0.0.1:9")
    response = await account_with(client, token)
    assert response.status_code == 503
    assert "retry-after" in response.headers
