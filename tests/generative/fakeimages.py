"""A local server that speaks the images API (generations and edits) for the official SDK.

Each request takes the next behaviour of `script` (then `default`): `ok` (a transparent car,
`b64_json`), `opaque` (the car on white, no alpha), `slow:<seconds>` (then ok), `429`, `500`,
`refusal` (400 `moderation_blocked`), `truncated` (a body shorter than its Content-Length),
`malformed` (200 without an image). It counts calls per endpoint and keeps prompts and the
Authorization headers it saw. Runs in a thread, so both in-process tests and a real
`carimg serve` can use it.
"""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image, ImageDraw

API_KEY = "sk-test-carimg-0123456789abcdefghijklmnop"  # what tests configure as the key


def car_picture(*, opaque: bool = False, size: int = 1024) -> bytes:
    """A crude side view of a car, off-centre and small (post-processing must reframe it)."""
    background = (255, 255, 255, 255) if opaque else (0, 0, 0, 0)
    image = Image.new("RGBA", (size, size), background)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((140, 520, 640, 640), radius=30, fill=(180, 20, 28, 255))
    draw.polygon([(250, 520), (320, 440), (500, 440), (570, 520)], fill=(150, 16, 24, 255))
    draw.polygon([(270, 515), (330, 452), (490, 452), (545, 515)], fill=(40, 50, 60, 255))
    for x in (240, 540):
        draw.ellipse((x - 55, 585, x + 55, 695), fill=(20, 20, 20, 255))
        draw.ellipse((x - 25, 615, x + 25, 665), fill=(170, 170, 170, 255))
    buf = io.BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


class FakeImages(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[str] = []
        self.default = "ok"
        self.calls: Counter[str] = Counter()
        self.prompts: list[tuple[str, str]] = []  # (endpoint, prompt)
        self.authorizations: list[str] = []
        self.edit_inputs: list[int] = []  # bytes of the input image of each edit
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def next_behaviour(self) -> str:
        with self.lock:
            return self.script.pop(0) if self.script else self.default


class _Handler(BaseHTTPRequestHandler):
    server: FakeImages
    protocol_version = "HTTP/1.1"

    def log_message(self, *_: object) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        endpoint = self.path.rsplit("/", 1)[-1]  # generations | edits
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        behaviour = self.server.next_behaviour()
        with self.server.lock:
            self.server.calls[endpoint] += 1
            self.server.authorizations.append(self.headers.get("Authorization", ""))
            self.server.prompts.append((endpoint, _prompt(body, self.headers)))
            if endpoint == "edits":
                start = body.find(b"\x89PNG")
                self.server.edit_inputs.append(0 if start < 0 else len(body) - start)
        if behaviour.startswith("slow:"):
            time.sleep(float(behaviour.split(":", 1)[1]))
            behaviour = "ok"
        if behaviour in ("ok", "opaque"):
            picture = car_picture(opaque=behaviour == "opaque")
            self._json(
                200, {"created": 0, "data": [{"b64_json": base64.b64encode(picture).decode()}]}
            )
        elif behaviour == "429":
            self._json(
                429, _error("Rate limit reached", "rate_limit_exceeded"), {"Retry-After": "7"}
            )
        elif behaviour == "500":
            self._json(500, _error("The server had an error", "server_error"))
        elif behaviour == "refusal":
            self._json(
                400, _error("Your request was rejected by the safety system.", "moderation_blocked")
            )
        elif behaviour == "malformed":
            self._json(200, {"created": 0, "data": [{"revised_prompt": "no image"}]})
        elif behaviour == "truncated":
            payload = json.dumps(
                {"created": 0, "data": [{"b64_json": "iVBORw0KGgo" * 500}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
        else:
            raise AssertionError(f"unknown behaviour {behaviour!r}")

    def _json(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _error(message: str, code: str) -> dict[str, object]:
    return {"error": {"message": message, "type": "image_generation_error", "code": code}}


def _prompt(body: bytes, headers: object) -> str:
    """The prompt field of a JSON or multipart request."""
    if body.startswith(b"{"):
        return str(json.loads(body).get("prompt", ""))
    marker = b'name="prompt"\r\n\r\n'
    start = body.find(marker)
    if start < 0:
        return ""
    start += len(marker)
    return body[start : body.find(b"\r\n--", start)].decode()


@contextmanager
def fake_images() -> Iterator[FakeImages]:
    server = FakeImages()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
