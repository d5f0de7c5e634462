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
        """Serve the API (embedded defaults: ./var, SQLite, no external service)."""
        import uvicorn

        from carimg.config import Settings
        from carimg.logs import uvicorn_log_config

        settings = Settings()
        uvicorn.run(
            "carimg.app:create_app_from_env",
            factory=True,
            host=host,
            port=port,
            workers=workers,
            log_level=settings.log_level,
            log_config=uvicorn_log_config(),
            proxy_headers=False,
        )
