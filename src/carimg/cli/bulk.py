"""`carimg bulk`: a CSV or JSONL of vehicles (or of descriptions) to a folder of images.

1. Read the rows: make, model, year (and view, color, finish, size, width, height, format,
   file), or a
   `description` (also `query` or `text`) that is resolved first (free).
2. Resume: the folder's sidecar manifest (`.carimg-bulk.jsonl`, one line per written image with
   its ETag, size and digest) says which files are already written; those are skipped without a
   request (`--refresh` re-validates them with If-None-Match instead: a 304 is free).
3. Estimate the price, check it against the balance and `--max-credits`, ask (`--yes` skips).
4. Download concurrently, pausing when the key's rate window (RateLimit-* headers) runs low;
   each image is written atomically, then recorded in the manifest, so an interruption at any
   moment loses at most the images in flight.
5. Summarise: downloaded, skipped, failures with their reasons and request ids.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from carimg.cli._output import (
    ApiKeyOption,
    ApiUrlOption,
    ExitCode,
    JsonOption,
    Target,
    console,
    fail,
    fix_hint,
    print_json,
    reporting,
    stdout_is_interactive,
)

if TYPE_CHECKING:
    import httpx

    from carimg.client import AsyncClient, CarimgError, Client

MANIFEST = ".carimg-bulk.jsonl"
TEXT_COLUMNS = ("description", "query", "text")
PARAM_COLUMNS = (
    "make", "model", "year", "view", "color", "finish", "size", "width", "height", "format",
)  # fmt: skip
INT_COLUMNS = ("year", "width", "height")


@dataclass
class Row:
    """One input line: image parameters, or a description to resolve."""

    line: int
    params: dict[str, Any]
    text: str | None = None
    file: str | None = None

    def request(self, client: Client) -> dict[str, Any]:
        """The image parameters, resolving the description first when there is one."""
        if self.text is None:
            return dict(self.params)
        resolved = client.resolve(self.text).data.params.model_dump(exclude_none=True)
        resolved.pop("vehicle_id", None)
        return resolved | self.params


def _row(line: int, record: dict[str, Any]) -> Row:
    record = {str(k).strip().lower(): v for k, v in record.items() if k is not None}
    text = next((str(record[c]).strip() for c in TEXT_COLUMNS if record.get(c)), None)
    params: dict[str, Any] = {}
    for name in PARAM_COLUMNS:
        value = record.get(name)
        if value is None or str(value).strip() == "":
            continue
        try:
            params[name] = int(value) if name in INT_COLUMNS else str(value).strip()
        except ValueError:
            raise typer.BadParameter(f"line {line}: {name} must be a whole number") from None
    if text is None and not {"make", "model", "year"} <= params.keys():
        raise typer.BadParameter(f"line {line}: give make, model and year, or a description")
    file = str(record["file"]).strip() if record.get("file") else None
    return Row(line, params, text, file)


def read_rows(path: Path) -> list[Row]:
    """Rows of a CSV (with a header) or a JSONL file (one object a line)."""
    try:
        content = path.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise typer.BadParameter(f"cannot read {path}: {error}") from None
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        rows = []
        for number, line in enumerate(content.splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                except ValueError:
                    raise typer.BadParameter(f"line {number}: not JSON") from None
                if not isinstance(record, dict):
                    raise typer.BadParameter(f"line {number}: not a JSON object")
                rows.append(_row(number, record))
        return rows
    reader = csv.DictReader(content.splitlines())
    return [_row(number, record) for number, record in enumerate(reader, 2)]


def file_name(params: dict[str, Any]) -> str:
    """A stable name per variant: make-model-year-view-color[-finish][-size].format."""
    parts = [params["make"], params["model"], params["year"]]
    parts += [params.get("view", "front-3-4"), params.get("color", "silver")]
    if params.get("finish"):  # only then: names written before finishes stay the same
        parts.append(params["finish"])
    if params.get("width") or params.get("height"):
        parts.append(f"{params.get('width', '')}x{params.get('height', '')}")
    elif params.get("size"):
        parts.append(params["size"])
    name = "-".join(str(part).strip().lower().replace(" ", "-").replace("/", "-") for part in parts)
    return f"{name}.{params.get('format', 'png')}"


@dataclass
class Job:
    row: Row
    params: dict[str, Any]
    file: str
    etag: str | None = None  # from the manifest, for --refresh


class Manifest:
    """The sidecar of a folder: the last record per file; appended line by line."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / MANIFEST
        self.records: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut short by an interruption
                if isinstance(record, dict) and isinstance(record.get("file"), str):
                    self.records[record["file"]] = record

    def done(self, folder: Path, job: Job) -> dict[str, Any] | None:
        """The record of this job's file when the file on disk is the one recorded."""
        record = self.records.get(job.file)
        if not record or record.get("params") != job.params:
            return None
        path = folder / job.file
        if not path.is_file() or path.stat().st_size != record.get("bytes"):
            return None
        return record if _digest(path.read_bytes()) == record.get("sha256") else None

    def add(self, record: dict[str, Any]) -> None:
        self.records[record["file"]] = record
        with self.path.open("a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")
            file.flush()
            os.fsync(file.fileno())


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(data)
    os.replace(temporary, path)


