"""`carimg login` (the device flow, RFC 8628) and `carimg logout`.

login: asks for a device code, shows the user code and the activation address (and opens it in
a browser when it can), polls every `interval` seconds — five more after each slow_down, or the
server's Retry-After — and stores the key it receives in the user's config directory, mode 0600.
With --json it prints one JSON object per line: the code to approve, then the result.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated

import typer

from carimg.cli._output import (
    ApiUrlOption,
    ExitCode,
    JsonOption,
    Target,
    console,
    fail,
    print_json,
    reporting,
)

SLOW_DOWN_STEP = 5  # RFC 8628 §3.5


def login(
    api_url: ApiUrlOption = None,
    client_name: Annotated[
        str | None, typer.Option(help="Names the key (default: carimg CLI on HOST).")
    ] = None,
    browser: Annotated[bool, typer.Option(help="Open the activation page in a browser.")] = True,
    as_json: JsonOption = False,
) -> None:
    """Log in with the device flow: approve the code in a browser; the key is stored (0600)."""
    from carimg.client import Credentials, DeviceFlowError, save_credentials

    name = client_name or f"carimg CLI on {socket.gethostname()}"[:80]
    with reporting(as_json), Target(None, api_url) as target:
        client = target.client(require_key=False)
        code = client.device_code(name)
        _show_code(code.user_code, code.verification_uri_complete, code.expires_in, as_json)
        if browser and not as_json:
            from carimg.cli.client_cmds import _open_browser

            _open_browser(code.verification_uri_complete)
        interval = float(code.interval)
        deadline = time.monotonic() + code.expires_in
        while True:
            if time.monotonic() > deadline:
                fail("The code expired; run `carimg login` again.", ExitCode.AUTH, as_json=as_json)
            time.sleep(interval)
            try:
                token = client.device_token(code.device_code)
                break
            except DeviceFlowError as error:
                if error.error == "authorization_pending":
                    continue
                if error.error == "slow_down":
                    interval = max(interval + SLOW_DOWN_STEP, error.retry_after or 0)
                    continue
                reason = {
                    "access_denied": "The login was denied.",
                    "expired_token": "The code expired; run `carimg login` again.",
                }.get(error.error, f"The login failed: {error.description}")
                fail(reason, ExitCode.AUTH, as_json=as_json, error=error.error)
    credentials = Credentials(
        api_key=token.key,
        base_url=client.base_url,
        key_id=token.key_id,
        key_prefix=token.key_prefix,
        scope=token.scope,
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )
    path = save_credentials(credentials)
    result = {
        "event": "logged_in",
        "base_url": client.base_url,
        "key_prefix": token.key_prefix,
        "scope": token.scope,
        "credentials": str(path),
    }
    if as_json:
        print_json_line(result)
        return
    console().print(
        f"[green]logged in[/] to {client.base_url} — key {token.key_prefix}… stored in {path}"
    )


def print_json_line(payload: Mapping[str, object]) -> None:
    import json

    typer.echo(json.dumps(payload), nl=True)


def _show_code(user_code: str, link: str, expires_in: int, as_json: bool) -> None:
    if as_json:
        print_json_line(
            {
                "event": "device_code",
                "user_code": user_code,
                "verification_uri_complete": link,
                "expires_in": expires_in,
            }
        )
        return
    out = console(stderr=True)
    out.print(f"Your code: [bold cyan]{user_code}[/]")
    out.print(f"Approve it at {link}", soft_wrap=True)
    out.print(f"[dim]waiting for approval (the code lasts {expires_in // 60} minutes)…[/]")


def logout(as_json: JsonOption = False) -> None:
    """Forget the stored key (the key itself stays valid until revoked in the dashboard)."""
    from carimg.client import credentials_path, delete_credentials

    path = credentials_path()
    removed = delete_credentials(path)
    if as_json:
        print_json({"logged_out": removed, "credentials": str(path)})
        return
    console().print(f"removed {path}" if removed else "not logged in (no stored key)")


def register(app: typer.Typer) -> None:
    app.command("login")(login)
    app.command("logout")(logout)
