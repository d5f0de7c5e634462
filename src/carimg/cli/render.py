"""`carimg render` and `carimg contact-sheet` (filled in by the renderer issue)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the render commands to the CLI."""
