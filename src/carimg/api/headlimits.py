"""Bounds on a request's head: its target, its headers (each, all together, how many) and, for
the server, its bytes on the wire and the time it may take to arrive.

`HeadLimits.refusal` is the one check of a parsed head; the app runs it first for every request
(`CarimgApp.__call__`, in front of the hot routes), so the server and the in-process clients
answer alike: 414 for a long target, 431 for headers over a limit, as problem documents. What a
check of parsed headers cannot do, granian does while the head arrives (its HTTP/1 settings,
`cli/serve.granian_http1`): it holds no more than `head_bytes` of a head and closes a connection
whose head takes longer than `timeout`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from carimg.domain import limits

if TYPE_CHECKING:
    from carimg.config import Settings

# The request line around its target: the longest method the app serves ("OPTIONS"), two
# spaces, "HTTP/1.1" and CRLF, rounded up.
_REQUEST_LINE_OVERHEAD = 32


@dataclass(frozen=True, slots=True)
class HeadLimits:
    header_bytes: int = limits.MAX_HEADER_BYTES
    field_bytes: int = limits.MAX_HEADER_FIELD_BYTES
    target_bytes: int = limits.MAX_REQUEST_TARGET_BYTES
    headers: int = limits.MAX_HEADERS
    timeout: float = limits.HEADER_TIMEOUT_SECONDS

    @classmethod
    def of(cls, settings: Settings) -> HeadLimits:
        return cls(
            settings.max_header_bytes,
            settings.max_header_field_bytes,
            settings.max_request_target_bytes,
            settings.max_headers,
            settings.header_timeout,
        )

    @property
    def head_bytes(self) -> int:
        """The most bytes a head within every limit takes on the wire (its request line, each
        header's `: ` and CRLF, the blank line): a server holds no more of a head."""
        return _REQUEST_LINE_OVERHEAD + self.target_bytes + self.header_bytes + 4 * self.headers + 2

    def refusal(
        self, headers: Sequence[tuple[bytes, bytes]], target_bytes: int
    ) -> tuple[int, str] | None:
        """(status, detail) of a head over a limit, else None."""
        if target_bytes > self.target_bytes:
            return 414, f"The request target is over {self.target_bytes} bytes."
        if len(headers) > self.headers:
            return 431, f"The request has more than {self.headers} headers."
        total = len(b"".join(chain.from_iterable(headers)))  # in C: no loop per header
        if total > self.header_bytes:
            return 431, f"The request's headers are over {self.header_bytes} bytes together."
        if total > self.field_bytes:  # else no header can be over it
            for name, value in headers:
                if len(name) + len(value) > self.field_bytes:
                    header = name[:64].decode("latin-1")
                    return 431, f"The header {header!r} is over {self.field_bytes} bytes."
        return None
