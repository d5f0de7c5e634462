"""The home page: what the service is, the free example renders, the links onwards."""

from __future__ import annotations

import re

import httpx
import pytest

from carimg.services import Services

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def image_urls(html: str) -> list[str]:
    return [url.replace("&amp;", "&") for url in re.findall(r'<img src="([^"]+)"', html)]


@SQLITE_ONLY
async def test_the_home_page_shows_every_configured_example(
    client: httpx.AsyncClient, services: Services
) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert len(image_urls(page.text)) == len(services.settings.embed_examples)
    assert "2020 Porsche 911" in page.text


@SQLITE_ONLY
async def test_the_home_page_examples_load_free_without_any_grant(
    client: httpx.AsyncClient,
) -> None:
    page = await client.get("/")
    client.cookies.clear()  # the example grant needs no cookie, key or session
    for url in image_urls(page.text):
        image = await client.get(url)
        assert image.status_code == 200, url  # canonical: no redirect, and free
        assert image.headers["x-credits-charged"] == "0"
        assert image.headers["content-type"] == "image/png"


@SQLITE_ONLY
@pytest.mark.parametrize(
    "overrides", [{"embed_examples": ("honda/civic/2019/side/red", "nope/nothing/2020/side/red")}]
)
async def test_examples_missing_from_the_catalog_are_left_out(client: httpx.AsyncClient) -> None:
    urls = image_urls((await client.get("/")).text)
    assert urls == [
        "/images/car.png?brand=honda&model=civic&year=2019&view=side&color=red&size=small"
    ]


@SQLITE_ONLY
@pytest.mark.parametrize("link", ["/docs", "/openapi.json", "/playground"])
async def test_the_home_page_links_to_the_docs_the_openapi_document_and_the_playground(
    client: httpx.AsyncClient, link: str
) -> None:
    page = await client.get("/")
    assert f'href="{link}"' in page.text
    assert (await client.get(link)).status_code == 200
