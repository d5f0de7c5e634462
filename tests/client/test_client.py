"""The SDK against the in-process app: typed answers, typed problems, billing-safe retries."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import httpx
import pytest

from carimg.client import (
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    DeviceFlowError,
    NotFoundError,
    PaymentRequiredError,
    PermissionDeniedError,
    sign_embed_url,
)
from carimg.services import Services
from carimg.store.partners import Partner
from tests.conftest import Customer

CAMRY = {"make": "toyota", "model": "camry", "year": 2020}
Handler = Callable[[httpx.Request], Awaitable[httpx.Response]]


class Recording(httpx.AsyncBaseTransport):
    """Forwards to the app and keeps every request; `lose_first` drops the first answer after
    the app has handled it, as a timed-out connection would."""

    def __init__(self, app_transport: httpx.AsyncBaseTransport, lose_first: bool = False) -> None:
        self._app = app_transport
        self._lose_first = lose_first
        self.requests: list[httpx.Request] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = await self._app.handle_async_request(request)
        if self._lose_first and len(self.requests) == 1:
            await response.aread()
            raise httpx.ReadTimeout("the answer was lost", request=request)
        return response


def through(client: httpx.AsyncClient, transport: httpx.AsyncBaseTransport) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=transport, base_url=client.base_url)


async def test_public_reads_return_typed_objects(sdk: AsyncClient) -> None:
    assert (await sdk.health()).status == "ok"
    options = await sdk.options()
    assert {view["id"] for view in options.views} >= {"front", "side", "rear-3-4"}
    years = await sdk.vehicle_years()
    assert 2020 in years.years and years.request_id
    makes = await sdk.vehicle_makes(2020)
    toyota = next(make for make in makes.makes if make.slug == "toyota")
    models = await sdk.vehicle_models(2020, toyota.id)
    assert "camry" in {model.slug for model in models.models}
    hits = await sdk.search_vehicles("camry", limit=2)
    assert hits.results[0].model_slug == "camry" and len(hits.results) <= 2
    assert (await sdk.model_years("toyota", "camry")).vehicles
    assert (await sdk.make_models("toyota", year=2020)).make.slug == "toyota"
    assert (await sdk.vehicles(q="camry")).data["results"]
    assert (await sdk.pricing()).data["credits_per_image"] == 1


async def test_an_image_carries_its_metadata_and_a_matching_etag_is_a_free_304(
    sdk: AsyncClient,
) -> None:
    image = await sdk.image(**CAMRY, size="thumb", format="webp")
    assert image.content_type == "image/webp" and image.extension == "webp"
    assert image.data[:4] == b"RIFF" and image.width == 256
    assert (image.credits_charged, image.credits_remaining) == (1, 99)
    assert image.etag and image.request_id and image.source in ("cache", "generated")
    again = await sdk.image(**CAMRY, size="thumb", format="webp", if_none_match=image.etag)
    assert again.not_modified and again.data == b"" and again.credits_charged == 0
    assert (await sdk.account()).data.credits == 99


async def test_a_minting_retry_reuses_its_idempotency_key_and_pays_once(
    client: httpx.AsyncClient, customer: Customer
) -> None:
    transport = Recording(client._transport, lose_first=True)
    http = through(client, transport)
    async with AsyncClient(customer.key, base_url="http://testserver", http_client=http) as sdk:
        minted = await sdk.image_urls([CAMRY, {**CAMRY, "view": "side"}], max_uses=3)
        account = await sdk.account()
    keys = {request.headers["Idempotency-Key"] for request in transport.requests[:2]}
    assert len(keys) == 1 and minted.idempotency_key in keys
    assert minted.replayed and len(minted.data) == 2
    assert minted.billing.credits_charged == 2 and account.data.credits == 98


async def test_a_signed_url_loads_without_the_key(sdk: AsyncClient) -> None:
    minted = await sdk.image_url(**CAMRY, size="thumb")
    assert minted.billing.credits_charged == 1 and minted.data.width == 256
    assert (await sdk.check_delivery(minted.data.url)).content_type == "image/png"
    image = await sdk.delivery(minted.data.url)
    assert image.width == 256 and image.credits_charged is None


async def test_402_is_typed_with_its_payment_members_and_never_retried(
    client: httpx.AsyncClient, make_customer: Callable[..., Awaitable[Customer]]
) -> None:
    broke = await make_customer(credits=0)
    transport = Recording(client._transport)
    http = through(client, transport)
    async with AsyncClient(broke.key, base_url="http://testserver", http_client=http) as sdk:
        with pytest.raises(PaymentRequiredError) as raised:
            await sdk.image(**CAMRY, size="thumb")
    error = raised.value
    assert (error.status, error.balance, error.required_credits) == (402, 0, 1)
    assert error.checkout_url and error.pricing and error.request_id
    assert len(transport.requests) == 1


async def test_a_missing_scope_names_required_scope(
    client: httpx.AsyncClient, make_customer: Callable[..., Awaitable[Customer]]
) -> None:
    narrow = await make_customer(scopes=("images:read",))
    async with AsyncClient(narrow.key, base_url="http://testserver", http_client=client) as sdk:
        with pytest.raises(PermissionDeniedError) as raised:
            await sdk.account()
    assert raised.value.required_scope == "account:read"


async def test_an_unknown_vehicle_is_not_found_with_suggestions(sdk: AsyncClient) -> None:
    with pytest.raises(NotFoundError) as raised:
        await sdk.image("toyota", "camryy", 2020)
    assert raised.value.suggestions and "image_path" in raised.value.suggestions[0]


async def test_a_bad_batch_item_is_400_with_its_index_and_parameter(sdk: AsyncClient) -> None:
    with pytest.raises(BadRequestError) as raised:
        await sdk.image_urls([CAMRY, {**CAMRY, "color": "chartreuse"}])
    error = raised.value
    assert (error.index, error.parameter, error.code, error.retryable) == (
        1,
        "color",
        "invalid_params",
        False,
    )
    assert (await sdk.account()).data.credits == 100


async def test_no_key_is_an_authentication_error(client: httpx.AsyncClient) -> None:
    async with AsyncClient(base_url="http://testserver", http_client=client) as sdk:
        assert sdk.api_key is None
        with pytest.raises(AuthenticationError) as raised:
            await sdk.account()
    assert raised.value.status == 401 and raised.value.request_id


async def test_device_token_errors_are_oauth_errors(sdk: AsyncClient) -> None:
    code = await sdk.device_code("sdk test")
    assert code.user_code and code.interval >= 1 and code.verification_uri_complete
    with pytest.raises(DeviceFlowError) as raised:
        await sdk.device_token(code.device_code)
    assert raised.value.error == "authorization_pending" and raised.value.status == 400


async def test_resolve_and_feedback(sdk: AsyncClient) -> None:
    resolved = await sdk.resolve("red 2020 toyota camry side view")
    params = resolved.data.params
    assert (params.make, params.model, params.year, params.color, params.view) == (
        "toyota",
        "camry",
        2020,
        "red",
        "side",
    )
    image = await sdk.image(**CAMRY, size="thumb")
    result = await sdk.feedback(request_id=image.request_id, rating=5)
    assert result.data.recorded


async def test_a_signed_embed_url_is_served_free(
    sdk: AsyncClient, services: Services, customer: Customer
) -> None:
    await services.partners.create(Partner("ptn_sdk", "SDK", "s3cret"), services.clock.now())
    url = sign_embed_url("s3cret", "toyota", "camry", 2020, width=128, now=services.clock.time())
    assert url.startswith("http://127.0.0.1:8000/images/car.png?")  # the default address
    path = url.removeprefix("http://127.0.0.1:8000")
    image = await sdk.delivery(f"http://testserver{path}")
    assert image.width == 128 and (await sdk.account()).data.credits == 100
