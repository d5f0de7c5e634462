"""GET /images/car.png: the legacy embed endpoint's grants, redirects and headers."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from carimg.config import Settings
from carimg.domain.embed import PLAYGROUND_COOKIE
from carimg.domain.signing import sign_value, signed_embed_url
from carimg.services import Services
from carimg.store.partners import Partner
from tests.conftest import Customer

EMBED = "/images/car.png"
CIVIC = "brand=honda&model=civic&year=2019&w=256"  # not a home-page example
EXAMPLE = "brand=toyota&model=camry&year=2020&view=front-3-4&color=silver&size=small"
SECRET = "partner-secret"


@pytest.fixture
async def partner(services: Services) -> Partner:
    partner = Partner("ptn_test", "Test partner", SECRET)
    await services.partners.create(partner, services.clock.now())
    return partner


def signed(
    services: Services, secret: str = SECRET, expires_in: int = 3600, **params: object
) -> str:
    query = {"brand": "honda", "model": "civic", "year": 2019, "w": 256, **params}
    return signed_embed_url("", secret, query, expires_in=expires_in, now=services.clock.time())  # type: ignore[arg-type]


async def test_a_partner_signed_url_is_free_and_public_until_exp(
    client: httpx.AsyncClient, services: Services, partner: Partner
) -> None:
    response = await client.get(signed(services, expires_in=3600))
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.headers["cache-control"] == "public, max-age=3600, s-maxage=3600"
    assert response.headers["x-credits-charged"] == "0"


async def test_a_signed_url_is_never_redirected(
    client: httpx.AsyncClient, services: Services, partner: Partner
) -> None:
    response = await client.get(signed(services, brand="HONDA", view="hero"))
    assert response.status_code == 200


@pytest.mark.parametrize(
    "tamper",
    [
        lambda url: url.replace("w=256", "w=512"),  # signed query changed
        lambda url: url.split("&sig=")[0],  # missing sig
        lambda url: url.split("&sig=")[0] + "&sig=XYZ",  # malformed sig
        lambda url: url.replace("exp=", "exp=1"),  # exp moved far ahead
    ],
)
async def test_a_bad_signature_is_403(
    client: httpx.AsyncClient, services: Services, partner: Partner, tamper: object
) -> None:
    response = await client.get(tamper(signed(services)))  # type: ignore[operator]
    assert response.status_code == 403


async def test_a_signature_with_another_secret_is_403(
    client: httpx.AsyncClient, services: Services, partner: Partner
) -> None:
    assert (await client.get(signed(services, secret="someone-else"))).status_code == 403


async def test_an_expired_signed_url_is_403(
    client: httpx.AsyncClient, services: Services, partner: Partner, clock: object
) -> None:
    url = signed(services, expires_in=60)
    clock.advance(61)  # type: ignore[attr-defined]
    assert (await client.get(url)).status_code == 403


async def test_mode_cached_never_renders(client: httpx.AsyncClient, services: Services) -> None:
    response = await client.get(
        f"{EMBED}?brand=honda&model=civic&year=1999&color=%23123457&mode=cached"
    )
    assert response.status_code == 404


async def test_mode_cached_serves_a_rendered_variant_for_free(
    client: httpx.AsyncClient, customer: Customer, services: Services
) -> None:
    keyed = await client.get(f"{EMBED}?{CIVIC}", headers=customer.headers)
    assert keyed.status_code == 200
    cached = await client.get(f"{EMBED}?{CIVIC}&mode=cached")
    assert cached.status_code == 200
    assert cached.headers["x-credits-charged"] == "0"
    assert cached.headers["cache-control"].startswith("public")
    assert cached.content == keyed.content


async def test_home_page_examples_are_free_and_public(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{EMBED}?{EXAMPLE}")
    assert response.status_code == 200
    assert response.headers["cache-control"] == (
        "public, max-age=300, s-maxage=3600, stale-while-revalidate=86400"
    )


@pytest.mark.parametrize("other", ["size=medium", "w=256", "size=small&format=webp"])
async def test_the_example_grant_serves_only_the_size_and_format_of_the_home_page(
    client: httpx.AsyncClient, other: str
) -> None:
    query = EXAMPLE.replace("size=small", other)
    assert (await client.get(f"{EMBED}?{query}")).status_code == 401


async def test_an_api_key_header_pays_one_credit_with_private_caching(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(f"{EMBED}?{CIVIC}", headers=customer.headers)
    assert response.status_code == 200
    assert response.headers["x-credits-charged"] == "1"
    assert response.headers["x-credits-remaining"] == "99"
    assert response.headers["cache-control"].startswith("private")


async def test_the_key_query_parameter_is_off_by_default(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    response = await client.get(f"{EMBED}?{CIVIC}&key={customer.key}")
    assert response.status_code == 401


async def test_anything_else_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{EMBED}?{CIVIC}")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert "x-api-key-warning" not in response.headers


async def test_a_signed_playground_cookie_is_free(
    client: httpx.AsyncClient, services: Services
) -> None:
    cookie = sign_value(
        services.secret_key, PLAYGROUND_COOKIE, {"exp": services.clock.time() + 600}
    )
    response = await client.get(
        f"{EMBED}?{CIVIC}", headers={"Cookie": f"{PLAYGROUND_COOKIE}={cookie}"}
    )
    assert response.status_code == 200
    assert response.headers["x-credits-charged"] == "0"


async def test_an_altered_playground_cookie_is_refused(client: httpx.AsyncClient) -> None:
    forged = sign_value("not-the-server-secret", PLAYGROUND_COOKIE, {"exp": time.time() + 600})
    response = await client.get(
        f"{EMBED}?{CIVIC}", headers={"Cookie": f"{PLAYGROUND_COOKIE}={forged}"}
    )
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("query", "location"),
    [
        ("make=honda&model=civic&year=2019", "brand=honda&model=civic&year=2019"),
        ("brand=Honda&model=Civic&year=2019", "brand=honda&model=civic&year=2019"),
        (
            "brand=honda&model=civic&year=2019&format=jpeg",
            "brand=honda&model=civic&year=2019&format=jpg",
        ),
        (
            "brand=honda&model=civic&year=2019&angle=hero",
            "brand=honda&model=civic&year=2019&view=front-3-4",
        ),
        (
            "brand=honda&model=civic&year=2019&color=RED&mode=cached",
            "brand=honda&model=civic&year=2019&color=red&mode=cached",
        ),
    ],
)
async def test_non_canonical_spellings_are_redirected_308(
    client: httpx.AsyncClient, query: str, location: str
) -> None:
    response = await client.get(f"{EMBED}?{query}")
    assert response.status_code == 308
    assert response.headers["location"] == f"{EMBED}?{location}"


async def test_an_honoured_query_key_survives_the_redirect(
    tmp_path: Path, settings: Settings, catalog: object, customer: Customer, app: object
) -> None:
    from carimg.app import create_app
    from carimg.render import RenderPool

    legacy = settings.model_copy(update={"embed_query_key": True})
    legacy_app = create_app(legacy, catalog=catalog, render_pool=RenderPool(0))  # type: ignore[arg-type]
    async with legacy_app.router.lifespan_context(legacy_app):
        transport = httpx.ASGITransport(app=legacy_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            moved = await client.get(f"{EMBED}?make=honda&model=civic&year=2019&key={customer.key}")
            assert moved.status_code == 308
            assert f"key={customer.key}" in moved.headers["location"]
            paid = await client.get(moved.headers["location"])
            assert paid.status_code == 200 and paid.headers["x-credits-charged"] == "1"


async def test_open_embeds_are_served_with_a_warning(settings: Settings, catalog: object) -> None:
    from carimg.app import create_app
    from carimg.render import RenderPool

    open_app = create_app(
        settings.model_copy(update={"embed_open": True}),
        catalog=catalog,
        render_pool=RenderPool(0),  # type: ignore[arg-type]
    )
    async with open_app.router.lifespan_context(open_app):
        transport = httpx.ASGITransport(app=open_app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            response = await client.get(f"{EMBED}?{CIVIC}")
    assert response.status_code == 200
    assert "x-api-key-warning" in response.headers


@pytest.mark.parametrize(
    "query",
    [f"{CIVIC}&colour=red", f"{CIVIC}&make=honda", f"{CIVIC}&mode=live"],
)
async def test_bad_parameters_are_400(client: httpx.AsyncClient, query: str) -> None:
    assert (await client.get(f"{EMBED}?{query}")).status_code == 400


async def test_a_token_signed_for_another_purpose_is_not_a_playground_cookie(
    client: httpx.AsyncClient, services: Services
) -> None:
    portal_link_token = sign_value(
        services.secret_key, "portal", {"account_id": "acc_x", "exp": services.clock.time() + 600}
    )
    response = await client.get(
        f"{EMBED}?{CIVIC}", headers={"Cookie": f"{PLAYGROUND_COOKIE}={portal_link_token}"}
    )
    assert response.status_code == 401


async def test_a_non_ascii_digit_exp_is_403_not_500(
    client: httpx.AsyncClient, services: Services, partner: Partner
) -> None:
    response = await client.get(f"{EMBED}?{CIVIC}&exp=%C2%B2&sig={'a' * 64}")
    assert response.status_code == 403
