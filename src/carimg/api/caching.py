"""JSON envelopes with Cache-Control, a validator and free 304s for public, cacheable data."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from carimg.api.headers import request_id_of
from carimg.api.jsonresponse import JSONBody, json_bytes
from carimg.api.query import IGNORED_HEADER
from carimg.domain.etags import etag_matches


def envelope_response(request: Request, data: Any, *, max_age: int, status: int = 200) -> Response:
    """`{data, request_id}` with a weak ETag over `data` (the request id differs per response)."""
    etag = 'W/"' + hashlib.sha256(json_bytes(data)).hexdigest()[:32] + '"'
    headers = {"Cache-Control": f"public, max-age={max_age}", "ETag": etag}
    ignored = getattr(request.state, "ignored_parameters", None)
    if ignored:
        headers[IGNORED_HEADER] = ", ".join(sorted(ignored))
    if etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return JSONBody({"data": data, "request_id": request_id_of(request)}, status, headers=headers)
