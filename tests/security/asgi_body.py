"""Drive the app as plain ASGI with a request body we feed chunk by chunk, counting how much of
it the app actually read (httpx's transport reads the whole body up front, so it cannot tell)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI

CHUNK = 4096


@dataclass
class Outcome:
    status: int
    read: int  # bytes of body the app pulled through `receive`
    headers: dict[str, str] = field(default_factory=dict)


async def post_oversized(
    app: FastAPI,
    path: str,
    total: int,
    *,
    declare_length: bool,
    headers: dict[str, str] | None = None,
    method: str = "POST",
) -> Outcome:
    """Send `total` bytes of body to `path`, with a truthful Content-Length or chunked."""
    sent = {"content-type": "application/json", **(headers or {})}
    if declare_length:
        sent["content-length"] = str(total)
    else:
        sent["transfer-encoding"] = "chunked"
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in sent.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
        "state": {},
    }
    read = 0
    done = False

    async def receive() -> dict[str, Any]:
        nonlocal read, done
        if done or read >= total:
            done = True
            return {"type": "http.disconnect"}
        size = min(CHUNK, total - read)
        read += size
        return {"type": "http.request", "body": b" " * size, "more_body": read < total}

    status = 0
    response_headers: dict[str, str] = {}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            response_headers.update(
                (k.decode().lower(), v.decode()) for k, v in message.get("headers", [])
            )

    await app(scope, receive, send)
    return Outcome(status, read, response_headers)