class RateWindow:
    """Keeps requests inside the key's window: reads RateLimit-* headers, pauses when low."""

    def __init__(self, reserve: int) -> None:
        self.reserve = reserve
        self.resume_at = 0.0

    async def observe(self, response: httpx.Response) -> None:
        remaining = response.headers.get("ratelimit-remaining", "")
        reset = response.headers.get("ratelimit-reset", "")
        if remaining.isdigit() and reset.isdigit() and int(remaining) <= self.reserve:
            self.resume_at = max(self.resume_at, time.monotonic() + int(reset))

    async def wait(self) -> None:
        delay = self.resume_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)


@dataclass
class Summary:
    total: int = 0
    downloaded: int = 0
    unchanged: int = 0
    skipped_existing: int = 0
    skipped_cap: int = 0
    credits_spent: int = 0
    credits_remaining: int | None = None
    failures: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None


async def download(
    client: AsyncClient,
    jobs: list[Job],
    folder: Path,
    manifest: Manifest,
    summary: Summary,
    *,
    concurrency: int,
    window: RateWindow,
    advance: Any,
) -> None:
    """Fetch every job, `concurrency` at a time; a 402 stops what has not started."""
    from carimg.client import PaymentRequiredError

    queue: asyncio.Queue[Job] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def worker() -> None:
        while summary.stopped is None:
            try:
                job = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await window.wait()
            try:
                image = await client.image(**job.params, if_none_match=job.etag)
            except CarimgError as error:
                if isinstance(error, PaymentRequiredError):
                    summary.stopped = "insufficient credits"
                summary.failures.append(failure(job.row.line, job.file, job.params, error))
                advance(job, False)
                continue
            if image.credits_remaining is not None:
                summary.credits_remaining = image.credits_remaining
            if image.not_modified:
                summary.unchanged += 1
            else:
                write_atomically(folder / job.file, image.data)
                manifest.add(
                    {
                        "file": job.file,
                        "etag": image.etag,
                        "bytes": len(image.data),
                        "sha256": _digest(image.data),
                        "params": job.params,
                        "request_id": image.request_id,
                        "line": job.row.line,
                    }
                )
                summary.downloaded += 1
                summary.credits_spent += image.credits_charged or 0
            advance(job, True)

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))


def failure(line: int, file: str | None, vehicle: Any, error: CarimgError) -> dict[str, Any]:
    from carimg.client import APIError

    return {
        "line": line,
        "file": file,
        "vehicle": vehicle,
        "status": error.status,
        "detail": error.detail if isinstance(error, APIError) else str(error),
        "request_id": error.request_id,
        "fix": fix_hint(error),
    }


def plan_jobs(
    client: Client,
    rows: list[Row],
    folder: Path,
    manifest: Manifest,
    refresh: bool,
    summary: Summary,
) -> list[Job]:
    """The jobs still to do (one per distinct file); counts the files already written and the
    descriptions that resolve to nothing (failures, not a reason to stop)."""
    from carimg.client import BadRequestError, NotFoundError

    jobs: dict[str, Job] = {}
    for row in rows:
        try:
            params = row.request(client)
        except (NotFoundError, BadRequestError) as error:
            summary.failures.append(failure(row.line, row.file, row.text, error))
            continue
        job = Job(row, params, row.file or file_name(params))
        if job.file in jobs:
            continue  # the same image twice in the input: fetched once
        record = manifest.done(folder, job)
        if record is not None:
            if not refresh:
                summary.skipped_existing += 1
                continue
            job.etag = record.get("etag")
        jobs[job.file] = job
    return list(jobs.values())


