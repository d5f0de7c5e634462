"""The built-in authorization server, in-process: metadata, registration, the code flow with
PKCE, refresh rotation, revocation, and the rules that refuse."""

from __future__ import annotations

import httpx
import pytest
from authlib.oauth2.rfc8414 import AuthorizationServerMetadata

from carimg.domain.clock import FixedClock
from carimg.domain.web_accounts import session_principal
from carimg.services import Services
from tests.oauth.conftest import Flow, pkce_pair, query_of
from tests.web.helpers import csrf_of

ACCEPT = {"Accept": "application/json, text/event-stream"}


async def account_via(client: httpx.AsyncClient, token: str) -> httpx.Response:
    return await client.get("/api/v1/account", headers={"Authorization": f"Bearer {token}"})


async def test_authorization_server_metadata_is_valid_rfc8414(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the test server is plain http
    document = (await client.get("/.well-known/oauth-authorization-server")).json()
    AuthorizationServerMetadata(document).validate()
    assert document["code_challenge_methods_supported"] == ["S256"]


async def test_protected_resource_metadata_names_the_endpoint_and_server(
    client: httpx.AsyncClient,
) -> None:
    for path in (
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp",
    ):
        document = (await client.get(path)).json()
        assert document["resource"] == "http://testserver/api/mcp"
        assert document["authorization_servers"] == ["http://testserver"]


async def test_mcp_without_credentials_points_at_the_resource_metadata(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/api/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=ACCEPT
    )
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == (
        'Bearer resource_metadata="http://testserver/.well-known/oauth-protected-resource"'
    )
    assert "sign in" in response.json()["detail"]


async def test_registration_refuses_plain_http_redirects_to_other_hosts(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/oauth/register", json={"redirect_uris": ["http://evil.example/cb"]}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"


async def refused_metadata(client: httpx.AsyncClient, metadata: dict[str, object]) -> str:
    """Register with an acceptable redirect URI and `metadata`: 400 invalid_client_metadata, and
    its error_description."""
    body = {"redirect_uris": ["https://app.example/callback"], **metadata}
    response = await client.post("/oauth/register", json=body)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_client_metadata"
    description: str = response.json()["error_description"]
    return description


@pytest.mark.parametrize(
    "uri",
    [
        "",
        "https://[",
        "https://",
        "javascript:alert(1)",
        "https://app.example@evil.example/",
        'https://["',
        "https:\\\\evil.example/",
        "http://évil.example/",
        "https://app.example/callback#",  # an empty fragment is still one (RFC 6749 §3.1.2)
    ],
)
async def test_registration_refuses_redirect_uris_that_are_not_acceptable(
    client: httpx.AsyncClient, uri: str
) -> None:
    response = await client.post("/oauth/register", json={"redirect_uris": [uri]})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"


@pytest.mark.parametrize(
    "metadata",
    [{"token_endpoint_auth_method": "é"}, {"grant_types": ['implicit"\\é']}],
    ids=["auth-method", "grant-type"],
)
async def test_registration_quotes_values_outside_ascii_back_percent_encoded(
    client: httpx.AsyncClient, metadata: dict[str, object]
) -> None:
    assert "%C3%A9" in await refused_metadata(client, metadata)


@pytest.mark.parametrize(
    "uri", ["com.example.app:/oauth2redirect", "cursor://anysphere.cursor-retrieval/oauth/callback"]
)
async def test_registration_takes_private_use_redirect_uris_of_native_apps(
    client: httpx.AsyncClient, uri: str
) -> None:
    response = await client.post("/oauth/register", json={"redirect_uris": [uri]})
    assert response.status_code == 201, response.text
    assert response.json()["redirect_uris"] == [uri]


@pytest.mark.parametrize(
    "metadata",
    [{"grant_types": [{}]}, {"grant_types": "authorization_code"}, {"response_types": [1]}],
    ids=["an-object", "not-a-list", "a-number"],
)
async def test_registration_refuses_grant_and_response_types_that_are_not_lists_of_strings(
    client: httpx.AsyncClient, metadata: dict[str, object]
) -> None:
    assert "must be a list of strings" in await refused_metadata(client, metadata)


async def test_code_flow_gives_tokens_that_read_the_account(flow: Flow) -> None:
    tokens = await flow.tokens()
    assert tokens["token_type"] == "Bearer"
    assert tokens["scope"] == "images:read account:read"
    response = await account_via(flow.client, tokens["access_token"])
    assert response.status_code == 200, response.text
    assert response.json()["data"]["email"] == flow.email


async def test_wrong_verifier_is_invalid_grant(flow: Flow) -> None:
    code, _ = await flow.authorize()
    other, _ = pkce_pair()
    response = await flow.exchange(code, other)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


async def test_reused_code_is_refused_and_ends_the_first_tokens(flow: Flow) -> None:
    code, verifier = await flow.authorize()
    first = await flow.exchange(code, verifier)
    assert first.status_code == 200
    again = await flow.exchange(code, verifier)
    assert again.json()["error"] == "invalid_grant"
    assert (await account_via(flow.client, first.json()["access_token"])).status_code == 401


async def test_foreign_redirect_uri_is_refused_before_redirecting(flow: Flow) -> None:
    _, challenge = pkce_pair()
    response = await flow.client.get(
        "/oauth/authorize", params=flow.request(challenge, redirect_uri="https://evil.example/cb")
    )
    assert response.status_code == 400
    assert "location" not in response.headers


async def test_plain_pkce_is_refused_at_the_redirect_uri(flow: Flow) -> None:
    params = flow.request("x" * 43, code_challenge_method="plain", state="s1")
    response = await flow.client.get("/oauth/authorize", params=params)
    assert response.status_code == 302
    answer = query_of(response.headers["location"])
    assert answer["error"] == "invalid_request" and answer["state"] == "s1"


async def test_billing_purchase_is_never_granted(flow: Flow) -> None:
    _, challenge = pkce_pair()
    params = flow.request(challenge, scope="images:read billing:purchase")
    response = await flow.client.get("/oauth/authorize", params=params)
    assert query_of(response.headers["location"])["error"] == "invalid_scope"


async def test_refresh_rotates_and_the_old_refresh_token_is_refused(flow: Flow) -> None:
    tokens = await flow.tokens()
    renewed = await flow.refresh(tokens["refresh_token"])
    assert renewed.status_code == 200, renewed.text
    assert renewed.json()["refresh_token"] != tokens["refresh_token"]
    replay = await flow.refresh(tokens["refresh_token"])
    assert replay.json()["error"] == "invalid_grant"
    # the replay of a rotated token ends the family, the renewed tokens included
    assert (await account_via(flow.client, renewed.json()["access_token"])).status_code == 401


async def test_expired_access_token_is_401(flow: Flow, clock: FixedClock) -> None:
    tokens = await flow.tokens()
    clock.advance(tokens["expires_in"] + 1)
    response = await account_via(flow.client, tokens["access_token"])
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]


async def test_revoked_access_token_is_401(flow: Flow) -> None:
    tokens = await flow.tokens()
    revoked = await flow.client.post(
        "/oauth/revoke", data={"token": tokens["access_token"], "client_id": flow.client_id}
    )
    assert revoked.status_code == 200
    assert (await account_via(flow.client, tokens["access_token"])).status_code == 401


async def test_disconnecting_on_the_dashboard_ends_tokens_at_once(flow: Flow) -> None:
    tokens = await flow.tokens()
    page = await flow.client.get("/dashboard/connections")
    assert "Test Agent" in page.text
    connection_id = page.text.split('data-id="')[1].split('"')[0]
    response = await flow.client.post(
        f"/dashboard/connections/{connection_id}/revoke", data={"csrf_token": csrf_of(page.text)}
    )
    assert response.status_code == 303
    assert (await account_via(flow.client, tokens["access_token"])).status_code == 401
    assert (await flow.refresh(tokens["refresh_token"])).json()["error"] == "invalid_grant"


async def test_connected_app_cannot_open_the_billing_portal(flow: Flow, services: Services) -> None:
    """Not even for an account that bought credits (whose keys may open it)."""
    account = await services.accounts.by_email(flow.email)
    bought = await services.billing.checkout(session_principal(account), credits=5000)
    assert bought.checkout is not None and (await services.billing.confirm(bought.checkout.id))[0]
    tokens = await flow.tokens(
        scope="images:read account:read billing:write", keep=("billing:write",)
    )
    assert "billing:write" in tokens["scope"].split()
    response = await flow.client.post(
        "/api/v1/billing/portal", headers={"Authorization": f"Bearer {tokens['access_token']}"}
    )
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["required_scope"] == "billing:write"


async def test_connection_does_not_count_as_an_api_key(flow: Flow) -> None:
    await flow.tokens()
    page = await flow.client.get("/dashboard")
    assert "oauth" not in page.text.split('id="keys"')[-1].split("</section>")[0]
