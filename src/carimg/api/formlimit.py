"""One limit for every HTML-form body, enforced before the framework parses it.

JSON endpoints read their bodies through `read_body` with their own limits. Form bodies are parsed
by Starlette (`Form()` parameters, `request.form()`), which caps a field but not the body, so a
form of many fields would be read whole. Every form carimg serves is a few short fields, so one
shared limit bounds them all.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from carimg.api.problems import problem_response

FORM_BODY_LIMIT = 64 * 1024
FORM_MEDIA_TYPES = (b"application/x-www-form-urlencoded", b"multipart/form-data")


def _is_form(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"content-type":
            return bytes(value).lower().lstrip().startswith(FORM_MEDIA_TYPES)
    return False


class FormBodyLimit:
    """Pure ASGI middleware: form bodies over `limit` bytes are 413 without being read whole.

    The body streams through uncounted by anything else; once it passes the limit the app is told
    the client left (so parsing stops) and whatever it answers is replaced by the 413. Endpoints
    that read their own bodies with a smaller limit answer first.
    """

    def __init__(self, app: ASGIApp, limit: int = FORM_BODY_LIMIT) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_form(scope):
            await self.app(scope, receive, send)
            return
        too_large = problem_response(
            Request(scope), 413, f"A form body is at most {self.limit // 1024} KiB."
        )
        if _declared_length(scope) > self.limit:
            await too_large(scope, receive, send)
            return
        size = 0
        exceeded = answered = False

        async def counted() -> Message:
            nonlocal size, exceeded
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > self.limit:
                    exceeded = True
                    return {"type": "http.disconnect"}
            return message

        async def answer(message: Message) -> None:
            nonlocal answered
            if not exceeded:
                await send(message)
            elif not answered:
                answered = True
                await too_large(scope, receive, send)

        try:
            await self.app(scope, counted, answer)
        except Exception:
            if not exceeded:
                raise
        if exceeded and not answered:
            await too_large(scope, receive, send)


def _declared_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit():
            return int(value)
    return 0