def bulk(
    input: Annotated[Path, typer.Argument(help="CSV (with a header) or JSONL file.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the images.")] = Path(
        "carimg-images"
    ),
    concurrency: Annotated[int, typer.Option(min=1, max=32, help="Requests at a time.")] = 4,
    max_credits: Annotated[
        int | None, typer.Option(min=0, help="Spending cap: download at most this many.")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Spend without asking.")] = False,
    refresh: Annotated[
        bool, typer.Option(help="Re-validate written files by ETag (304s are free).")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Show the estimate, download nothing.")] = False,
    api_key: ApiKeyOption = None,
    api_url: ApiUrlOption = None,
    as_json: JsonOption = False,
) -> None:
    """Download many images from a CSV or JSONL list, resumably, within a spending cap."""
    rows = read_rows(input)
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out)
    summary = Summary(total=len(rows))
    with reporting(as_json), Target(api_key, api_url) as target:
        client = target.client()
        jobs = plan_jobs(client, rows, out, manifest, refresh, summary)
        account = client.account().data
    existing = summary.skipped_existing
    summary.credits_remaining = account.credits
    price = int(account.pricing.get("credits_per_image", 1))
    affordable = len(jobs) if max_credits is None else min(len(jobs), max_credits // max(price, 1))
    summary.skipped_cap = len(jobs) - affordable
    jobs = jobs[:affordable]
    estimate = len(jobs) * price
    if not as_json:
        console(stderr=True).print(
            f"{len(rows)} row(s): {existing} already written, {len(jobs)} to download "
            f"→ at most [bold]{estimate}[/] credit(s) (balance {account.credits})"
            + (
                f"; {summary.skipped_cap} over the cap of {max_credits}"
                if summary.skipped_cap
                else ""
            )
        )
    if estimate > account.credits:
        fail(
            f"{estimate} credits needed, {account.credits} available: `carimg buy` first, "
            "or lower --max-credits.",
            ExitCode.PAYMENT,
            as_json=as_json,
            estimate=estimate,
            balance=account.credits,
        )
    if dry_run:
        _report(summary, out, as_json, estimate=estimate)
        return
    if jobs and estimate and not yes:
        if as_json or not stdout_is_interactive():
            fail(
                f"This spends up to {estimate} credits: pass --yes.",
                ExitCode.USAGE,
                as_json=as_json,
            )
        if not typer.confirm(f"Spend up to {estimate} credits?", default=False):
            raise typer.Exit(ExitCode.OK)
    if jobs:
        with reporting(as_json):
            run = _run(client, jobs, out, manifest, summary, concurrency, as_json)
            asyncio.run(run)
    _report(summary, out, as_json)
    if summary.stopped:
        raise typer.Exit(ExitCode.PAYMENT)
    if summary.failures:
        raise typer.Exit(ExitCode.FAILED)


async def _run(
    sync_client: Client,
    jobs: list[Job],
    folder: Path,
    manifest: Manifest,
    summary: Summary,
    concurrency: int,
    as_json: bool,
) -> None:
    import httpx
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from carimg.client import AsyncClient
    from carimg.client._client import DEFAULT_TIMEOUT

    window = RateWindow(reserve=concurrency)
    http = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, event_hooks={"response": [window.observe]})
    progress = Progress(
        TextColumn("[bold]bulk[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[status]}"),
        TimeRemainingColumn(),
        console=console(stderr=True),
        disable=as_json,
    )
    task = progress.add_task("bulk", total=len(jobs), status="")

    def advance(job: Job, ok: bool) -> None:
        status = f"{summary.credits_spent} credits · {len(summary.failures)} failed"
        progress.update(task, advance=1, status=status)

    key, base_url = sync_client.api_key, sync_client.base_url
    async with AsyncClient(key, base_url=base_url, http_client=http) as client:
        with progress:
            try:
                await download(
                    client, jobs, folder, manifest, summary,
                    concurrency=concurrency, window=window, advance=advance,
                )  # fmt: skip
            finally:
                await http.aclose()


def _report(summary: Summary, folder: Path, as_json: bool, estimate: int | None = None) -> None:
    payload = {"out": str(folder), **summary.__dict__}
    if estimate is not None:
        payload["estimate"] = estimate
    if as_json:
        print_json(payload)
        return
    out = console()
    if summary.failures:
        from rich.table import Table

        table = Table("line", "file", "status", "detail", "request id", title="failures")
        for failure in summary.failures:
            table.add_row(
                str(failure["line"]),
                failure["file"],
                str(failure["status"] or ""),
                failure["detail"] + (f"\nfix: {failure['fix']}" if failure.get("fix") else ""),
                failure["request_id"] or "",
            )
        out.print(table)
    out.print(
        f"[green]{summary.downloaded} downloaded[/], {summary.skipped_existing} already there"
        + (f", {summary.unchanged} unchanged" if summary.unchanged else "")
        + (f", {summary.skipped_cap} over the cap" if summary.skipped_cap else "")
        + (f", [bold red]{len(summary.failures)} failed[/]" if summary.failures else "")
        + f" · {summary.credits_spent} credit(s) spent, {summary.credits_remaining} left"
        + f" · {folder}"
    )
    if summary.stopped:
        out.print(f"[bold red]stopped:[/] {summary.stopped}")


def register(app: typer.Typer) -> None:
    app.command("bulk")(bulk)
