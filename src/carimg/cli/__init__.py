"""The `carimg` command: serve the API, render images, administer a deployment."""

from __future__ import annotations

from carimg.cli import admin, client_cmds, render, serve, worker
from carimg.cli._app import app

serve.register(app)
admin.register(app)
render.register(app)
worker.register(app)
client_cmds.register(app)


def main() -> None:
    """Console entry point."""
    app()


__all__ = ["app", "main"]
