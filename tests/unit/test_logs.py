"""Access logs never carry keys, tokens or signatures."""

from __future__ import annotations

import logging

import pytest

from carimg.logs import RedactSecrets, redact


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


def test_the_access_log_filter_rewrites_the_path_argument() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/api/v1/delivery/tok", "1.1", 200),
        None,
    )
    assert RedactSecrets().filter(record)
    assert "tok" not in record.getMessage() and "[redacted]" in record.getMessage()
