"""The log plugin finds what it looks for and passes what the scrubber writes."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from carimg.domain import keys
from carimg.logs import scrub
from tests.security.logscan import SecretLogHandler, find_secrets, scan_files

KEY = "cimg_" + "Q7r" * 14 + "x"  # fixed: xdist workers must collect the same ids
assert keys.is_well_formed(KEY)
TOKEN = "Zx9" + "a" * 40
LEAKS = {
    "API key": f"created {KEY}",
    "OAuth token or code": f"refresh crt_{TOKEN}",
    "delivery token": f'"GET /api/v1/delivery/{TOKEN} HTTP/1.1" 200',
    "delivery token on a near miss": f'"GET /api/v1/Delivery//{TOKEN} HTTP/1.1" 404',
    "query secret": f"GET /images/car.png?make=bmw&sig={'ab' * 32}",
    "secret field": f'{{"device_code": "{TOKEN}"}}',
    "credential header": f"Authorization: Bearer {TOKEN}",
    "cookie": f"Cookie: theme=1; carimg_session={TOKEN}",
}


@pytest.mark.parametrize(("kind", "line"), LEAKS.items())
def test_each_kind_of_secret_is_found(kind: str, line: str) -> None:
    assert kind.removesuffix(" on a near miss") in find_secrets(line)


@pytest.mark.parametrize("line", [line for line in LEAKS.values() if "device_code" not in line])
def test_a_scrubbed_line_passes(line: str) -> None:
    assert find_secrets(scrub(line)) == []


@pytest.mark.parametrize(
    "line",
    [
        f"key {keys.display_prefix(KEY)}… revoked",  # display prefixes are shown on purpose
        '"GET /api/v1/delivery/{token}" route',
        "user-1234@example.com signed in",
        "POST /api/v1/image-urls 201",
    ],
)
def test_harmless_lines_pass(line: str) -> None:
    assert find_secrets(line) == []


def test_the_handler_writes_records_as_the_server_does_and_keeps_leaks() -> None:
    """The scrubber misses a device code written as a JSON member; the plugin does not."""
    handler = SecretLogHandler()
    logger = logging.getLogger("carimg.security-selftest")
    logger.addHandler(handler)
    logger.propagate = False  # kept from this run's own check, which would fail on it
    try:
        logger.warning("key %s used", KEY)  # scrubbed on the way out: fine
        logger.warning('{"device_code": "%s"}', TOKEN)  # not scrubbed: found
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    assert handler.seen == 2
    assert len(handler.found) == 1 and "secret field" in handler.found[0]


def test_process_logs_are_scanned(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "server-1234.log").write_text(f'{{"path": "/api/v1/delivery/{TOKEN}"}}\n')
    (tmp_path / "worker.log").write_text("rendered source\n")
    (tmp_path / "error.log").write_text(f"nginx: /api/v1/delivery/{TOKEN}\n")  # not ours
    found = scan_files(tmp_path)
    _remove_planted_logs(tmp_path)
    assert len(found) == 1 and "server-1234.log:1" in found[0]


def _remove_planted_logs(root: Path) -> None:
    """This run's own check reads the session's temporary files: planted leaks go."""
    for path in root.rglob("*.log"):
        path.unlink(missing_ok=True)


pytest_plugins = ["pytester"]


@pytest.mark.parametrize("mode", [("-p", "no:xdist"), ("-n", "2")], ids=["serial", "xdist"])
def test_a_leak_anywhere_in_a_run_fails_the_run(
    pytester: pytest.Pytester, mode: tuple[str, str]
) -> None:
    root = Path(__file__).resolve().parents[2]
    pytester.makeconftest(
        f"import sys\nsys.path.insert(0, {str(root)!r})\n"
        "pytest_plugins = ['tests.security.logscan']\n"
    )
    pytester.makepyfile(
        test_leak=f"""
import logging
def test_logs_a_device_code():
    logging.getLogger("carimg.x").warning('{{"device_code": "{TOKEN}"}}')
def test_writes_a_server_log(tmp_path):
    (tmp_path / "server.log").write_text("GET /api/v1/delivery/{TOKEN}\\n")
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *mode)
    _remove_planted_logs(pytester.path)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*secrets in logs*", "*secret field*", "*server.log:1*"])
