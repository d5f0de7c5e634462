"""The generative backend: sources made by an OpenAI-compatible image model through the official
`openai` SDK.

One car across six views: the first view of a (vehicle, paint, variation) asked for makes its
**reference** (one generation of `REFERENCE_VIEW`, kept in the render cache beside the sources);
that view's source is the reference itself, and every other view is an **edit** of the reference
(the images edit endpoint with the reference as input), so the views show the same car and a new
view costs one model call. Generations and edits are single-flighted in the process and, with
Redis, across the fleet; their number in flight is capped per process and fleet-wide.

Failures: a timeout, 5xx, connection error, malformed answer or refusal is `GenerationFailed`
(the service answers 502 and refunds); a 429 or an open circuit breaker is `Unavailable` (503
with Retry-After; `admit` refuses new renders before anything is charged while it lasts). No
message of the provider is logged or shown (one could echo a part of the key): only its type and
status.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import logging
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, Final, Literal

import openai
from prometheus_client import Counter

from carimg.backends.generative._limits import Breaker, FleetBusy, FleetLimits, RedisError
from carimg.backends.generative._post import MalformedImage, as_png, to_source
from carimg.backends.generative._prompt import (
    PROMPT_VERSION,
    REFERENCE_VIEW,
    Subject,
    reference_prompt,
    view_prompt,
)
from carimg.domain.errors import Unavailable
from carimg.domain.images import SourceRequest
from carimg.store.render_cache import RenderCache

logger = logging.getLogger("carimg.generative")

# Bump with every change of the post-processing's output (the prompt has its own version).
POST_VERSION: Final = 1
_POLL_SECONDS: Final = 0.25
_DEFAULT_RETRY_AFTER: Final = 20.0
_REFUSALS: Final = frozenset({"moderation_blocked", "content_policy_violation", "content_filter"})

Call = Literal["reference", "edit"]
Quality = Literal["low", "medium", "high", "auto"]
GENERATIONS = Counter(
    "carimg_generations_total",
    "Calls to the generative image model, by kind (reference, edit) and outcome",
    ["kind", "outcome"],
)


class GenerationFailed(RuntimeError):
    """The model gave no usable picture (timeout, 5xx, refusal, malformed answer): a 502."""


class CircuitOpen(RuntimeError):
    """Health: the breaker is open after repeated provider failures."""


class RateLimited(RuntimeError):
    """Health: the provider asked us to slow down (429)."""


class GenerativeBackend:
    """Source renders from an OpenAI-compatible images API (see the module's docstring)."""

    kind = "openai"

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        cache: RenderCache,
        *,
        model: str,
        quality: Quality,
        timeout: float,
        concurrency: int,
        breaker: Breaker,
        fleet: FleetLimits | None = None,
    ) -> None:
        self.version = f"openai-{model}-{quality}-{PROMPT_VERSION}-post{POST_VERSION}"
        self.model = model
        self.calls: dict[tuple[Call, str], int] = {}  # (kind, outcome) -> calls, this process
        self._client = client
        self._cache = cache
        self._quality = quality
        self._timeout = timeout
        self._slots = asyncio.Semaphore(concurrency)
        self._in_flight = 0
        self._breaker = breaker
        self._fleet = fleet
        self._flights: dict[str, asyncio.Future[bytes]] = {}

    def admit(self) -> None:
        """`Unavailable` (503, Retry-After) while the breaker is open or the provider's 429
        lasts: nothing is charged."""
        left = self._breaker.retry_after()
        if left is None:
            return
        what = (
            "is rate limiting new images"
            if self._breaker.state == "rate_limited"
            else "is not answering"
        )
        raise Unavailable(
            f"The image model {what}; nothing was charged. Cached images keep serving. "
            f"Retry in {left} s.",
            headers={"Retry-After": str(left)},
        )

    async def render(self, request: SourceRequest) -> bytes:
        deadline = asyncio.get_running_loop().time() + self._timeout
        try:
            return await self._once(request.key, deadline, lambda: self._view(request, deadline))
        except (FleetBusy, RedisError) as error:
            logger.warning("generation slots: %s", type(error).__name__)
            raise Unavailable(
                "Every image-model slot of the deployment is busy; nothing was charged. Retry.",
                headers={"Retry-After": "5"},
            ) from error

    async def probe(self) -> dict[str, Any]:
        """Health: the breaker's state (raises when open), the model, calls in flight."""
        if self._fleet is not None:
            await self._fleet.ping()
        state = self._breaker.state
        if state == "rate_limited":
            raise RateLimited("the provider answered 429")
        if state != "ok":
            raise CircuitOpen("the breaker is open")
        return {"model": self.model, "in_flight": self._in_flight}

    async def close(self) -> None:
        await self._client.close()
        if self._fleet is not None:
            await self._fleet.close()

    async def _view(self, request: SourceRequest, deadline: float) -> bytes:
        """Make one view's source: the reference's post-processing, or an edit of it."""
        subject = Subject(request.vehicle, request.paint, request.variation)
        key = self.reference_key(request)
        reference = await self._once(key, deadline, lambda: self._reference(subject, key, deadline))
        if request.view == REFERENCE_VIEW:
            picture = reference
        else:
            prompt = view_prompt(subject, request.view)
            picture = await self._call("edit", deadline, prompt, reference)
        try:
            png = await asyncio.to_thread(to_source, picture, request.view)
        except MalformedImage as error:
            raise GenerationFailed(f"unusable picture: {error}") from error
        await self._cache.put_source(request.key, png)
        return png

    def reference_key(self, request: SourceRequest) -> str:
        """Where the reference of the request's vehicle, paint and variation is cached."""
        parts = (self.version, "reference", request.vehicle.id, request.paint)
        text = "|".join((*parts, str(request.variation)))
        return "ref-" + hashlib.sha256(text.encode()).hexdigest()[:36] + ".png"

    async def _reference(self, subject: Subject, key: str, deadline: float) -> bytes:
        picture = await self._call("reference", deadline, reference_prompt(subject))
        try:
            png = await asyncio.to_thread(as_png, picture)
        except MalformedImage as error:
            raise GenerationFailed(f"unusable reference: {error}") from error
        await self._cache.put_source(key, png)
        return png

    async def _once(self, key: str, deadline: float, make: Callable[[], Awaitable[bytes]]) -> bytes:
        """The cached bytes under `key`, else `make()`'s, made once however many wait (in this
        process; with Redis, across the fleet)."""
        running = self._flights.get(key)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._flights[key] = future
        try:
            data = await self._fleet_once(key, deadline, make)
            future.set_result(data)
            return data
        except BaseException as error:
            future.set_exception(error)
            future.exception()  # retrieved: waiters re-raise it themselves
            raise
        finally:
            del self._flights[key]

    async def _fleet_once(
        self, key: str, deadline: float, make: Callable[[], Awaitable[bytes]]
    ) -> bytes:
        loop = asyncio.get_running_loop()
        while True:
            cached = await self._cache.get_source(key)
            if cached is not None:
                return cached
            if self._fleet is None:
                return await make()
            token = await self._fleet.lock(key)
            if token is not None:
                try:
                    cached = await self._cache.get_source(key)  # made while we polled
                    return cached if cached is not None else await make()
                finally:
                    await asyncio.shield(self._fleet.unlock(key, token))
            if loop.time() + _POLL_SECONDS > deadline:
                raise GenerationFailed("another server's generation did not finish in time")
            await asyncio.sleep(_POLL_SECONDS)

    async def _call(
        self, kind: Call, deadline: float, prompt: str, image: bytes | None = None
    ) -> bytes:
        """One model call within the deadline, the process's and the fleet's slots."""
        self.admit()
        fleet: AbstractAsyncContextManager[None] = (
            nullcontext() if self._fleet is None else self._fleet.slot(deadline)
        )
        async with self._slots, fleet:
            self.admit()  # the breaker may have opened while this call waited for a slot
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                self._count(kind, "timeout")
                raise GenerationFailed("no time left for the model call")
            self._in_flight += 1
            try:
                answer = await asyncio.wait_for(self._request(prompt, image, left), left)
            except Exception as error:
                raise self._failure(kind, error) from error
            finally:
                self._in_flight -= 1
        try:
            data = answer.data[0].b64_json if answer.data else None
            if not data:
                raise GenerationFailed("the answer holds no image")
            picture = base64.b64decode(data, validate=True)
        except (GenerationFailed, binascii.Error, ValueError) as error:
            self._count(kind, "malformed")
            raise GenerationFailed("the model's answer is malformed") from error
        self._breaker.success()
        self._count(kind, "ok")
        return picture

    async def _request(
        self, prompt: str, image: bytes | None, timeout: float
    ) -> openai.types.ImagesResponse:
        if image is None:
            return await self._client.images.generate(
                model=self.model, prompt=prompt, n=1, size="1024x1024", quality=self._quality,
                background="transparent", output_format="png", timeout=timeout,
            )  # fmt: skip
        return await self._client.images.edit(
            image=("reference.png", image, "image/png"), model=self.model, prompt=prompt, n=1,
            size="1024x1024", quality=self._quality, background="transparent",
            output_format="png", timeout=timeout,
        )  # fmt: skip

    def _failure(self, kind: Call, error: Exception) -> Exception:
        """The service's error for a failed call; counts it and tells the breaker."""
        status = getattr(error, "status_code", None)
        logger.warning(
            "image model %s call failed: %s (status %s)", kind, type(error).__name__, status
        )
        if isinstance(error, openai.RateLimitError):
            self._count(kind, "rate_limited")
            self._breaker.rate_limited(_retry_after(error))
            left = self._breaker.retry_after() or 1
            return Unavailable(
                "The image model is rate limiting new images; the credit was refunded. "
                f"Retry in {left} s.",
                headers={"Retry-After": str(left)},
            )
        if isinstance(error, openai.BadRequestError) and error.code in _REFUSALS:
            self._count(kind, "refused")
            return GenerationFailed("the model refused the prompt")
        if isinstance(error, openai.APIResponseValidationError | ValueError):
            self._count(kind, "malformed")
            return GenerationFailed("the model's answer is malformed")
        if isinstance(error, openai.BadRequestError | openai.UnprocessableEntityError):
            self._count(kind, "rejected")
            return GenerationFailed("the model rejected the request")
        timed_out = isinstance(error, openai.APITimeoutError | TimeoutError)
        self._count(kind, "timeout" if timed_out else "error")
        self._breaker.failure()  # timeouts, 5xx, connection errors, 401/403/404: the provider
        return GenerationFailed("the image model did not answer" if timed_out else "model error")

    def _count(self, kind: Call, outcome: str) -> None:
        self.calls[(kind, outcome)] = self.calls.get((kind, outcome), 0) + 1
        GENERATIONS.labels(kind, outcome).inc()


def _retry_after(error: openai.RateLimitError) -> float:
    """The provider's Retry-After in seconds (20 when it names none; at most 5 minutes)."""
    value = error.response.headers.get("retry-after")
    try:
        seconds = float(value) if value is not None else _DEFAULT_RETRY_AFTER
    except ValueError:
        seconds = _DEFAULT_RETRY_AFTER
    return min(max(seconds, 1.0), 300.0)
