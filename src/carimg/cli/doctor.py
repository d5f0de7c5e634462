"""`carimg doctor`: smoke-tests a deployment and this machine's key, endpoint by endpoint.

The checks, in this order (the leading hosted service's CLI runs the same): health, options,
vehicles:years, vehicles:makes, vehicles:models, search, resolve, account, image-urls, image.
Each reports pass, fail or skip with its latency, the credits it spent, the HTTP status, the
request id and a fix. Nothing is spent without `--yes`: image-urls then only proves the key may
mint (an empty batch, refused with 400 before anything is charged) and image is skipped; with
`--yes` image-urls mints one small URL and image fetches one thumbnail (1 credit each). image-urls
also fails, with a fix, when the server mints its URLs on another address than the one reached.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Literal

import typer

from carimg.cli._output import (
    ApiKeyOption,
    ApiUrlOption,
    JsonOption,
    Target,
    console,
    fix_hint,
    print_json,
)

if TYPE_CHECKING:
    from carimg.client import Client

Status = Literal["pass", "fail", "skip"]
MAKE, MODEL, YEAR = "toyota", "camry", 2020  # a vehicle every catalog build has
NO_KEY_FIX = "Run `carimg login`, or set CAR_IMAGE_API_KEY."


@dataclass
class Check:
    name: str
    status: Status
    latency_ms: float | None = None
    credits_spent: int = 0
    http_status: int | None = None
    request_id: str | None = None
    detail: str = ""
    fix: str | None = None


@dataclass
class Outcome:
    """What a probe reports on success."""

    detail: str
    http_status: int = 200
    request_id: str | None = None
    credits_spent: int = 0


class Doctor:
    """Runs the checks in order; later checks use what earlier ones found."""

    def __init__(self, client: Client, spend: bool) -> None:
        self.client = client
        self.spend = spend
        self.year = YEAR
        self.make_id: int | None = None

    def checks(self) -> list[tuple[str, Callable[[], Outcome], bool]]:
        """(name, probe, needs a key) in the documented order."""
        return [
            ("health", self.health, False),
            ("options", self.options, False),
            ("vehicles:years", self.years, False),
            ("vehicles:makes", self.makes, False),
            ("vehicles:models", self.models, False),
            ("search", self.search, False),
            ("resolve", self.resolve, True),
            ("account", self.account, True),
            ("image-urls", self.image_urls, True),
            ("image", self.image, True),
        ]

    def health(self) -> Outcome:
        health = self.client.health()
        if health.status != "ok":
            raise _Failed(f"degraded: {', '.join(health.failing)}", 200)
        return Outcome("ok", request_id=health.request_id)

    def options(self) -> Outcome:
        answer = self.client.options()
        return Outcome(
            f"{len(answer.views)} views, {len(answer.colors)} colors", request_id=answer.request_id
        )

    def years(self) -> Outcome:
        answer = self.client.vehicle_years()
        if self.year not in answer.years and answer.years:
            self.year = answer.years[-1]
        return Outcome(f"{answer.years[0]}–{answer.years[-1]}", request_id=answer.request_id)

    def makes(self) -> Outcome:
        answer = self.client.vehicle_makes(self.year)
        make = next((m for m in answer.makes if m.slug == MAKE), None) or answer.makes[0]
        self.make_id = make.id
        return Outcome(f"{len(answer.makes)} makes in {self.year}", request_id=answer.request_id)

    def models(self) -> Outcome:
        if self.make_id is None:
            raise _Skipped("vehicles:makes found no make")
        answer = self.client.vehicle_models(self.year, self.make_id)
        return Outcome(f"{len(answer.models)} models", request_id=answer.request_id)

    def search(self) -> Outcome:
        answer = self.client.search_vehicles(f"{MAKE} {MODEL}", limit=3)
        if not answer.results:
            raise _Failed("no results for a well-known model", 200)
        return Outcome(f"{len(answer.results)} results", request_id=answer.request_id)

    def resolve(self) -> Outcome:
        answer = self.client.resolve(f"{YEAR} {MAKE} {MODEL}")
        params = answer.data.params
        return Outcome(
            f"{params.make} {params.model} {params.year} ({answer.data.confidence})",
            request_id=answer.request_id,
        )

    def account(self) -> Outcome:
        answer = self.client.account()
        return Outcome(f"{answer.data.credits} credits", request_id=answer.request_id)

    def image_urls(self) -> Outcome:
        from carimg.client import BadRequestError

        if not self.spend:
            try:
                self.client.image_urls([])
            except BadRequestError as error:  # authenticated and allowed; nothing charged
                # the problem's type names the address the server mints its URLs on
                self.same_address(error.type or "", error.status or 400)
                return Outcome("key may mint (dry run; --yes mints one)", 400, error.request_id)
            raise _Failed("an empty batch was accepted", 201)
        minted = self.client.image_urls(
            [{"make": MAKE, "model": MODEL, "year": YEAR, "size": "thumb"}],
            ttl_seconds=60,
            max_uses=1,
        )
        self.same_address(minted.data[0].url, 201)
        self.client.check_delivery(minted.data[0].url)
        return Outcome(
            "1 URL minted and validated",
            201,
            minted.request_id,
            minted.billing.credits_charged,
        )

    def same_address(self, minted: str, http_status: int) -> None:
        """Fail when the server mints URLs on another address than the one doctor reached."""
        ours, theirs = _origin(self.client.base_url), _origin(minted)
        if theirs and theirs != ours:
            raise _Failed(
                f"the server mints URLs on {theirs}, but was reached at {ours}",
                http_status,
                fix=f"Set CARIMG_BASE_URL={ours} on the server (or reach it at {theirs}).",
            )

    def image(self) -> Outcome:
        if not self.spend:
            raise _Skipped("costs 1 credit: run with --yes")
        image = self.client.image(MAKE, MODEL, YEAR, size="thumb")
        return Outcome(
            f"{image.width}×{image.height} {image.content_type} from {image.source}",
            request_id=image.request_id,
            credits_spent=image.credits_charged or 0,
        )


class _Failed(Exception):
    def __init__(self, detail: str, http_status: int | None, fix: str | None = None) -> None:
        super().__init__(detail)
        self.http_status = http_status
        self.fix = fix


def _origin(url: str) -> str:
    """scheme://host[:port] of a URL ('' for one without a host)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


