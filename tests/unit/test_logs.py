"""Access logs never carry keys, tokens or signatures."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from carimg.logs import REDACTED, JsonFormatter, redact, scrub


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/api/v1/delivery/AbC-123_x", "/api/v1/delivery/[redacted]"),
        (
            "/images/car.png?brand=bmw&key=cimg_secret&w=3",
            "/images/car.png?brand=bmw&key=[redacted]&w=3",
        ),
        ("/billing/portal?token=abc.def", "/billing/portal?token=[redacted]"),
        ("/images/car.png?exp=1&sig=deadbeef", "/images/car.png?exp=1&sig=[redacted]"),
        ("/api/v1/vehicles?q=porsche", "/api/v1/vehicles?q=porsche"),
    ],
)
def test_secrets_in_paths_are_redacted(path: str, expected: str) -> None:
    assert redact(path) == expected


TOKEN = "Qw3rTy_uIoP-aSdFgHjKlZxCvBnM0123456789abcd"  # the shape of a delivery token: 43


@pytest.mark.parametrize(
    "path",
    [
        f"/api/v1/delivery//{TOKEN}",
        f"/api/v1/Delivery/{TOKEN}",
        f"/api/v1//delivery/{TOKEN}",
        f"/API/V1/DELIVERY/{TOKEN}/",
        f"/api/v1/delivery%2F{TOKEN}",
        f"/api/v1\\delivery\\{TOKEN}",
        "/api/v1/delivery//short-token?x=1",
    ],
)
def test_delivery_tokens_on_near_miss_paths_are_redacted(path: str) -> None:
    redacted = redact(path)
    assert TOKEN not in redacted and "short-token" not in redacted
    assert REDACTED in redacted and redact(path) == scrub(path)


def test_a_token_shaped_path_segment_is_redacted_on_any_route() -> None:
    assert redact(f"/api/v1/delivey/{TOKEN}?x=1") == f"/api/v1/delivey/{REDACTED}?x=1"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Authorization: Bearer cimg_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg", "AbCdEfGh"),
        ("headers {'x-api-key': 'cimg_zzzzzzzzzzzz'}", "zzzzzzzz"),
        ("sent bearer cat_0123456789abcdef", "0123456789"),
        ("refresh crt_0123456789abcdef failed", "0123456789"),
        ("cookie: carimg_session=payload.signature; theme=dark", "payload.signature"),
        ("set carimg_playground=abc.def for the visitor", "abc.def"),
        ("stripe said whsec_0123456789abcdef", "0123456789"),
        ("GET /oauth/callback?code=cac_0123456789&state=s", "0123456789"),
        ("/api/v1/delivery/tokEN_value-123?x=1", "tokEN_value"),
    ],
)
def test_secrets_anywhere_in_a_message_are_scrubbed(text: str, secret: str) -> None:
    scrubbed = scrub(text)
    assert secret not in scrubbed and "[redacted]" in scrubbed


def test_the_route_template_of_delivery_urls_stays_readable() -> None:
    assert scrub("/api/v1/delivery/{token}") == "/api/v1/delivery/{token}"


def test_a_json_record_carries_the_request_fields_and_a_scrubbed_traceback() -> None:
    try:
        raise RuntimeError("bad key cimg_0123456789abcdefghij")
    except RuntimeError:
        record = logging.LogRecord(
            "carimg.images", logging.ERROR, "", 0, "render failed for %s", ("x",), sys.exc_info()
        )
    record.request_id = "req_1"
    record.status = 502
    line = json.loads(JsonFormatter().format(record))
    assert line["message"] == "render failed for x"
    assert (line["level"], line["logger"], line["request_id"], line["status"]) == (
        "error",
        "carimg.images",
        "req_1",
        502,
    )
    assert "RuntimeError" in line["exception"] and "0123456789" not in line["exception"]
