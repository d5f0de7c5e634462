"""GET /api/v1/vehicles: the six response shapes, parameters, limits and errors."""

from __future__ import annotations

import httpx
import pytest

from carimg.catalog import Catalog

URL = "/api/v1/vehicles"


async def data(client: httpx.AsyncClient, **params: str | int) -> dict:
    response = await client.get(URL, params=params)
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"data", "request_id"}
    return body["data"]


async def problem(client: httpx.AsyncClient, status: int, query: str) -> dict:
    response = await client.get(URL + query)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    return response.json()


async def test_no_parameters_lists_the_years(client: httpx.AsyncClient) -> None:
    assert await data(client) == {"years": list(range(1990, 2027))}


async def test_year_lists_the_makes_of_that_year(client: httpx.AsyncClient) -> None:
    body = await data(client, year=2020)
    assert body["year"] == 2020
    toyota = next(make for make in body["makes"] if make["slug"] == "toyota")
    assert toyota == {"id": 448, "name": "Toyota", "slug": "toyota"}


async def test_year_and_make_id_list_that_makes_models(client: httpx.AsyncClient) -> None:
    body = await data(client, year=2020, makeId=448)
    assert (body["year"], body["make_id"]) == (2020, 448)
    camry = next(model for model in body["models"] if model["slug"] == "camry")
    assert camry["name"] == "Camry" and camry["vehicle_type"] == "Passenger Car"


async def test_q_searches_with_match_kinds(client: httpx.AsyncClient) -> None:
    body = await data(client, q="porsche 911")
    assert body["query"] == "porsche 911" and "year" not in body
    first = body["results"][0]
    assert (first["kind"], first["make_slug"], first["model_slug"]) == ("model", "porsche", "911")
    assert first["match_kind"] == "exact"
    assert {"make_name", "model_name", "vehicle_type", "years"} <= set(first)


async def test_q_with_year_and_limit(client: httpx.AsyncClient) -> None:
    body = await data(client, q="ford", year=2020, limit=3)
    assert body["year"] == 2020
    assert len(body["results"]) == 3
    assert all(hit["years"] == [2020] for hit in body["results"])


async def test_make_lists_its_models(client: httpx.AsyncClient) -> None:
    body = await data(client, make="porsche")
    assert body["make"]["slug"] == "porsche" and "year" not in body
    assert any(model["slug"] == "911" for model in body["models"])


async def test_make_and_year_lists_that_years_models(client: httpx.AsyncClient) -> None:
    body = await data(client, make="tesla", year=2015)
    assert body["year"] == 2015
    assert "model-3" not in {model["slug"] for model in body["models"]}


async def test_make_and_model_list_the_years_and_vehicle_ids(client: httpx.AsyncClient) -> None:
    body = await data(client, make="toyota", model="camry")
    assert body["make"]["slug"] == "toyota" and body["model"]["slug"] == "camry"
    assert 2020 in body["years"]
    assert {"id": "veh_4f79b819fda94", "year": 2020} in body["vehicles"]


async def test_a_unique_model_prefix_matches(client: httpx.AsyncClient) -> None:
    body = await data(client, make="porsche", model="cayen")
    assert body["model"]["slug"] == "cayenne"


async def test_catalog_responses_are_cacheable_for_a_day(client: httpx.AsyncClient) -> None:
    response = await client.get(URL, params={"make": "bmw"})
    assert response.headers["cache-control"] == "public, max-age=86400"
    assert response.headers["etag"].startswith('W/"')


