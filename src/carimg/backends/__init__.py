"""Render backends: who makes a new source render for (vehicle, view, paint, variation).

`CARIMG_RENDER_BACKEND` picks one per deployment: `procedural` (the default: `carimg.render` in
the render pool or the render queue's workers) or `openai` (any OpenAI-compatible image model,
`carimg.backends.generative`). The services ask `domain.images.Renderer`, which asks the
backend only for sources the render cache does not hold; billing, budgets, single flight and
refunds are the same whichever backend answers.
"""

from __future__ import annotations

from carimg.backends.procedural import ProceduralBackend
from carimg.config import Settings
from carimg.domain.images import RenderBackend
from carimg.queue import QueueRenders
from carimg.render import RenderPool
from carimg.render._version import RENDERER_VERSION
from carimg.store.render_cache import RenderCache


def build_backend(
    settings: Settings, pool: RenderPool, cache: RenderCache, queue: QueueRenders | None
) -> RenderBackend:
    """The deployment's render backend (`CARIMG_RENDER_BACKEND`)."""
    if settings.render_backend == "openai":
        from carimg.backends.generative import generative_backend  # imports the openai SDK

        return generative_backend(settings, cache)
    return ProceduralBackend(pool, cache, RENDERER_VERSION, queue)


__all__ = ["ProceduralBackend", "build_backend"]
