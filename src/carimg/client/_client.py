"""`Client` and `AsyncClient`: one typed method per endpoint, written once.

Each endpoint below is a function that builds an `Operation`; the `endpoint` descriptor turns it
into a blocking method on `Client` and a coroutine method on `AsyncClient`, with the same
signature and docstring. The two classes differ only in how they drive `exchange()`.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, cast, overload

import httpx
from pydantic import BaseModel

import carimg
from carimg.client import _models as m
from carimg.client._config import resolve_api_key, resolve_base_url
from carimg.client._operation import Operation, Pause, RetryPolicy, exchange

P = ParamSpec("P")
T = TypeVar("T")
ModelT = TypeVar("ModelT", bound=BaseModel)
USER_AGENT = f"carimg-python/{carimg.__version__}"
DEFAULT_TIMEOUT = httpx.Timeout(30.0, read=180.0)  # a cold render may take minutes elsewhere


def _model(cls: type[ModelT]) -> Callable[[httpx.Response], ModelT]:
    """A JSON answer as `cls`; a body without `request_id` gets the X-Request-Id header's."""

    def parse(response: httpx.Response) -> ModelT:
        body = response.json()
        if isinstance(body, dict) and "request_id" not in body:
            body["request_id"] = response.headers.get("x-request-id")
        return cls.model_validate(body)

    return parse


def _catalog(cls: type[ModelT]) -> Callable[[httpx.Response], ModelT]:
    """A vehicles answer: its `data`, with the answer's request id."""

    def parse(response: httpx.Response) -> ModelT:
        body = response.json()
        return cls.model_validate({**body["data"], "request_id": body.get("request_id")})

    return parse


def _int_header(response: httpx.Response, name: str) -> int | None:
    value = response.headers.get(name)
    return int(value) if value is not None and value.strip().lstrip("-").isdigit() else None


def _image(response: httpx.Response) -> m.Image:
    return m.Image(
        data=response.content,
        content_type=response.headers.get("content-type", "application/octet-stream"),
        etag=response.headers.get("etag"),
        width=_int_header(response, "x-image-width"),
        height=_int_header(response, "x-image-height"),
        source=response.headers.get("x-image-source"),
        credits_charged=_int_header(response, "x-credits-charged"),
        credits_remaining=_int_header(response, "x-credits-remaining"),
        request_id=response.headers.get("x-request-id"),
        content_location=response.headers.get("content-location"),
        not_modified=response.status_code == 304,
    )


def _urls(response: httpx.Response) -> m.ImageUrlsResponse:
    replayed = response.headers.get("idempotent-replayed", "").lower() == "true"
    key = response.request.headers.get("idempotency-key")
    return m.ImageUrlsResponse.model_validate(
        {**response.json(), "replayed": replayed, "idempotency_key": key}
    )


def _drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


# The image endpoint's query names for the keyword arguments (w and h are the API's spelling).
_QUERY_NAMES = {"width": "w", "height": "h"}


def _image_query(values: Mapping[str, Any]) -> dict[str, Any]:
    query = {_QUERY_NAMES.get(name, name): value for name, value in _drop_none(values).items()}
    for flag in ("trim", "reflection"):
        if isinstance(query.get(flag), bool):
            query[flag] = str(query[flag]).lower()
    return query


ImageRequest = Mapping[str, Any]
"""One item of `image_urls`: make, model, year and optional view, color, finish, width, height,
size, format, fit, background, trim, padding, reflection (or vehicle, a catalog id)."""


HttpT = TypeVar("HttpT", httpx.Client, httpx.AsyncClient)


