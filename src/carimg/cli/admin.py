"""`carimg admin …`: operator commands on the deployment's database, one JSON object each."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import typer

from carimg.config import Settings
from carimg.domain.errors import DomainError

admin = typer.Typer(help="Operate a deployment: accounts, keys, credits.", no_args_is_help=True)


def _run(action: Callable[[Any], Awaitable[dict[str, Any]]], as_json: bool) -> None:
    """Run one action against the services of `carimg serve`'s settings and print its result."""

    async def main() -> dict[str, Any]:
        from carimg.catalog import load_catalog
        from carimg.render import RenderPool
        from carimg.services import build_services

        services = await build_services(Settings(), load_catalog(), render_pool=RenderPool(0))
        try:
            return await action(services)
        finally:
            await services.close()

    try:
        result = asyncio.run(main())
    except DomainError as error:
        payload = {"error": error.detail, "status": error.status, **error.extensions}
        typer.echo(json.dumps(payload) if as_json else f"error: {error.detail}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(result))
    else:
        for name, value in result.items():
            typer.echo(f"{name}: {value}")


def _split(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


JsonOption = typer.Option(False, "--json", help="Print one JSON object.")


@admin.command("create-account")
def create_account(
    email: str = typer.Option(..., help="The account's e-mail address."),
    credits: int = typer.Option(100, help="Opening credits."),
    plan: str = typer.Option("free", help="free, pro, business or enterprise."),
    as_json: bool = JsonOption,
) -> None:
    """Create an account → {account_id, email, credits}."""

    async def action(services: Any) -> dict[str, Any]:
        account = await services.accounts.create_account(email, credits=credits, plan=plan)
        balance = await services.ledger.balance(account.id)
        return {"account_id": account.id, "email": account.email, "credits": balance}

    _run(action, as_json)


@admin.command("create-key")
def create_key(
    email: str = typer.Option(..., help="The account's e-mail address."),
    scopes: str = typer.Option("images:read,account:read", help="Comma-separated scopes."),
    origins: str | None = typer.Option(None, help="Comma-separated allowed origins."),
    name: str = typer.Option("", help="A name to recognise the key by."),
    rate_limit: int | None = typer.Option(
        None, help="The key's own requests per minute (Enterprise agreements only)."
    ),
    as_json: bool = JsonOption,
) -> None:
    """Create an API key (shown once) → {key, id, prefix, scopes}."""

    async def action(services: Any) -> dict[str, Any]:
        account = await services.accounts.by_email(email)
        key, record = await services.accounts.create_key(
            account,
            scopes=_split(scopes),
            origins=_split(origins),
            name=name,
            rate_limit_per_minute=rate_limit,
        )
        return {
            "key": key,
            "id": record.id,
            "prefix": record.prefix,
            "scopes": list(record.scopes),
            "origins": list(record.origins),
        }

    _run(action, as_json)


@admin.command("revoke-key")
def revoke_key(id: str = typer.Option(..., help="The key id."), as_json: bool = JsonOption) -> None:
    """Revoke a key at once (its delivery URLs stop working) → {id, revoked_at}."""

    async def action(services: Any) -> dict[str, Any]:
        key = await services.accounts.revoke_key(id)
        return {"id": key.id, "revoked": True, "revoked_at": key.revoked_at.isoformat()}

    _run(action, as_json)


@admin.command("grant-credits")
def grant_credits(
    email: str = typer.Option(..., help="The account's e-mail address."),
    credits: int = typer.Option(..., help="Credits to add."),
    as_json: bool = JsonOption,
) -> None:
    """Add credits (a `grant` ledger entry) → {credits} (the new balance)."""

    async def action(services: Any) -> dict[str, Any]:
        import uuid

        account = await services.accounts.by_email(email)
        balance = await services.ledger.grant(
            account.id, credits, f"grant:admin:{uuid.uuid4().hex}", note="admin grant"
        )
        return {"account_id": account.id, "email": account.email, "credits": balance}

    _run(action, as_json)


def _status_command(status: str) -> Callable[..., None]:
    def command(
        email: str = typer.Option(..., help="The account's e-mail address."),
        as_json: bool = JsonOption,
    ) -> None:
        async def action(services: Any) -> dict[str, Any]:
            account = await services.accounts.set_status(email, status)
            return {"account_id": account.id, "email": account.email, "status": account.status}

        _run(action, as_json)

    return command


admin.command("suspend", help="Suspend an account: every key answers 403.")(
    _status_command("suspended")
)
admin.command("unsuspend", help="Make a suspended account active again.")(_status_command("active"))


@admin.command("reset-link")
def reset_link(
    email: str = typer.Option(..., help="The account's e-mail address."),
    as_json: bool = JsonOption,
) -> None:
    """Make a one-hour, one-use password-reset link to pass on (the way without a mail
    server) → {email, reset_link, expires_at}."""

    async def action(services: Any) -> dict[str, Any]:
        link, expires_at = await services.web_accounts.reset_link(email)
        return {
            "email": email.strip().lower(),
            "reset_link": link,
            "expires_at": expires_at.isoformat(),
        }

    _run(action, as_json)


@admin.command("confirm-checkout")
def confirm_checkout(
    id: str = typer.Option(..., help="The checkout id (chk_…)."),
    as_json: bool = JsonOption,
) -> None:
    """Confirm a local checkout was paid (credits once) → {checkout_id, credited, credits}."""

    async def action(services: Any) -> dict[str, Any]:
        credited, balance = await services.billing.confirm(id)
        return {"checkout_id": id, "credited": credited, "credits": balance}

    _run(action, as_json)


@admin.command("create-partner")
def create_partner(
    name: str = typer.Option(..., help="The partner's name."),
    as_json: bool = JsonOption,
) -> None:
    """Create a partner that signs embed URLs → {partner_id, secret} (the secret is shown once)."""

    async def action(services: Any) -> dict[str, Any]:
        import secrets
        import uuid

        from carimg.store.partners import Partner

        partner = Partner(f"ptn_{uuid.uuid4().hex[:16]}", name, secrets.token_hex(32))
        await services.partners.create(partner, services.clock.now())
        return {"partner_id": partner.id, "name": partner.name, "secret": partner.secret}

    _run(action, as_json)


@admin.command("approve-device")
def approve_device(
    user_code: str = typer.Option(..., help="The code the device shows (dash and case optional)."),
    email: str = typer.Option(..., help="The account the device's key will belong to."),
    as_json: bool = JsonOption,
) -> None:
    """Approve a device login; its next poll gets a key → {approved, user_code, client_name}."""

    async def action(services: Any) -> dict[str, Any]:
        shown = await services.device.approve(user_code, email)
        return {
            "approved": True,
            "user_code": shown.user_code,
            "email": email.strip().lower(),
            "client_name": shown.client_name,
        }

    _run(action, as_json)


@admin.command("deny-device")
def deny_device(
    user_code: str = typer.Option(..., help="The code the device shows (dash and case optional)."),
    as_json: bool = JsonOption,
) -> None:
    """Deny a device login; its next poll gets access_denied → {denied, user_code}."""

    async def action(services: Any) -> dict[str, Any]:
        shown = await services.device.deny(user_code)
        return {"denied": True, "user_code": shown.user_code, "client_name": shown.client_name}

    _run(action, as_json)


def register(app: typer.Typer) -> None:
    app.add_typer(admin, name="admin")

    @app.command("sign-embed")
    def sign_embed(
        secret: str = typer.Option(
            ...,
            envvar="CARIMG_PARTNER_SECRET",
            help="The partner secret (or CARIMG_PARTNER_SECRET).",
        ),
        make: str = typer.Option(..., help="Make slug."),
        model: str = typer.Option(..., help="Model slug."),
        year: int = typer.Option(..., help="Model year."),
        view: str | None = typer.Option(None, help="View."),
        color: str | None = typer.Option(None, help="Color preset or hex."),
        finish: str | None = typer.Option(None, help="gloss, metallic, satin or matte."),
        width: int | None = typer.Option(None, "--w", help="Width in pixels."),
        height: int | None = typer.Option(None, "--h", help="Height in pixels."),
        format: str | None = typer.Option(None, help="png, webp or jpg."),
        expires_in: int = typer.Option(86400, help="Seconds the URL stays valid (≤ 30 days)."),
        base_url: str = typer.Option(
            "http://127.0.0.1:8000", envvar="CARIMG_BASE_URL", help="The deployment's address."
        ),
    ) -> None:
        """Print a partner-signed /images/car.png URL, free to load until it expires."""
        from carimg.client import sign_embed_url

        url = sign_embed_url(
            secret, make, model, year, view=view, color=color, finish=finish, width=width,
            height=height, format=format, expires_in=expires_in, base_url=base_url,
        )  # fmt: skip
        typer.echo(url)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(admin())
