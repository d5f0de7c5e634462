"""The `openai` render backend: any OpenAI-compatible image model through the official SDK.

See `_backend` for how references, edits, single flight and failures work, `_prompt` for the
versioned prompts and `_post` for the post-processing to the renderer's contract.
"""

from __future__ import annotations

import openai

from carimg.backends.generative._backend import (
    GENERATIONS,
    POST_VERSION,
    CircuitOpen,
    GenerationFailed,
    GenerativeBackend,
    RateLimited,
)
from carimg.backends.generative._limits import Breaker, FleetBusy, FleetLimits
from carimg.backends.generative._post import MATTE_TOLERANCE, MalformedImage, matte, to_source
from carimg.backends.generative._prompt import (
    PROMPT_VERSION,
    REFERENCE_VIEW,
    Subject,
    reference_prompt,
    view_prompt,
)
from carimg.config import Settings
from carimg.store.render_cache import RenderCache


def generative_backend(settings: Settings, cache: RenderCache) -> GenerativeBackend:
    """The backend `CARIMG_RENDER_BACKEND=openai` selects, from the `CARIMG_OPENAI_*` settings."""
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if key is None and settings.openai_base_url is None:
        raise ValueError(
            "CARIMG_RENDER_BACKEND=openai needs CARIMG_OPENAI_API_KEY (or CARIMG_OPENAI_BASE_URL "
            "of a server that needs no key)"
        )
    client = openai.AsyncOpenAI(
        api_key=key or "unused",  # a self-hosted server without keys ignores it
        base_url=settings.openai_base_url,
        timeout=settings.openai_timeout,
        max_retries=0,  # a failure is answered at once (refunded); the breaker spaces retries
    )
    fleet = (
        FleetLimits(
            settings.redis_url,
            "carimg:generative:",
            settings.openai_fleet_concurrency,
            lease_seconds=settings.openai_timeout + 10,
        )
        if settings.redis_url
        else None
    )
    return GenerativeBackend(
        client,
        cache,
        model=settings.openai_model,
        quality=settings.openai_quality,
        timeout=settings.openai_timeout,
        concurrency=settings.openai_concurrency,
        breaker=Breaker(settings.openai_breaker_failures, settings.openai_breaker_seconds),
        fleet=fleet,
    )


__all__ = [
    "GENERATIONS",
    "MATTE_TOLERANCE",
    "POST_VERSION",
    "PROMPT_VERSION",
    "REFERENCE_VIEW",
    "Breaker",
    "CircuitOpen",
    "FleetBusy",
    "FleetLimits",
    "GenerationFailed",
    "GenerativeBackend",
    "MalformedImage",
    "RateLimited",
    "Subject",
    "generative_backend",
    "matte",
    "reference_prompt",
    "to_source",
    "view_prompt",
]