class _Runner(Generic[HttpT]):
    """Configuration shared by both clients: address, key, retries, headers, HTTP client.

    `api_key`: else `CAR_IMAGE_API_KEY`, else the key `carimg login` stored for this address.
    `base_url`: else `CAR_IMAGE_API_URL`, else the stored address, else `DEFAULT_BASE_URL`.
    `http_client`: an httpx client to send through (tests pass one bound to an app); it is left
    open on close, as its owner's.
    """

    _http_class: type[HttpT]

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        headers: Mapping[str, str] | None = None,
        http_client: HttpT | None = None,
    ) -> None:
        self.base_url = resolve_base_url(base_url)
        self.api_key = resolve_api_key(api_key, self.base_url)
        self.retry_policy = RetryPolicy(max_retries=max_retries, max_retry_wait=max_retry_wait)
        self._headers = {"User-Agent": USER_AGENT, **(headers or {})}
        self._owns_http = http_client is None
        self._http: HttpT = http_client or self._http_class(timeout=timeout or DEFAULT_TIMEOUT)

    def _request(self, http: httpx.Client | httpx.AsyncClient, op: Operation[Any]) -> httpx.Request:
        headers = dict(self._headers) | op.headers
        if op.authenticated and self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        url = op.path if "://" in op.path else f"{self.base_url}{op.path}"
        return http.build_request(op.method, url, params=op.params, json=op.json, headers=headers)


class _SyncRunner(_Runner[httpx.Client]):
    _http_class = httpx.Client

    def _run(self, op: Operation[T]) -> T:
        flow = exchange(op, functools.partial(self._request, self._http), self.retry_policy)
        outcome: httpx.Response | httpx.TransportError | None = None
        try:
            while True:
                step = flow.send(outcome)
                if isinstance(step, Pause):
                    time.sleep(step.seconds)
                    outcome = None
                    continue
                try:
                    outcome = self._http.send(step)
                except httpx.TransportError as error:
                    outcome = error
        except StopIteration as done:
            result: T = done.value
            return result


class _AsyncRunner(_Runner[httpx.AsyncClient]):
    _http_class = httpx.AsyncClient

    async def _run(self, op: Operation[T]) -> T:
        flow = exchange(op, functools.partial(self._request, self._http), self.retry_policy)
        outcome: httpx.Response | httpx.TransportError | None = None
        try:
            while True:
                step = flow.send(outcome)
                if isinstance(step, Pause):
                    await asyncio.sleep(step.seconds)
                    outcome = None
                    continue
                try:
                    outcome = await self._http.send(step)
                except httpx.TransportError as error:
                    outcome = error
        except StopIteration as done:
            result: T = done.value
            return result


