"""ImageBody: the headers Starlette's Response would send, encoded in one pass."""

from __future__ import annotations

from starlette.responses import Response

from carimg.api.images import ImageBody

HEADERS = {"ETag": '"abc"', "Cache-Control": "public, max-age=60", "X-Image-Width": "256"}


def test_an_image_body_sends_the_headers_and_bytes_a_starlette_response_would() -> None:
    ours = ImageBody(b"RIFF....WEBP", "image/webp", HEADERS)
    theirs = Response(b"RIFF....WEBP", media_type="image/webp", headers=HEADERS)
    assert ours.status_code == theirs.status_code == 200
    assert ours.body == theirs.body
    assert ours.raw_headers == theirs.raw_headers
    assert ours.headers["content-length"] == "12"
