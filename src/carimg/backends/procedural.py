"""The procedural backend: sources rendered by this process's render pool, or by `carimg worker`
processes through the render queue (which store them in the shared cache themselves)."""

from __future__ import annotations

import logging

from carimg.domain.errors import Unavailable
from carimg.domain.images import SourceRequest
from carimg.queue import QueueRenders, RenderQueueUnavailable
from carimg.render import RenderPool, RenderPoolRestarted
from carimg.store.render_cache import RenderCache

logger = logging.getLogger("carimg.images")


class ProceduralBackend:
    """The default backend: offline, free, deterministic."""

    kind = "procedural"

    def __init__(
        self,
        pool: RenderPool,
        cache: RenderCache,
        version: str,
        queue: QueueRenders | None = None,
    ) -> None:
        self.pool = pool
        self.queue = queue
        self.version = version
        self._cache = cache

    def admit(self) -> None:
        """The pool and the queue take every render (they answer 503 themselves when stuck)."""

    async def close(self) -> None:
        """Nothing of its own: the services close the pool and the queue."""

    async def render(self, request: SourceRequest) -> bytes:
        appearance = request.appearance
        if self.queue is not None:  # a worker renders it into the shared cache
            try:
                return await self.queue.render(request.key, appearance, request.view, request.paint)
            except RenderQueueUnavailable as error:
                logger.warning("render queue: %s", error)
                raise Unavailable(
                    "No render worker finished this image in time; nothing was charged for this "
                    "attempt. Retry.",
                    headers={"Retry-After": "5"},
                ) from error
        try:
            png = await self.pool.render(appearance, request.view, request.paint)
        except RenderPoolRestarted as restarted:
            raise Unavailable(
                "The renderer restarted; nothing was charged for this attempt. Retry.",
                headers={"Retry-After": "2"},
            ) from restarted
        await self._cache.put_source(request.key, png)
        return png