class _Skipped(Exception):
    pass


def run_check(name: str, probe: Callable[[], Outcome]) -> Check:
    from carimg.client import APIError, CarimgError

    started = time.perf_counter()

    def elapsed() -> float:
        return round((time.perf_counter() - started) * 1000, 1)

    try:
        outcome = probe()
    except _Skipped as skipped:
        return Check(name, "skip", detail=str(skipped))
    except _Failed as failed:
        return Check(
            name, "fail", elapsed(), http_status=failed.http_status, detail=str(failed),
            fix=failed.fix,
        )  # fmt: skip
    except CarimgError as error:
        detail = error.detail if isinstance(error, APIError) else str(error)
        return Check(
            name, "fail", elapsed(), 0, error.status, error.request_id, detail, fix_hint(error)
        )
    return Check(
        name,
        "pass",
        elapsed(),
        outcome.credits_spent,
        outcome.http_status,
        outcome.request_id,
        outcome.detail,
    )


def run_all(client: Client, spend: bool) -> list[Check]:
    doctor = Doctor(client, spend)
    results = []
    for name, probe, needs_key in doctor.checks():
        if needs_key and not client.api_key:
            results.append(Check(name, "fail", detail="no API key", fix=NO_KEY_FIX))
            continue
        results.append(run_check(name, probe))
    return results


def doctor(
    yes: bool = typer.Option(False, "--yes", "-y", help="Spend up to 2 credits on real images."),
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Smoke-test every endpoint with this key; exit 1 when a check fails."""
    with Target(api_key, api_url) as target:
        client = target.client(require_key=False, max_retries=1, max_retry_wait=5)
        checks = run_all(client, yes)
    ok = all(check.status != "fail" for check in checks)
    spent = sum(check.credits_spent for check in checks)
    if as_json:
        print_json(
            {
                "ok": ok,
                "base_url": client.base_url,
                "key_source": target.key_source(),
                "credits_spent": spent,
                "checks": [asdict(check) for check in checks],
            }
        )
    else:
        _table(client.base_url, checks, spent)
    if not ok:
        raise typer.Exit(1)


def _table(base_url: str, checks: list[Check], spent: int) -> None:
    from rich.table import Table

    colours = {"pass": "green", "fail": "bold red", "skip": "yellow"}
    table = Table("check", "status", "ms", "credits", "HTTP", "request id", "detail / fix",
                  title=f"carimg doctor — {base_url}")  # fmt: skip
    for check in checks:
        about: Any = check.detail + (f"\n[yellow]fix:[/] {check.fix}" if check.fix else "")
        table.add_row(
            check.name,
            f"[{colours[check.status]}]{check.status}[/]",
            "" if check.latency_ms is None else f"{check.latency_ms:.0f}",
            str(check.credits_spent),
            str(check.http_status or ""),
            check.request_id or "",
            about,
        )
    out = console()
    out.print(table)
    failed = sum(check.status == "fail" for check in checks)
    verdict = "[green]all good[/]" if not failed else f"[bold red]{failed} failed[/]"
    out.print(f"{verdict} · {spent} credit(s) spent")


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)
