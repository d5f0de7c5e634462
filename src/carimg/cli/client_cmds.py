"""The client commands: whoami, get, url, resolve, search, options, account, buy, describe.

Each talks to a deployment over HTTP through the SDK (`carimg.client`); `login`/`logout`,
`doctor`, `bulk` and `mcp` live in their own modules. `register(app)` adds them all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from carimg.cli._output import (
    ApiKeyOption,
    ApiUrlOption,
    ExitCode,
    JsonOption,
    Target,
    console,
    fail,
    print_json,
    reporting,
    resolve_vehicle,
)

VehicleWords = Annotated[
    list[str],
    typer.Argument(help="MAKE MODEL YEAR (slugs or names), or a description to resolve first."),
]
ViewOption = Annotated[str | None, typer.Option(help="front, front-3-4, side, side-right, …")]
ColorOption = Annotated[str | None, typer.Option(help="One of the 15 paints, or a hex.")]
FinishOption = Annotated[
    str | None, typer.Option(help="gloss, metallic, satin or matte (default: the paint's own).")
]
SizeOption = Annotated[str | None, typer.Option(help="thumb, small, medium or large.")]
WidthOption = Annotated[int | None, typer.Option("--width", "-w", help="Width, px (≤ 1024).")]
HeightOption = Annotated[int | None, typer.Option("--height", help="Height, px (≤ 1024).")]
FormatOption = Annotated[str | None, typer.Option("--format", "-f", help="png, webp or jpg.")]


def _framing(**values: Any) -> dict[str, Any]:
    return {name: value for name, value in values.items() if value is not None}


def whoami(
    api_key: ApiKeyOption = None, api_url: ApiUrlOption = None, as_json: JsonOption = False
) -> None:
    """Who the key belongs to: account, key, scopes, credits."""
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client()
        account = client.account().data
    key = account.key or {}
    result = {
        "base_url": client.base_url,
        "key_source": target.key_source(),
        "email": account.email,
        "key": key,
        "credits": account.credits,
        "plan": account.plan,
    }
    if as_json:
        print_json(result)
        return
    out = console()
    out.print(f"[bold]{account.email or 'account'}[/] at {client.base_url}")
    name = key.get("name") or "unnamed"
    out.print(f"key {key.get('prefix', '?')}… ({name}), from {result['key_source']}")
    out.print(f"scopes: {', '.join(key.get('scopes', []))}")
    out.print(f"credits: [bold]{account.credits}[/]")


def get(
    vehicle: VehicleWords,
    view: ViewOption = None,
    color: ColorOption = None,
    finish: FinishOption = None,
    size: SizeOption = None,
    width: WidthOption = None,
    height: HeightOption = None,
    format: FormatOption = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="File, or directory (ending in /); default: .",
            show_default=False,
        ),
    ] = None,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Download one image (1 credit); prints its path, size and the credits left."""
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client()
        params = resolve_vehicle(client, vehicle, as_json)
        params |= _framing(
            view=view, color=color, finish=finish, size=size, width=width, height=height,
            format=format,
        )  # fmt: skip
        image = client.image(**params)
    name = "-".join(str(params[k]) for k in ("make", "model", "year") if k in params)
    name += "".join(f"-{params[k]}" for k in ("view", "color", "finish") if params.get(k))
    path = Path(output or ".")
    if path.is_dir() or (output or "").endswith(("/", os.sep)):
        path = path / f"{name}.{image.extension}"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(image.data)
    result = {
        "path": str(path),
        "bytes": len(image.data),
        "width": image.width,
        "height": image.height,
        "content_type": image.content_type,
        "etag": image.etag,
        "source": image.source,
        "credits_charged": image.credits_charged,
        "credits_remaining": image.credits_remaining,
        "request_id": image.request_id,
    }
    if as_json:
        print_json(result)
        return
    console().print(
        f"[green]saved[/] {path}  {len(image.data):,} bytes, {image.width}×{image.height}  "
        f"[dim]credits left: {image.credits_remaining}[/]"
    )