async def test_matching_etag_gives_a_304(client: httpx.AsyncClient) -> None:
    first = await client.get(URL, params={"make": "bmw"})
    again = await client.get(
        URL, params={"make": "bmw"}, headers={"If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""


async def test_tracking_tags_are_ignored_and_named(client: httpx.AsyncClient) -> None:
    response = await client.get(URL, params={"make": "bmw", "utm_source": "mail", "gclid": "x"})
    assert response.status_code == 200
    assert response.headers["x-ignored-parameters"] == "gclid, utm_source"


async def test_an_unknown_parameter_is_400_naming_what_is_allowed(
    client: httpx.AsyncClient,
) -> None:
    body = await problem(client, 400, "?colour=red")
    assert body["parameter"] == "colour" and body["code"] == "invalid_params"
    assert body["allowed"] == ["limit", "make", "makeId", "model", "q", "year"]
    assert body["retryable"] is False


async def test_a_repeated_parameter_is_400(client: httpx.AsyncClient) -> None:
    body = await problem(client, 400, "?year=2020&year=2021")
    assert body["parameter"] == "year"


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("?year=abc", "year"),
        ("?year=1989", "year"),
        ("?makeId=x&year=2020", "makeId"),
        ("?q=ford&limit=0", "limit"),
        ("?q=ford&limit=26", "limit"),
        ("?q=" + "a" * 201, "q"),
        ("?q=", "q"),
        ("?q=%20%20", "q"),
        ("?model=camry", "model"),
        ("?makeId=448", "makeId"),
        ("?q=ford&make=ford", "make"),
        ("?make=ford&makeId=460&year=2020", "makeId"),
    ],
)
async def test_invalid_parameters_are_400_naming_the_parameter(
    client: httpx.AsyncClient, query: str, parameter: str
) -> None:
    body = await problem(client, 400, query)
    assert body["parameter"] == parameter
    assert body["detail"]


async def test_an_unknown_make_is_404_with_suggestions(client: httpx.AsyncClient) -> None:
    body = await problem(client, 404, "?make=toyot")
    assert "toyota" in [make["slug"] for make in body["suggestions"]]


async def test_an_unknown_model_is_404(client: httpx.AsyncClient) -> None:
    body = await problem(client, 404, "?make=toyota&model=zzzz")
    assert "zzzz" in body["detail"]


async def test_an_ambiguous_model_prefix_is_404_listing_the_candidates(
    client: httpx.AsyncClient,
) -> None:
    body = await problem(client, 404, "?make=toyota&model=cam")
    assert {"camry", "cami"} <= {model["slug"] for model in body["suggestions"]}


async def test_a_model_outside_its_years_is_404_with_the_years(client: httpx.AsyncClient) -> None:
    body = await problem(client, 404, "?make=tesla&model=model-3&year=2005")
    assert 2020 in body["years"]


async def test_an_unknown_make_id_is_404(client: httpx.AsyncClient) -> None:
    await problem(client, 404, "?makeId=999999999999&year=2020")


# -- bounded work (issue 25): each search is bounded, and so is each address ------------------

SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
YEARS = " ".join(str(1990 + n) for n in range(20))  # 20 year-like words in 99 characters


@SQLITE_ONLY
async def test_a_search_naming_more_than_two_years_is_400(client: httpx.AsyncClient) -> None:
    body = await problem(client, 400, "?q=2019%202020%202021%20camry")
    assert body["parameter"] == "q"


@SQLITE_ONLY
async def test_a_search_of_more_than_twelve_words_is_400(client: httpx.AsyncClient) -> None:
    words = "%20".join(["toyota"] * 13)
    assert (await problem(client, 400, f"?q={words}"))["parameter"] == "q"


@SQLITE_ONLY
async def test_a_make_of_more_than_100_characters_is_400(client: httpx.AsyncClient) -> None:
    await problem(client, 400, f"?make={'x' * 101}")


@SQLITE_ONLY
async def test_a_suggestion_search_reads_at_most_two_year_like_words(
    client: httpx.AsyncClient, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A make or model not found is answered with suggestions from a search of its text: of at
    most 12 words, 2 of them years (each year-like word costs a pass over the catalog)."""
    searched: list[str] = []
    search = catalog.search

    def recording(text: str, **options: object) -> object:
        searched.append(text)
        return search(text, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(catalog, "search", recording)
    embed = f"/images/car.png?brand={YEARS.replace(' ', '%20')}&model=x&year=2020&mode=cached"
    assert (await client.get(embed)).status_code == 404
    assert searched
    for text in searched:
        assert sum(len(word) == 4 and word.isdigit() for word in text.split()) <= 2


@SQLITE_ONLY
@pytest.mark.parametrize("overrides", [{"catalog_requests_per_minute": 3}])
async def test_catalog_requests_past_the_per_address_limit_are_429(
    client: httpx.AsyncClient,
) -> None:
    for path in (URL, URL + "?year=2020", "/api/v1/images/options"):  # counted together
        assert (await client.get(path)).status_code == 200
    refused = await client.get(URL)
    assert refused.status_code == 429
    assert refused.headers["content-type"] == "application/problem+json"
    assert 0 < int(refused.headers["retry-after"]) <= 60
