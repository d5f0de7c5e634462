"""The SDK passes the paint finish where it passes a color (issue 30)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from carimg.client import AsyncClient, sign_embed_url
from carimg.render import FINISHES
from carimg.services import Services
from carimg.store.partners import Partner

RED = {"make": "toyota", "model": "camry", "year": 2020, "color": "red", "size": "thumb"}


async def test_options_list_the_finishes(sdk: AsyncClient) -> None:
    options = await sdk.options()
    assert [finish["id"] for finish in options.finishes] == list(FINISHES)


async def test_an_image_url_is_minted_with_its_finish(sdk: AsyncClient) -> None:
    answer = await sdk.image_url(**RED, finish="metallic")
    assert answer.data.vehicle.finish == "metallic"


async def test_a_signed_embed_url_with_a_finish_is_served_free(
    sdk: AsyncClient, services: Services
) -> None:
    await services.partners.create(Partner("ptn_sdk", "SDK", "s3cret"), services.clock.now())
    url = sign_embed_url(
        "s3cret", "toyota", "camry", 2020, finish="satin", width=128, now=services.clock.time()
    )
    assert parse_qs(urlsplit(url).query)["finish"] == ["satin"]
    path = url.removeprefix("http://127.0.0.1:8000")
    image = await sdk.delivery(f"http://testserver{path}")
    assert image.width == 128 and (await sdk.account()).data.credits == 100
