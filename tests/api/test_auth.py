"""Authentication, scopes, suspension and the API key rules (spec: Authentication, Scopes, API key).

Every request here is answered before any render: a successful authentication is observed as a
free 304 (`If-None-Match: *`), so these tests need no render cache.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets

import httpx
import pytest
from sqlalchemy import inspect, text

from carimg.domain.errors import DomainError
from carimg.services import Services
from tests.api.images_helpers import CAMRY, IMAGE_URL
from tests.conftest import Customer

INVALID_TOKEN = 'Bearer error="invalid_token"'
ANY_ETAG = {"If-None-Match": "*"}  # answered with a free 304 once the key is accepted
# Rules of the HTTP layer alone run on one database; those that touch stored keys run on both.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def fetch(client: httpx.AsyncClient, headers: dict[str, str]) -> httpx.Response:
    return await client.get(IMAGE_URL, params=CAMRY, headers={**ANY_ETAG, **headers})


def assert_unauthorized(response: httpx.Response) -> str:
    """A 401 problem document; returns its detail in lower case."""
    assert response.status_code == 401, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == 401
    assert body["type"] == "http://testserver/docs/errors#401"
    assert body["request_id"] == response.headers["x-request-id"]
    detail: str = body["detail"]
    return detail.lower()


async def active_keys(services: Services, account_id: str) -> int:
    query = text("SELECT count(*) FROM api_keys WHERE account_id = :a AND revoked_at IS NULL")
    async with services.engine.connect() as conn:
        return int(await conn.scalar(query, {"a": account_id}) or 0)


def unknown_key() -> str:
    """A well-formed key that no account holds."""
    return "cimg_" + secrets.token_urlsafe(32)


# -- missing credentials ----------------------------------------------------------------------


MISSING = [
    {},
    {"Authorization": ""},
    {"Authorization": "Bearer "},
    {"x-api-key": ""},
    {"Authorization": "Bearer <API_KEY>"},
    {"Authorization": "Bearer $CAR_IMAGE_API_KEY"},
    {"Authorization": "Bearer ${CAR_IMAGE_API_KEY}"},
    {"Authorization": "Bearer YOUR_API_KEY"},
    {"x-api-key": "<API_KEY>"},
    {"x-api-key": "$CAR_IMAGE_API_KEY"},
]


@SQLITE_ONLY
async def test_missing_credentials_are_401_saying_missing_without_invalid_token(
    client: httpx.AsyncClient,
) -> None:
    for headers in MISSING:
        response = await fetch(client, headers)
        detail = assert_unauthorized(response)
        assert "no api key" in detail, headers
        assert "invalid_token" not in response.headers.get("www-authenticate", ""), headers
        assert "ratelimit-limit" not in response.headers, headers


# -- invalid credentials ----------------------------------------------------------------------


@SQLITE_ONLY
async def test_a_malformed_key_is_401_invalid_token_saying_malformed(
    client: httpx.AsyncClient,
) -> None:
    for key in ("cimg_short", "sk_live_0123456789abcdef", "cimg_" + "a" * 42 + "!"):
        response = await fetch(client, {"Authorization": f"Bearer {key}"})
        assert "malformed" in assert_unauthorized(response), key
        assert response.headers["www-authenticate"] == INVALID_TOKEN, key


@SQLITE_ONLY
async def test_an_unknown_well_formed_key_is_401_invalid_token_saying_unknown(
    client: httpx.AsyncClient,
) -> None:
    response = await fetch(client, {"Authorization": f"Bearer {unknown_key()}"})
    assert "unknown" in assert_unauthorized(response)
    assert response.headers["www-authenticate"] == INVALID_TOKEN


async def test_a_revoked_key_is_401_invalid_token_saying_revoked(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await services.accounts.revoke_key(customer.key_id)
    response = await fetch(client, customer.headers)
    assert "revoked" in assert_unauthorized(response)
    assert response.headers["www-authenticate"] == INVALID_TOKEN


async def test_revocation_is_instant(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    before = await fetch(client, customer.headers)
    assert before.status_code == 304
    await services.accounts.revoke_key(customer.key_id)
    after = await fetch(client, customer.headers)
    assert after.status_code == 401
    assert after.headers["www-authenticate"] == INVALID_TOKEN


# -- where the key may be sent ----------------------------------------------------------------


@SQLITE_ONLY
async def test_x_api_key_is_accepted_like_bearer(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    bearer = await fetch(client, {"Authorization": f"Bearer {customer.key}"})
    header = await fetch(client, {"x-api-key": customer.key})
    assert bearer.status_code == header.status_code == 304
    assert header.headers["x-credits-charged"] == "0"
    assert header.headers["ratelimit-limit"] == "120"
    assert int(header.headers["ratelimit-remaining"]) == 118  # same key, same window


@SQLITE_ONLY
async def test_an_invalid_x_api_key_is_401_invalid_token(client: httpx.AsyncClient) -> None:
    response = await fetch(client, {"x-api-key": unknown_key()})
    assert "unknown" in assert_unauthorized(response)
    assert response.headers["www-authenticate"] == INVALID_TOKEN


@SQLITE_ONLY
async def test_a_key_in_the_query_string_is_never_accepted(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    for parameter in ("key", "api_key"):
        response = await client.get(
            IMAGE_URL, params={**CAMRY, parameter: customer.key}, headers=ANY_ETAG
        )
        assert "query string" in assert_unauthorized(response), parameter
        assert "ratelimit-limit" not in response.headers, parameter
    assert await services.ledger.balance(customer.account_id) == 100


# -- scopes and account state -----------------------------------------------------------------


async def test_a_key_without_images_read_is_403_naming_the_scope(
    client: httpx.AsyncClient, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    reader: Customer = await make_customer(scopes=("account:read",))
    response = await client.get(IMAGE_URL, params=CAMRY, headers=reader.headers)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["required_scope"] == "images:read"
    assert "images:read" in body["detail"]
    assert "code" not in body
    assert await services.ledger.balance(reader.account_id) == 100


async def test_a_suspended_account_is_403_account_suspended(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await services.accounts.set_status(customer.email, "suspended")
    response = await client.get(IMAGE_URL, params=CAMRY, headers=customer.headers)
    assert response.status_code == 403
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == "account_suspended"
    assert "suspended" in body["detail"]
    assert await services.ledger.balance(customer.account_id) == 100


async def test_unsuspending_restores_access(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    await services.accounts.set_status(customer.email, "suspended")
    assert (await fetch(client, customer.headers)).status_code == 403
    await services.accounts.set_status(customer.email, "active")
    assert (await fetch(client, customer.headers)).status_code == 304


# -- key creation rules -----------------------------------------------------------------------


async def test_an_account_holds_at_most_ten_active_keys(
    customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    for _ in range(9):
        await services.accounts.create_key(account)
    with pytest.raises(DomainError) as refused:
        await services.accounts.create_key(account)
    assert refused.value.status == 409
    assert refused.value.extensions["code"] == "key_limit_reached"
    assert await active_keys(services, account.id) == 10


async def test_a_revoked_key_frees_a_slot(customer: Customer, services: Services) -> None:
    account = await services.accounts.by_email(customer.email)
    for _ in range(9):
        await services.accounts.create_key(account)
    await services.accounts.revoke_key(customer.key_id)
    key, record = await services.accounts.create_key(account)
    assert key.startswith("cimg_") and record.active


async def test_concurrent_key_creation_never_passes_ten_active_keys(
    customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    results = await asyncio.gather(
        *(services.accounts.create_key(account) for _ in range(14)), return_exceptions=True
    )
    created = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, DomainError) and r.status == 409]
    assert (len(created), len(refused)) == (9, 5)
    assert await active_keys(services, account.id) == 10


async def test_only_the_sha256_and_a_display_prefix_are_stored(
    customer: Customer, services: Services
) -> None:
    async with services.engine.connect() as conn:
        stored = (
            (
                await conn.execute(
                    text("SELECT prefix, hash FROM api_keys WHERE id = :id"),
                    {"id": customer.key_id},
                )
            )
            .mappings()
            .one()
        )
        tables = await conn.run_sync(lambda sync: inspect(sync).get_table_names())
        everything = [
            repr(tuple(row))
            for table in tables
            for row in await conn.execute(text(f'SELECT * FROM "{table}"'))
        ]
    assert stored["hash"] == hashlib.sha256(customer.key.encode()).hexdigest()
    assert customer.key.startswith(stored["prefix"]) and len(stored["prefix"]) <= 16
    secret_part = customer.key[len(stored["prefix"]) :]
    assert everything, "the database holds rows"
    assert not [row for row in everything if customer.key in row or secret_part in row]


async def test_billing_purchase_is_refused_on_a_key_with_allowed_origins(
    customer: Customer, services: Services
) -> None:
    account = await services.accounts.by_email(customer.email)
    with pytest.raises(DomainError) as refused:
        await services.accounts.create_key(
            account,
            scopes=("images:read", "billing:purchase"),
            origins=("https://shop.example",),
        )
    assert refused.value.status == 400
    assert refused.value.extensions["parameter"] == "scopes"
    assert "billing:purchase" in refused.value.detail
    _, without_origins = await services.accounts.create_key(
        account, scopes=("images:read", "billing:purchase")
    )
    assert without_origins.scopes == ("images:read", "billing:purchase")


async def test_unknown_scopes_are_refused(customer: Customer, services: Services) -> None:
    account = await services.accounts.by_email(customer.email)
    for scope in ("images:write", "admin", "IMAGES:READ"):
        with pytest.raises(DomainError) as refused:
            await services.accounts.create_key(account, scopes=("images:read", scope))
        assert refused.value.status == 400
        assert refused.value.extensions["parameter"] == "scopes"
        assert scope in refused.value.detail
    assert await active_keys(services, account.id) == 1
