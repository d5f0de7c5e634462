"""Drive the pages like a browser: forms with their CSRF tokens, sign-up, cookies."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from carimg.app import create_app
from carimg.catalog import Catalog
from carimg.config import Settings
from carimg.domain.clock import FixedClock
from carimg.render import RenderPool

PASSWORD = "correct horse battery"


def csrf_of(html: str) -> str:
    """The CSRF token of the forms on a page."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF field on the page"
    return found.group(1)


async def get_csrf(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    assert page.status_code in (200, 201), page.text
    return csrf_of(page.text)


async def post_form(
    client: httpx.AsyncClient, path: str, data: dict[str, Any], *, page: str | None = None
) -> httpx.Response:
    """POST a form the way a browser does: with the CSRF token of the page that shows it."""
    token = await get_csrf(client, page or path)
    return await client.post(path, data={"csrf_token": token, **data})


def new_email() -> str:
    return f"person-{uuid.uuid4().hex[:8]}@example.com"


async def sign_up(
    client: httpx.AsyncClient, email: str | None = None, password: str = PASSWORD
) -> str:
    email = email or new_email()
    response = await post_form(client, "/signup", {"email": email, "password": password})
    assert response.status_code == 303, response.text
    return email


async def sign_in(
    client: httpx.AsyncClient, email: str, password: str = PASSWORD
) -> httpx.Response:
    return await post_form(client, "/signin", {"email": email, "password": password})


def set_cookie_headers(response: httpx.Response, name: str) -> list[str]:
    return [
        value for value in response.headers.get_list("set-cookie") if value.startswith(f"{name}=")
    ]


@asynccontextmanager
async def client_with(
    settings: Settings, catalog: Catalog, clock: FixedClock, **changes: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app whose settings differ from the fixture's by `changes`."""
    app = create_app(
        settings.model_copy(update=changes), catalog=catalog, clock=clock, render_pool=RenderPool(0)
    )
    base_url = str(changes.get("base_url", "http://testserver"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=base_url) as client:
            yield client


class MailSink:
    """A minimal SMTP server on localhost that keeps the messages it receives."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self.port = 0

    async def __aenter__(self) -> MailSink:
        self._server = await asyncio.start_server(self._session, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._server.close()
        await self._server.wait_closed()

    async def _session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"220 sink ESMTP\r\n")
        body: list[bytes] | None = None
        while line := await reader.readline():
            if body is not None:
                if line == b".\r\n":
                    self.messages.append(b"".join(body))
                    body = None
                    writer.write(b"250 queued\r\n")
                else:
                    body.append(line)
            elif line[:4].upper() == b"DATA":
                body = []
                writer.write(b"354 end with .\r\n")
            elif line[:4].upper() == b"QUIT":
                writer.write(b"221 bye\r\n")
                await writer.drain()
                break
            else:
                writer.write(b"250 ok\r\n")
            await writer.drain()
        writer.close()
