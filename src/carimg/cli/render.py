"""`carimg render` and `carimg contact-sheet`: studio renders from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

# A fixed list that covers every body style, with explicit body styles so the sheet does not
# depend on the catalog.
CONTACT_SHEET: tuple[tuple[str, str, int, str, str], ...] = (
    ("toyota", "camry", 2020, "sedan", "red"),
    ("volkswagen", "golf", 2019, "hatchback", "blue"),
    ("volvo", "v60", 2021, "wagon", "silver"),
    ("bmw", "m4", 2022, "coupe", "white"),
    ("mazda", "mx-5", 1995, "convertible", "burgundy"),
    ("ford", "mustang", 2023, "fastback", "yellow"),
    ("jeep", "grand-cherokee", 2021, "suv", "black"),
    ("honda", "cr-v", 2020, "crossover", "green"),
    ("ford", "f-150", 2021, "pickup", "gray"),
    ("mercedes-benz", "sprinter", 2019, "van", "white"),
    ("honda", "odyssey", 2018, "minivan", "gold"),
    ("suzuki", "wagon-r", 2017, "kei", "beige"),
    ("volvo", "7900", 2020, "bus", "orange"),
    ("isuzu", "n-series", 2020, "truck", "tan"),
    ("yamaha", "mt-07", 2022, "motorcycle", "blue"),
    ("vespa", "primavera", 2021, "scooter", "purple"),
    ("bajaj", "re", 2019, "auto-rickshaw", "green"),
    ("generic", "concept", 2024, "other", "brown"),
)


def _catalog_body_style(make: str, model: str, year: int) -> tuple[str, str, str] | None:
    """(make slug, model slug, body style) from the catalog, or None if it is not available."""
    try:
        from carimg.catalog import load_catalog  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return None
    cat: Any = load_catalog()
    v = cat.find_vehicle(make, model, year)
    if v is None:
        return None
    return str(v.make.slug), str(v.model.slug), str(v.model.body_style)


def _generated(
    make: str, model: str, year: int, view: str, color: str, finish: str | None, variation: int
) -> Any:
    """The source render of the `openai` backend (settings from `CARIMG_*`), as an RGBA array."""
    import asyncio
    import io

    import numpy as np
    from PIL import Image

    from carimg.backends.generative import GenerationFailed, generative_backend
    from carimg.catalog import load_catalog
    from carimg.config import Settings
    from carimg.domain.errors import DomainError
    from carimg.domain.imagerequest import ImageSpec, parse_color, parse_view
    from carimg.domain.images import SourceRequest
    from carimg.services import build_render_cache

    vehicle = load_catalog().find_vehicle(make, model, year)
    if vehicle is None:
        raise typer.BadParameter(f"{make} {model} {year} is not in the catalog")
    try:
        view, color = parse_view(view), parse_color(color)
    except DomainError as error:
        raise typer.BadParameter(error.detail) from error
    settings = Settings()
    cache = build_render_cache(settings)
    backend = generative_backend(settings, cache)
    spec = ImageSpec(
        vehicle, view, color, None, None, "contain", "transparent", False, 0, "png", finish=finish
    )
    request = SourceRequest(spec.source_key(backend.version), vehicle, view, spec.paint, variation)

    async def generate() -> bytes:
        try:
            cached = await cache.get_source(request.key)
            return cached if cached is not None else await backend.render(request)
        finally:
            await backend.close()
            cache.close()

    try:
        png = asyncio.run(generate())
    except (DomainError, GenerationFailed) as error:  # our words, never the provider's
        detail = error.detail if isinstance(error, DomainError) else str(error)
        typer.echo(f"the image model gave no image: {detail}", err=True)
        raise typer.Exit(1) from None
    with Image.open(io.BytesIO(png)) as opened:
        return np.asarray(opened.convert("RGBA"))


def register(app: typer.Typer) -> None:
    """Add the render commands to the CLI."""

    @app.command("render")
    def render_cmd(
        make: str = typer.Option(..., help="Make slug, e.g. toyota."),
        model: str = typer.Option(..., help="Model slug, e.g. camry."),
        year: int = typer.Option(..., help="Model year."),
        view: str = typer.Option(
            "front-3-4", help="front, front-3-4, side, rear-3-4, rear or side-right."
        ),
        color: str = typer.Option("white", "--color", "--paint", help="Preset name or #RRGGBB."),
        finish: str | None = typer.Option(
            None, help="gloss, metallic, satin or matte (default: the preset's own)."
        ),
        out: Path = typer.Option(Path("render.png"), help="Output file (.png, .webp or .jpg)."),
        body_style: str | None = typer.Option(None, help="Override the catalog's body style."),
        width: int | None = typer.Option(None, help="Fit inside this width (never enlarges)."),
        height: int | None = typer.Option(None, help="Fit inside this height."),
        variation: int = typer.Option(0, help="Alternative seed for the same vehicle."),
        glb: bool = typer.Option(
            False, "--glb", help="Export the 3D model as glTF binary (.glb) instead of an image."
        ),
        backend: str = typer.Option(
            "procedural",
            "--backend",
            help="procedural, or openai: the image model of the CARIMG_OPENAI_* settings (a "
            "paid call; kept in the render cache the server uses).",
        ),
    ) -> None:
        """Render one vehicle to a file (or export its 3D model with --glb)."""
        from carimg.render import (
            Appearance,
            OutputSpec,
            derive,
            encode_source_png,
            export_glb,
            paint_key,
            render_source,
        )

        paint = paint_key(color, finish)

        found = _catalog_body_style(make, model, year)
        if body_style is None:
            if found is None:
                raise typer.BadParameter(
                    f"{make} {model} {year} is not in the catalog; pass --body-style",
                    param_hint="--body-style",
                )
            make, model, body_style = found
        if glb:
            if out.suffix.lower() != ".glb":
                out = out.with_suffix(".glb")
            try:
                model_bytes = export_glb(
                    Appearance(make, model, year, body_style, variation), paint
                )
            except ValueError as exc:
                raise typer.BadParameter(str(exc)) from exc
            out.write_bytes(model_bytes)
            typer.echo(f"{out} ({len(model_bytes)} bytes, {body_style}, glTF binary)")
            return
        if backend not in ("procedural", "openai"):
            raise typer.BadParameter("procedural or openai", param_hint="--backend")
        try:
            if backend == "openai":
                rgba = _generated(make, model, year, view, color, finish, variation)
            else:
                rgba = render_source(
                    Appearance(make, model, year, body_style, variation), view, paint
                )
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
        suffix = out.suffix.lower().lstrip(".")
        fmt = {"jpeg": "jpg"}.get(suffix, suffix)
        if fmt == "png" and width is None and height is None:
            data = encode_source_png(rgba)
        else:
            if fmt not in ("png", "webp", "jpg"):
                raise typer.BadParameter("--out must end in .png, .webp or .jpg")
            data = derive(rgba, OutputSpec(width=width, height=height, format=fmt)).data  # type: ignore[arg-type]
        out.write_bytes(data)
        typer.echo(f"{out} ({len(data)} bytes, {body_style})")

    @app.command("contact-sheet")
    def contact_sheet_cmd(
        out: Path = typer.Option(Path("contact-sheet.png"), help="Output PNG."),
        cell: int = typer.Option(256, help="Cell size in pixels."),
    ) -> None:
        """A grid of every body style (rows) by the six views (columns), mixed paints."""
        import numpy as np
        from PIL import Image

        from carimg.render import VIEW_YAWS, Appearance, OutputSpec, derive, render_source

        views = list(VIEW_YAWS)
        sheet = Image.new("RGB", (cell * len(views), cell * len(CONTACT_SHEET)), (255, 255, 255))
        with typer.progressbar(length=len(CONTACT_SHEET) * len(views), label="rendering") as bar:
            for row, (mk, md, yr, style, paint) in enumerate(CONTACT_SHEET):
                for col, view in enumerate(views):
                    rgba = render_source(Appearance(mk, md, yr, style), view, paint)
                    spec = OutputSpec(width=cell, height=cell, fit="contain", background="#f4f4f4")
                    img = derive(rgba, spec)
                    import io

                    tile = Image.open(io.BytesIO(img.data)).convert("RGB")
                    sheet.paste(tile, (col * cell, row * cell))
                    bar.update(1)
        del np
        sheet.save(out, "PNG", optimize=True)
        typer.echo(f"{out} ({out.stat().st_size} bytes)")
