"""`carimg worker`: new renders for a fleet of server processes (CARIMG_RENDER_QUEUE=redis)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the worker command to the CLI."""

    @app.command()
    def worker(
        concurrency: int = typer.Option(
            1, min=1, help="Renders at once (one per core; or run one worker per core)."
        ),
        fail_fraction: float = typer.Option(
            0.0, min=0.0, max=1.0, hidden=True, help="Fault injection: fail this share of renders."
        ),
        render_delay: float = typer.Option(
            0.0, min=0.0, hidden=True, help="Fault injection: sleep this long before each render."
        ),
    ) -> None:
        """Take render jobs from Redis, render them into the shared render cache.

        Reads the same CARIMG_* settings as `carimg serve` (CARIMG_REDIS_URL, the render cache
        directory or S3 bucket, CARIMG_RENDER_QUEUE_NAME, CARIMG_RENDER_JOB_TIMEOUT). Stops on
        SIGTERM/SIGINT after the renders in flight.
        """
        import asyncio
        import logging
        import logging.config

        from carimg.config import Settings
        from carimg.logs import log_config
        from carimg.queue import Faults, run_worker
        from carimg.services import build_render_cache

        settings = Settings()
        if not settings.redis_url:
            raise typer.BadParameter("set CARIMG_REDIS_URL: the worker takes its jobs from Redis")
        logging.config.dictConfig(log_config(settings.log_format, settings.log_level))
        faults = Faults(fail_fraction=fail_fraction, delay_seconds=render_delay)
        if faults != Faults():
            logging.getLogger("carimg.worker").warning("fault injection on: %s", faults)
        asyncio.run(
            run_worker(
                settings.redis_url,
                settings.render_queue_name,
                build_render_cache(settings),
                concurrency=concurrency,
                job_timeout=settings.render_job_timeout,
                faults=faults,
            )
        )
