"""The Typer application that every command module registers on."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="carimg",
    help="carimg: studio renders of every catalog vehicle, as a service.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """carimg: studio renders of every catalog vehicle, as a service."""
