"""`carimg serve`: run the ASGI app under uvicorn."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the serve command to the CLI."""

    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to bind."),
        port: int = typer.Option(8000, help="TCP port."),
        workers: int = typer.Option(1, help="Server processes."),
    ) -> None:
        """Serve the API (embedded defaults: ./var, SQLite, no external service).

        SIGTERM or SIGINT stop accepting connections, let requests in flight finish (at most
        `CARIMG_SHUTDOWN_TIMEOUT` seconds), close the services and exit 0.
        """
        import shutil
        import signal

        import uvicorn

        from carimg.config import Settings
        from carimg.logs import uvicorn_log_config

        settings = Settings()
        own_metrics_dir = _share_metrics(workers)
        # uvicorn re-raises the stop signal after its graceful shutdown; what it then finds
        # installed is this handler, so a requested stop is a clean exit.
        signal.signal(signal.SIGTERM, _exit_cleanly)
        try:
            uvicorn.run(
                "carimg.app:create_app_from_env",
                factory=True,
                host=host,
                port=port,
                workers=workers,
                log_level=settings.log_level,
                log_config=uvicorn_log_config(settings.log_format, settings.log_level),
                access_log=False,  # carimg.access logs each request with its id and route
                proxy_headers=False,
                timeout_graceful_shutdown=settings.shutdown_timeout,
            )
        finally:
            if own_metrics_dir is not None:
                shutil.rmtree(own_metrics_dir, ignore_errors=True)


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _share_metrics(workers: int) -> str | None:
    """Let several server processes add up their metrics in one directory (prometheus-client's
    multiprocess mode), emptied first. Returns the directory when this command made it."""
    import os
    import tempfile

    variable = "PROMETHEUS_MULTIPROC_DIR"
    directory = os.environ.get(variable)
    made = None
    if not directory:
        if workers <= 1:
            return None
        directory = made = tempfile.mkdtemp(prefix="carimg-metrics-")
        os.environ[variable] = directory  # inherited by the worker processes uvicorn spawns
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):  # an earlier run's files would be added in
        if name.endswith(".db"):
            os.unlink(os.path.join(directory, name))
    return made
