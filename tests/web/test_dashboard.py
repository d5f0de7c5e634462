"""The dashboard: balance, usage chart, keys (create, show once, revoke, last use), buying."""

from __future__ import annotations

import re

import httpx

from carimg.domain.clock import FixedClock
from carimg.services import Services
from tests.web.helpers import get_csrf, post_form

ACCOUNT = "/api/v1/account"
IMAGE = "/api/v1/images/car?make=honda&model=civic&year=2019&size=thumb"


def _new_key(html: str) -> str:
    found = re.search(r'<output id="new-key"[^>]*>(cimg_[\w-]+)</output>', html)
    assert found, "the new key is not on the page"
    return found.group(1)


async def _create_key(client: httpx.AsyncClient, **fields: object) -> httpx.Response:
    data = {"name": "site", "scopes": ["images:read", "account:read"], "origins": "", **fields}
    return await post_form(client, "/dashboard/keys", data, page="/dashboard")


async def _account_id(services: Services, email: str) -> str:
    return (await services.accounts.by_email(email)).id


async def test_the_dashboard_shows_the_balance_and_its_value(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    page = await client.get("/dashboard")
    assert page.status_code == 200
    assert '<span data-testid="credits">100</span> credits' in page.text
    assert '<strong id="balance-usd">$0.10</strong>' in page.text  # 1,000 credits per dollar


async def test_the_usage_chart_is_an_accessible_svg_with_a_table_of_days(
    client: httpx.AsyncClient, signed_in: str, services: Services
) -> None:
    created = await _create_key(client)
    key = _new_key(created.text)
    image = await client.get(IMAGE, headers={"Authorization": f"Bearer {key}"})
    assert image.status_code == 200
    page = await client.get("/dashboard")
    assert 'role="img" aria-labelledby="chart-title chart-desc"' in page.text
    assert '<title id="chart-title">' in page.text
    assert page.text.count('class="bar-images"') == 30
    today = services.clock.now().date().isoformat()
    row = re.search(rf"<tr><th scope=\"row\">{today}</th>(.*?)</tr>", page.text)
    assert row is not None
    assert re.findall(r">(\d+)</td>", row.group(1)) == ["1", "0", "1"]  # images, URLs, credits


async def test_a_new_key_is_shown_once_and_works_with_the_api(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    created = await _create_key(client)
    assert created.status_code == 201
    key = _new_key(created.text)
    assert 'data-copy="#new-key"' in created.text
    account = await client.get(ACCOUNT, headers={"Authorization": f"Bearer {key}"})
    assert account.status_code == 200
    assert account.json()["data"]["credits"] == 100
    again = await client.get("/dashboard")
    assert key not in again.text
    assert key[:12] in again.text  # the prefix stays visible


async def test_keys_get_only_the_chosen_scopes(client: httpx.AsyncClient, signed_in: str) -> None:
    created = await _create_key(client, scopes=["images:read"])
    key = _new_key(created.text)
    account = await client.get(ACCOUNT, headers={"Authorization": f"Bearer {key}"})
    assert account.status_code == 403
    assert account.json()["required_scope"] == "account:read"


async def test_keys_with_origins_keep_them_and_never_hold_billing_purchase(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    refused = await _create_key(
        client, scopes=["images:read", "billing:purchase"], origins="https://shop.example"
    )
    assert refused.status_code == 400
    assert "cannot hold billing:purchase" in refused.text
    assert "https://shop.example" in refused.text  # the form keeps what was typed
    created = await _create_key(client, origins="https://shop.example\nhttps://www.shop.example/")
    assert created.status_code == 201
    assert "Origins: https://shop.example, https://www.shop.example" in created.text


async def test_keys_refuse_unknown_scopes_bad_origins_and_no_scope(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    assert (await _create_key(client, scopes=["images:write"])).status_code == 400
    assert (await _create_key(client, origins="shop.example")).status_code == 400
    none = await _create_key(client, scopes=[])
    assert none.status_code == 400
    assert "Choose at least one scope." in none.text


async def test_revoking_a_key_is_instant(client: httpx.AsyncClient, signed_in: str) -> None:
    key = _new_key((await _create_key(client)).text)
    key_id = re.search(
        r'action="/dashboard/keys/(key_\w+)/revoke"', (await client.get("/dashboard")).text
    )
    assert key_id is not None
    response = await post_form(
        client, f"/dashboard/keys/{key_id.group(1)}/revoke", {}, page="/dashboard"
    )
    assert response.status_code == 303
    assert response.headers["location"] == "/dashboard?notice=key-revoked#keys"
    refused = await client.get(ACCOUNT, headers={"Authorization": f"Bearer {key}"})
    assert refused.status_code == 401
    page = await client.get("/dashboard?notice=key-revoked")
    assert "The key is revoked" in page.text
    assert "Revoked " in page.text


async def test_nobody_revokes_another_accounts_key(
    client: httpx.AsyncClient, signed_in: str, make_customer
) -> None:  # type: ignore[no-untyped-def]
    other = await make_customer()
    response = await post_form(
        client, f"/dashboard/keys/{other.key_id}/revoke", {}, page="/dashboard"
    )
    assert response.status_code == 404
    still = await client.get(ACCOUNT, headers=other.headers)
    assert still.status_code == 200


async def test_an_account_holds_at_most_ten_active_keys(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    token = await get_csrf(client, "/dashboard")
    for index in range(10):
        made = await client.post(
            "/dashboard/keys", data={"csrf_token": token, "name": f"k{index}",
                                     "scopes": ["images:read"]},
        )  # fmt: skip
        assert made.status_code == 201
    eleventh = await client.post(
        "/dashboard/keys", data={"csrf_token": token, "scopes": ["images:read"]}
    )
    assert eleventh.status_code == 409
    assert "at most 10 active keys" in eleventh.text
    page = await client.get("/dashboard")
    assert "10 of 10 active keys" in page.text
    assert 'id="create-key"' not in page.text


async def test_the_last_use_of_a_key_is_shown_to_the_minute(
    client: httpx.AsyncClient, signed_in: str, clock: FixedClock
) -> None:
    key = _new_key((await _create_key(client)).text)
    page = await client.get("/dashboard")
    assert "never" in page.text
    headers = {"Authorization": f"Bearer {key}"}
    assert (await client.get(ACCOUNT, headers=headers)).status_code == 200
    first = clock.now().strftime("%Y-%m-%d %H:%M UTC")
    assert first in (await client.get("/dashboard")).text
    clock.advance(30)
    await client.get(ACCOUNT, headers=headers)  # within the minute: not written again
    clock.advance(60)
    await client.get(ACCOUNT, headers=headers)
    later = clock.now().strftime("%Y-%m-%d %H:%M UTC")
    assert later != first
    assert later in (await client.get("/dashboard")).text


async def test_buying_a_pack_goes_to_the_hosted_checkout_and_credits_arrive(
    client: httpx.AsyncClient, signed_in: str, services: Services
) -> None:
    page = await client.get("/dashboard")
    assert "Open billing portal" not in page.text
    response = await post_form(
        client, "/dashboard/checkout", {"credits": "5000"}, page="/dashboard"
    )
    assert response.status_code == 303
    location = response.headers["location"]
    assert re.fullmatch(r"http://testserver/billing/checkout/chk_\w+", location)
    hosted = await client.get(location)
    assert hosted.status_code == 200
    assert "5,000 carimg credits" in hosted.text
    await services.billing.confirm(location.rsplit("/", 1)[1])
    page = await client.get("/dashboard")
    assert '<span data-testid="credits">5,100</span>' in page.text
    assert "Open billing portal" in page.text
    portal = await post_form(client, "/dashboard/portal", {}, page="/dashboard")
    assert portal.status_code == 303
    assert portal.headers["location"].startswith("http://testserver/billing/portal?token=")
    assert (await client.get(portal.headers["location"])).status_code == 200


async def test_a_pack_that_is_not_sold_is_refused(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    response = await post_form(client, "/dashboard/checkout", {"credits": "7"}, page="/dashboard")
    assert response.status_code == 400
    assert "one of the pack sizes" in response.text


async def test_the_portal_needs_a_first_purchase(client: httpx.AsyncClient, signed_in: str) -> None:
    response = await post_form(client, "/dashboard/portal", {}, page="/dashboard")
    assert response.status_code == 400
    assert "after a first purchase" in response.text


async def test_the_billing_link_of_402_answers_shows_the_chosen_pack(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    page = await client.get("/dashboard/billing?pack=pack_10000")
    assert page.status_code == 200
    assert page.text.count('name="credits"') == 1
    assert 'value="10000"' in page.text
    every = await client.get("/dashboard/billing")
    assert every.text.count('name="credits"') == 4


async def test_dashboard_forms_need_the_csrf_token(
    client: httpx.AsyncClient, signed_in: str
) -> None:
    response = await client.post("/dashboard/keys", data={"scopes": ["images:read"]})
    assert response.status_code == 403
