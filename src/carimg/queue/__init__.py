"""The render queue: cold renders in `carimg worker` processes, fed through Redis (arq).

`CARIMG_RENDER_QUEUE=redis` sends each new source to the queue instead of this process's render
pool; every server process that needs one source joins one job (its id is the source key) and
reads the result from the shared render cache.
"""

from carimg.queue._client import QueueRenders, RenderJobFailed, RenderQueueUnavailable
from carimg.queue._worker import Faults, build_worker, close_worker, run_worker

__all__ = [
    "Faults",
    "QueueRenders",
    "RenderJobFailed",
    "RenderQueueUnavailable",
    "build_worker",
    "close_worker",
    "run_worker",
]