class endpoint(Generic[P, T]):
    """Turns an operation builder into a method of both clients (see the module docstring)."""

    def __init__(self, build: Callable[Concatenate[Any, P], Operation[T]]) -> None:
        self._build = build
        functools.update_wrapper(cast(Any, self), build)

    @overload
    def __get__(self, instance: None, owner: type) -> endpoint[P, T]: ...
    @overload
    def __get__(self, instance: _SyncRunner, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(
        self, instance: _AsyncRunner, owner: type
    ) -> Callable[P, Coroutine[Any, Any, T]]: ...
    def __get__(self, instance: Any, owner: type) -> Any:
        if instance is None:
            return self
        build = self._build

        @functools.wraps(build)
        def method(*args: Any, **kwargs: Any) -> Any:
            return instance._run(build(instance, *args, **kwargs))

        return method


def _public(path: str, parse: Callable[[httpx.Response], T], **params: Any) -> Operation[T]:
    """A free, keyless read: safe to resend."""
    return Operation(
        "GET", path, parse, params=_drop_none(params) or None, authenticated=False, resendable=True
    )


class _Endpoints:
    """Every endpoint of the API, as operation builders."""

    # --- public reads -------------------------------------------------------------------------

    @endpoint
    def health(self) -> Operation[m.Health]:
        """`GET /api/health`: the service and each dependency's state."""
        return _public("/api/health", _model(m.Health))

    @endpoint
    def options(self) -> Operation[m.Options]:
        """`GET /api/v1/images/options`: views, colors, sizes, formats, pricing, limits (free)."""
        return _public("/api/v1/images/options", _model(m.Options))

    @endpoint
    def pricing(self) -> Operation[m.Pricing]:
        """`GET /api/v1/pricing`: packs, plans (variant B), credits per dollar (free)."""
        return _public("/api/v1/pricing", _model(m.Pricing))

    @endpoint
    def openapi(self) -> Operation[dict[str, Any]]:
        """`GET /openapi.json`: the machine-readable description of the API."""
        return _public("/openapi.json", lambda response: dict(response.json()))

    # --- the catalog (GET /api/v1/vehicles, one method per shape) ------------------------------

    @endpoint
    def vehicles(
        self,
        *,
        year: int | None = None,
        make_id: int | None = None,
        q: str | None = None,
        limit: int | None = None,
        make: str | None = None,
        model: str | None = None,
    ) -> Operation[m.Envelope]:
        """`GET /api/v1/vehicles` with any parameters: `data` in whichever of the six shapes
        they select (the methods below return each shape typed)."""
        params = {"year": year, "makeId": make_id, "q": q, "limit": limit}
        return _public("/api/v1/vehicles", _model(m.Envelope), **params, make=make, model=model)

    @endpoint
    def vehicle_years(self) -> Operation[m.YearsData]:
        """Every model year in the catalog."""
        return _public("/api/v1/vehicles", _catalog(m.YearsData))

    @endpoint
    def vehicle_makes(self, year: int) -> Operation[m.YearMakesData]:
        """The makes with models in `year`."""
        return _public("/api/v1/vehicles", _catalog(m.YearMakesData), year=year)

    @endpoint
    def vehicle_models(self, year: int, make_id: int) -> Operation[m.YearMakeModelsData]:
        """The models of make `make_id` in `year`."""
        return _public(
            "/api/v1/vehicles", _catalog(m.YearMakeModelsData), year=year, makeId=make_id
        )

    @endpoint
    def search_vehicles(
        self, q: str, *, year: int | None = None, limit: int | None = None
    ) -> Operation[m.SearchData]:
        """Search makes and models by name (limit 1 to 25, default 10)."""
        return _public("/api/v1/vehicles", _catalog(m.SearchData), q=q, year=year, limit=limit)

    @endpoint
    def make_models(self, make: str, *, year: int | None = None) -> Operation[m.MakeModelsData]:
        """A make (slug) and its models, optionally in one year."""
        return _public("/api/v1/vehicles", _catalog(m.MakeModelsData), make=make, year=year)

    @endpoint
    def model_years(self, make: str, model: str) -> Operation[m.MakeModelYearsData]:
        """A model's years and the vehicle id of each."""
        return _public("/api/v1/vehicles", _catalog(m.MakeModelYearsData), make=make, model=model)

    # --- images -------------------------------------------------------------------------------

    @endpoint
    def image(
        self,
        make: str | None = None,
        model: str | None = None,
        year: int | None = None,
        *,
        vehicle: str | None = None,
        view: str | None = None,
        color: str | None = None,
        finish: str | None = None,
        width: int | None = None,
        height: int | None = None,
        size: str | None = None,
        format: str | None = None,
        fit: str | None = None,
        background: str | None = None,
        trim: bool | None = None,
        padding: int | None = None,
        reflection: bool | None = None,
        if_none_match: str | None = None,
        request_id: str | None = None,
    ) -> Operation[m.Image]:
        """`GET /api/v1/images/car`: the image bytes (1 credit; a 304 for `if_none_match` is
        free and comes back with `not_modified` set)."""
        query = _image_query(
            {
                "make": make, "model": model, "year": year, "vehicle": vehicle, "view": view,
                "color": color, "finish": finish, "width": width, "height": height,
                "size": size, "format": format, "fit": fit, "background": background,
                "trim": trim, "padding": padding, "reflection": reflection,
            }
        )  # fmt: skip
        headers = _drop_none({"If-None-Match": if_none_match, "X-Request-Id": request_id})
        return Operation(
            "GET", "/api/v1/images/car", _image, params=query, headers=headers, ok=(200, 304)
        )

    @endpoint
    def image_url(
        self,
        make: str | None = None,
        model: str | None = None,
        year: int | None = None,
        *,
        vehicle: str | None = None,
        view: str | None = None,
        color: str | None = None,
        finish: str | None = None,
        width: int | None = None,
        height: int | None = None,
        size: str | None = None,
        format: str | None = None,
    ) -> Operation[m.ImageUrlResponse]:
        """`GET /api/v1/images/car?response=url`: one signed URL (1 credit, charged now)."""
        query = _image_query(
            {
                "make": make, "model": model, "year": year, "vehicle": vehicle, "view": view,
                "color": color, "finish": finish, "width": width, "height": height,
                "size": size, "format": format, "response": "url",
            }
        )  # fmt: skip
        return Operation("GET", "/api/v1/images/car", _model(m.ImageUrlResponse), params=query)

    @endpoint
    def image_urls(
        self,
        images: Iterable[ImageRequest],
        *,
        ttl_seconds: int | None = None,
        max_uses: int | None = None,
        renew: bool | None = None,
        renew_days: int | None = None,
        idempotency_key: str | None = None,
    ) -> Operation[m.ImageUrlsResponse]:
        """`POST /api/v1/image-urls`: 1 to 50 signed URLs, one debit of 1 credit per URL.

        Always sent with an `Idempotency-Key` (a new one unless given), reused by every retry,
        so a retry replays the first answer instead of paying twice."""
        body = {
            "images": [_drop_none(item) for item in images],
            **_drop_none(
                {
                    "ttl_seconds": ttl_seconds,
                    "max_uses": max_uses,
                    "renew": renew,
                    "renew_days": renew_days,
                }
            ),
        }
        key = idempotency_key or f"carimg-{uuid.uuid4()}"
        return Operation(
            "POST",
            "/api/v1/image-urls",
            _urls,
            json=body,
            headers={"Idempotency-Key": key},
            ok=(201,),
            resendable=True,
        )

    @endpoint
    def delivery(
        self, token_or_url: str, *, if_none_match: str | None = None
    ) -> Operation[m.Image]:
        """`GET /api/v1/delivery/{token}` (free, no key sent). Also loads any other keyless
        image URL the service made: a partner-signed `/images/car.png` URL."""
        headers = _drop_none({"If-None-Match": if_none_match})
        return Operation(
            "GET",
            _delivery_path(token_or_url),
            _image,
            headers=headers,
            ok=(200, 304),
            authenticated=False,
            resendable=True,
        )

    @endpoint
    def check_delivery(self, token_or_url: str) -> Operation[m.DeliveryCheck]:
        """`HEAD /api/v1/delivery/{token}`: valid or not, without rendering or using it up."""
        return Operation(
            "HEAD",
            _delivery_path(token_or_url),
            lambda r: m.DeliveryCheck(
                content_type=r.headers.get("content-type", ""),
                request_id=r.headers.get("x-request-id"),
            ),
            authenticated=False,
            resendable=True,
        )

    @endpoint
    def embed_image(
        self,
        make: str,
        model: str,
        year: int,
        *,
        view: str | None = None,
        color: str | None = None,
        finish: str | None = None,
        width: int | None = None,
        height: int | None = None,
        size: str | None = None,
        format: str | None = None,
        mode: str | None = None,
    ) -> Operation[m.Image]:
        """`GET /images/car.png`, the legacy embed endpoint: with the key (1 credit), or
        `mode="cached"` (free, only variants already rendered; no key sent)."""
        query = _image_query(
            {
                "brand": make, "model": model, "year": year, "view": view, "color": color,
                "finish": finish, "width": width, "height": height, "size": size,
                "format": format, "mode": mode,
            }
        )  # fmt: skip
        return Operation("GET", "/images/car.png", _image, params=query, authenticated=mode is None)

    # --- helpers that need a key ----------------------------------------------------------------

    @endpoint
    def resolve(
        self,
        query: str,
        *,
        year: int | None = None,
        make: str | None = None,
        model: str | None = None,
    ) -> Operation[m.Resolution]:
        """`POST /api/v1/images/resolve`: free text to a ready image request (free)."""
        body = _drop_none({"query": query, "year": year, "make": make, "model": model})
        return Operation(
            "POST", "/api/v1/images/resolve", _model(m.Resolution), json=body, resendable=True
        )

    @endpoint
    def feedback(
        self,
        *,
        request_id: str | None = None,
        make: str | None = None,
        model: str | None = None,
        year: int | None = None,
        view: str | None = None,
        color: str | None = None,
        finish: str | None = None,
        rating: int | None = None,
        verdict: str | None = None,
        reason: str | None = None,
    ) -> Operation[m.FeedbackResult]:
        """`POST /api/v1/feedback`: rate a delivered render (free)."""
        body = _drop_none(
            {
                "request_id": request_id, "make": make, "model": model, "year": year,
                "view": view, "color": color, "finish": finish, "rating": rating,
                "verdict": verdict, "reason": reason,
            }
        )  # fmt: skip
        return Operation("POST", "/api/v1/feedback", _model(m.FeedbackResult), json=body, ok=(201,))

    @endpoint
    def account(self) -> Operation[m.Account]:
        """`GET /api/v1/account`: balance, pricing, 30 days of usage, this key, links."""
        return Operation("GET", "/api/v1/account", _model(m.Account), resendable=True)

    @endpoint
    def checkout(
        self, credits: int | None = None, *, plan: str | None = None
    ) -> Operation[m.Checkout]:
        """`POST /api/v1/billing/checkout`: a hosted checkout URL for a pack (or a plan).
        Charges nothing; a human opens it and pays."""
        body = _drop_none({"credits": credits, "plan": plan})
        return Operation(
            "POST", "/api/v1/billing/checkout", _model(m.Checkout), json=body, ok=(201,)
        )

    @endpoint
    def billing_portal(self) -> Operation[m.Portal]:
        """`POST /api/v1/billing/portal`: the hosted customer portal (after a purchase)."""
        return Operation("POST", "/api/v1/billing/portal", _model(m.Portal), ok=(201,))

    @endpoint
    def events(self, events: Sequence[Mapping[str, Any]]) -> Operation[m.EventsAccepted]:
        """`POST /api/v1/events`: 1 to 20 funnel events (public, never billed)."""
        return Operation(
            "POST",
            "/api/v1/events",
            _model(m.EventsAccepted),
            json={"events": [dict(event) for event in events]},
            ok=(202,),
            authenticated=False,
        )

    # --- device login (RFC 8628) ----------------------------------------------------------------

    @endpoint
    def device_code(self, client_name: str | None = None) -> Operation[m.DeviceCode]:
        """`POST /api/auth/device/code`: a device code to poll with, a user code to approve."""
        return Operation(
            "POST",
            "/api/auth/device/code",
            _model(m.DeviceCode),
            json=_drop_none({"client_name": client_name}),
            ok=(201,),
            authenticated=False,
            oauth_errors=True,
        )

    @endpoint
    def device_token(self, device_code: str) -> Operation[m.DeviceToken]:
        """`POST /api/auth/device/token`: the key once approved; until then `DeviceFlowError`
        with `error` authorization_pending, slow_down (wait `retry_after`), expired_token…"""
        return Operation(
            "POST",
            "/api/auth/device/token",
            _model(m.DeviceToken),
            json={"device_code": device_code},
            authenticated=False,
            oauth_errors=True,
            retry_status=False,  # slow_down is the poller's to honour
        )


def _delivery_path(token_or_url: str) -> str:
    return token_or_url if "://" in token_or_url else f"/api/v1/delivery/{token_or_url}"


class Client(_SyncRunner, _Endpoints):
    """The blocking client. Use it as a context manager, or call `close()`."""

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncClient(_AsyncRunner, _Endpoints):
    """The asyncio client: the same methods as `Client`, as coroutines."""

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
