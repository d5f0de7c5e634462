"""Render backends: who makes a new source render for (vehicle, view, paint, variation).

`CARIMG_RENDER_BACKEND` picks one per deployment: `procedural` (the default: `carimg.render` in
the render pool or the render queue's workers) or `openai` (any OpenAI-compatible image model,
`carimg.backends.generative`). The services ask `domain.images.Renderer`, which asks the
backend only for sources the render cache does not hold; billing, budgets, single flight and
refunds are the same whichever backend answers.
"""

from carimg.backends.procedural import ProceduralBackend

__all__ = ["ProceduralBackend"]
