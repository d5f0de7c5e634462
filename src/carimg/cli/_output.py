"""What every client command shares: its options, its SDK client, its output and exit codes.

Only typer and the standard library are imported here at module level, so `carimg --help` and
the commands stay quick; the SDK and rich load when a command runs.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from rich.console import Console

    from carimg.client import CarimgError, Client


class ExitCode:
    """The exit codes of the client commands (docs/CLI.md lists them)."""

    OK = 0
    FAILED = 1  # a check or an item failed, or the service answered another error
    USAGE = 2  # bad arguments (also Typer's own usage errors)
    AUTH = 3  # no key, or the key is invalid, revoked or lacks a scope
    PAYMENT = 4  # not enough credits, a plan limit, or the spending cap would be passed
    NOT_FOUND = 5  # the vehicle (or endpoint) does not exist
    BUSY = 6  # rate limited or unavailable after the retries
    UNREACHABLE = 7  # the service did not answer
    INTERRUPTED = 130  # Ctrl-C


ApiKeyOption = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        help="API key (else CAR_IMAGE_API_KEY, else the key `carimg login` stored).",
        show_default=False,
    ),
]
ApiUrlOption = Annotated[
    str | None,
    typer.Option(
        "--api-url",
        help="The service's address (else CAR_IMAGE_API_URL, else the stored one).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


@dataclass
class Target:
    """The service and key one command talks to; closes the clients it made on exit."""

    api_key: str | None
    api_url: str | None
    opened: list[Client] = field(default_factory=list)

    def __enter__(self) -> Target:
        return self

    def __exit__(self, *exc_info: object) -> None:
        for client in self.opened:
            client.close()

    def client(self, *, require_key: bool = True, **options: Any) -> Client:
        from carimg.client import Client

        client = Client(self.api_key, base_url=self.api_url, **options)
        self.opened.append(client)
        if require_key and not client.api_key:
            import httpx

            from carimg.client import AuthenticationError

            # Reported like the service's own 401, before any request is sent.
            detail = "No API key: run `carimg login`, set CAR_IMAGE_API_KEY or pass --api-key."
            problem = {"title": "Unauthorized", "status": 401, "detail": detail}
            raise AuthenticationError(
                401, problem, request_id=None, retry_after=None, headers=httpx.Headers()
            )
        return client

    def key_source(self) -> str:
        """Where the key comes from: option, environment, credentials or none."""
        import os

        from carimg.client import API_KEY_ENV, load_credentials

        if self.api_key:
            return "option"
        if os.environ.get(API_KEY_ENV):
            return "environment"
        return "credentials" if load_credentials() else "none"


def console(stderr: bool = False) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=False)


def print_json(payload: Any) -> None:
    typer.echo(json.dumps(payload, indent=2, default=str))


def fail(message: str, code: int, *, as_json: bool, **members: Any) -> NoReturn:
    """Report a failure (JSON on stdout with --json, red text on stderr otherwise) and exit."""
    if as_json:
        print_json({"error": {"detail": message, **members}})
    else:
        console(stderr=True).print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code)


def exit_code_for(error: CarimgError) -> int:
    from carimg.client import (
        AuthenticationError,
        ConnectionFailed,
        NotFoundError,
        PaymentRequiredError,
        PermissionDeniedError,
        RateLimitError,
        ServiceUnavailableError,
    )

    table: tuple[tuple[type[Exception], int], ...] = (
        (AuthenticationError, ExitCode.AUTH),
        (PermissionDeniedError, ExitCode.AUTH),
        (PaymentRequiredError, ExitCode.PAYMENT),
        (NotFoundError, ExitCode.NOT_FOUND),
        (RateLimitError, ExitCode.BUSY),
        (ServiceUnavailableError, ExitCode.BUSY),
        (ConnectionFailed, ExitCode.UNREACHABLE),
    )
    return next((code for kind, code in table if isinstance(error, kind)), ExitCode.FAILED)


def fix_hint(error: CarimgError) -> str | None:
    """One line that says what to do about an error."""
    from carimg.client import APIError, ConnectionFailed

    if isinstance(error, ConnectionFailed):
        return "Check the address (--api-url / CAR_IMAGE_API_URL) and that the service is up."
    if not isinstance(error, APIError):
        return None
    hints: dict[int, Callable[[APIError], str]] = {
        401: lambda e: "Run `carimg login`, or set CAR_IMAGE_API_KEY to a valid cimg_ key.",
        402: lambda e: f"Buy credits: `carimg buy` or {e.checkout_url or 'the dashboard'}.",
        403: lambda e: (
            f"Use a key with the scope '{e.required_scope}' (`carimg login` grants it)."
            if e.required_scope
            else "This key may not do this (origin, suspension or signature)."
        ),
        404: lambda e: (
            "Did you mean: "
            + ", ".join(str(s.get("name") or s.get("id")) for s in e.suggestions[:3])
            if e.suggestions
            else "Check the names with `carimg search`."
        ),
        429: lambda e: f"Wait {e.retry_after or e.retry_after_seconds or 60:.0f} s and retry.",
        503: lambda e: "The service is busy or a dependency is down; retry later.",
    }
    hint = hints.get(error.status or 0)
    return hint(error) if hint else None


def error_members(error: CarimgError) -> dict[str, Any]:
    from carimg.client import APIError, DeviceFlowError

    members: dict[str, Any] = {"status": error.status, "request_id": error.request_id}
    if isinstance(error, APIError):
        members |= error.problem | {"request_id": error.request_id}
    elif isinstance(error, DeviceFlowError):
        members["error"] = error.error
    hint = fix_hint(error)
    return members | ({"fix": hint} if hint else {})


@contextmanager
def reporting(as_json: bool) -> Iterator[None]:
    """SDK errors become a message (or a JSON error object) and the matching exit code."""
    from carimg.client import CarimgError

    try:
        yield
    except CarimgError as error:
        members = error_members(error)
        if as_json:
            print_json({"error": {"detail": str(error), **members}})
        else:
            err = console(stderr=True)
            err.print(f"[bold red]error:[/] {error}")
            if members.get("fix"):
                err.print(f"[yellow]fix:[/] {members['fix']}")
        raise typer.Exit(exit_code_for(error)) from None
    except KeyboardInterrupt:
        console(stderr=True).print("[yellow]interrupted[/]")
        raise typer.Exit(ExitCode.INTERRUPTED) from None


def vehicle_arguments(words: list[str]) -> tuple[dict[str, Any], str | None]:
    """`MAKE MODEL YEAR` → (make, model, year), or any other words → a text to resolve."""
    if len(words) == 3 and words[2].isdigit():
        return {"make": words[0], "model": words[1], "year": int(words[2])}, None
    return {}, " ".join(words).strip() or None


def resolve_vehicle(client: Client, words: list[str], as_json: bool) -> dict[str, Any]:
    """Image parameters for the words: given directly, or resolved from free text (free)."""
    params, text = vehicle_arguments(words)
    if text is None:
        if not params:
            fail(
                "Name a vehicle: MAKE MODEL YEAR, or a description.",
                ExitCode.USAGE,
                as_json=as_json,
            )
        return params
    resolved = client.resolve(text).data
    if resolved.confidence != "high" and not as_json:
        console(stderr=True).print(
            f"[yellow]note:[/] '{text}' resolved with {resolved.confidence} confidence to "
            f"{resolved.display.get('make_name')} {resolved.display.get('model_name')} "
            f"{resolved.params.year}"
        )
    return resolved.params.model_dump(exclude_none=True, exclude={"vehicle_id"})


def stdout_is_interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