def url(
    vehicle: Annotated[
        list[str] | None, typer.Argument(help="MAKE MODEL YEAR, or a description.")
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", help="CSV or JSONL of vehicles: one URL each (batches of 50)."),
    ] = None,
    view: ViewOption = None,
    color: ColorOption = None,
    finish: FinishOption = None,
    size: SizeOption = None,
    width: WidthOption = None,
    height: HeightOption = None,
    format: FormatOption = None,
    ttl: Annotated[int | None, typer.Option(help="Lifetime in seconds (60–604800).")] = None,
    max_uses: Annotated[int | None, typer.Option(help="Loads per URL; 0 is unlimited.")] = None,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Mint signed delivery URLs (1 credit each, charged now; loading them is free)."""
    from carimg.cli.bulk import read_rows

    framing = _framing(
        view=view, color=color, finish=finish, size=size, width=width, height=height,
        format=format,
    )  # fmt: skip
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client()
        if file is not None:
            items = [row.request(client) | framing for row in read_rows(file)]
        elif vehicle:
            items = [resolve_vehicle(client, vehicle, as_json) | framing]
        else:
            fail("Name a vehicle or pass --file.", ExitCode.USAGE, as_json=as_json)
        minted = []
        for start in range(0, len(items), 50):
            minted.append(
                client.image_urls(items[start : start + 50], ttl_seconds=ttl, max_uses=max_uses)
            )
    urls = [record for answer in minted for record in answer.data]
    charged = sum(answer.billing.credits_charged for answer in minted)
    remaining = minted[-1].billing.credits_remaining if minted else None
    if as_json:
        print_json(
            {
                "urls": [record.model_dump() for record in urls],
                "credits_charged": charged,
                "credits_remaining": remaining,
            }
        )
        return
    out = console()
    for record in urls:
        out.print(record.url, soft_wrap=True)
    out.print(f"[dim]{len(urls)} URL(s), {charged} credit(s) charged, {remaining} left[/]")


def resolve(
    text: Annotated[list[str], typer.Argument(help="A description, e.g. red 2020 camry side")],
    year: Annotated[int | None, typer.Option(help="Overrides a year in the text.")] = None,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Resolve a description to image parameters (free)."""
    with reporting(as_json), Target(api_key, api_url) as target:
        resolution = target.client().resolve(" ".join(text), year=year)
    data = resolution.data
    if as_json:
        print_json(resolution.model_dump())
        return
    from rich.table import Table

    out = console()
    params = data.params.model_dump(exclude_none=True)
    out.print(f"[bold]{data.display.get('make_name')} {data.display.get('model_name')}[/] "
              f"({data.confidence} confidence)")  # fmt: skip
    out.print("  ".join(f"{k}={v}" for k, v in params.items()))
    out.print(f"image path: {data.image_path}", soft_wrap=True)
    if data.confidence != "high" and data.candidates:
        table = Table("make", "model", "years", "match")
        for hit in data.candidates:
            years = f"{hit.years[0]}–{hit.years[-1]}" if hit.years else ""
            table.add_row(hit.make_name, hit.model_name or "", years, hit.match_kind or "")
        out.print(table)


def search(
    query: Annotated[list[str], typer.Argument(help="Make or model names.")],
    year: Annotated[int | None, typer.Option(help="Only this model year.")] = None,
    limit: Annotated[int, typer.Option(help="1 to 25 results.")] = 10,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the catalog (free, no key needed)."""
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client(require_key=False)
        found = client.search_vehicles(" ".join(query), year=year, limit=limit)
    if as_json:
        print_json(found.model_dump())
        return
    from rich.table import Table

    table = Table("kind", "make", "model", "years", "match", title=f"'{found.query}'")
    for hit in found.results:
        years = f"{hit.years[0]}–{hit.years[-1]}" if hit.years else ""
        model = f"{hit.model_name} ({hit.model_slug})" if hit.model_slug else ""
        table.add_row(hit.kind, f"{hit.make_name} ({hit.make_slug})", model, years, hit.match_kind)
    console().print(table)


def options(api_url: ApiUrlOption = None, as_json: JsonOption = False) -> None:
    """Views, colors, finishes, sizes, formats, prices and catalog coverage (free, no key)."""
    with reporting(as_json), Target(None, api_url) as target:
        answer = target.client(require_key=False).options()
    if as_json:
        print_json(answer.model_dump())
        return
    from rich.table import Table

    data, out = answer.data, console()
    views = Table("view", "yaw", "aliases", title="views")
    for view in answer.views:
        views.add_row(
            view["id"], str(view.get("yaw_degrees", "")), ", ".join(view.get("aliases", []))
        )
    out.print(views)
    out.print("colors: " + ", ".join(f"[{c['hex']}]■[/] {c['name']}" for c in answer.colors))
    if answer.finishes:
        out.print("finishes: " + ", ".join(f["id"] for f in answer.finishes))
    presets = data.get("sizes", {}).get("presets", {})
    out.print("sizes: " + ", ".join(f"{name} {px}px" for name, px in presets.items()))
    out.print("formats: " + ", ".join(f["id"] for f in data.get("formats", [])))
    catalog = data.get("catalog", {})
    years = catalog.get("years", {})
    out.print(
        f"catalog: {catalog.get('makes')} makes, {catalog.get('models')} models, "
        f"{years.get('from')}–{years.get('to')}"
    )
    pricing = data.get("pricing", {})
    out.print(f"price: {pricing.get('credits_per_image')} credit per image; "
              f"{pricing.get('free_credits')} free credits")  # fmt: skip


def account(
    api_key: ApiKeyOption = None, api_url: ApiUrlOption = None, as_json: JsonOption = False
) -> None:
    """Balance, 30 days of usage, this key and the packs you can buy (free)."""
    with reporting(as_json), Target(api_key, api_url) as target:
        answer = target.client().account()
    if as_json:
        print_json(answer.model_dump())
        return
    from rich.table import Table

    data, out = answer.data, console()
    out.print(f"credits: [bold]{data.credits}[/]  (≈ ${data.credits_value_usd})")
    usage = data.usage_30d or {}
    out.print(
        f"last 30 days: {usage.get('images', 0)} images, {usage.get('urls', 0)} URLs, "
        f"{usage.get('credits', 0)} credits"
    )
    packs = Table("pack", "credits", "price", title="packs (`carimg buy CREDITS`)")
    for pack in data.pricing.get("packs", []):
        packs.add_row(pack.get("id", ""), str(pack["credits"]), f"${pack['cents'] / 100:.2f}")
    out.print(packs)


def buy(
    credits: Annotated[
        int | None, typer.Argument(help="A pack size (see `carimg account`).")
    ] = None,
    plan: Annotated[str | None, typer.Option(help="A plan id instead (pricing variant B).")] = None,
    browser: Annotated[bool, typer.Option(help="Open the checkout in a browser.")] = True,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Open a hosted checkout for a credit pack (a person pays there; nothing is charged here)."""
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client()
        if credits is None and plan is None:
            packs = [str(p["credits"]) for p in client.pricing().data.get("packs", [])]
            fail(f"Name a pack: {', '.join(packs)} (or --plan).", ExitCode.USAGE, as_json=as_json)
        checkout = client.checkout(credits, plan=plan)
    link = checkout.data.url
    opened = browser and not as_json and _open_browser(link)
    if as_json:
        print_json(checkout.model_dump())
        return
    out = console()
    out.print(f"checkout: {link}", soft_wrap=True)
    out.print("[dim]opened in your browser[/]" if opened else "[dim]open it to pay[/]")


def _open_browser(link: str) -> bool:
    import webbrowser

    try:
        return webbrowser.open(link)
    except webbrowser.Error:
        return False


def describe(
    endpoint: Annotated[
        str | None,
        typer.Argument(help="Operation id, path or 'METHOD /path'; none lists every endpoint."),
    ] = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Explain an endpoint from the service's /openapi.json."""
    from carimg.mcp.describe import describe_endpoint

    with reporting(as_json), Target(None, api_url) as target:
        document = target.client(require_key=False).openapi()
    text = describe_endpoint(document, endpoint)
    if as_json:
        print_json(
            {"endpoint": endpoint, "operations": _matching(document, endpoint), "text": text}
        )
        return
    typer.echo(text)
    if endpoint and text.startswith("No endpoint"):
        raise typer.Exit(ExitCode.NOT_FOUND)


def _matching(document: dict[str, Any], endpoint: str | None) -> list[dict[str, Any]]:
    """The OpenAPI operations an endpoint name selects (all when none)."""
    wanted = (endpoint or "").strip()
    method, _, path = wanted.partition(" ")
    found = []
    for op_path, item in document.get("paths", {}).items():
        for op_method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            chosen = (
                not wanted
                or wanted in (operation.get("operationId"), op_path)
                or (path and method.upper() == op_method.upper() and path.strip() == op_path)
            )
            if chosen:
                found.append({"method": op_method.upper(), "path": op_path, **operation})
    return found


def register(app: typer.Typer) -> None:
    """Add the client commands to the CLI."""
    from carimg.cli import bulk, doctor, login, mcp_stdio

    login.register(app)
    for command in (whoami, get, url, resolve, search, options, account, buy):
        app.command(command.__name__)(command)
    doctor.register(app)
    app.command("describe")(describe)
    mcp_stdio.register(app)
    bulk.register(app)
