"""A pytest plugin: no secret in any log line of a test run.

It keeps every log record emitted in this test process, written as `carimg serve` writes it
(through `carimg.logs.JsonFormatter`, which scrubs), and at the end of the session reads the
logs of the real `carimg serve` and `carimg worker` processes the end-to-end tests started
(`*server*.log` and `*worker*.log` under the session's temporary directory). Any line that
shows a secret fails the run with the offending lines. Under xdist each worker scans its own
and hands its findings to the controller, which fails the run.

Registered from `tests/conftest.py` (`pytest_plugins`).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest

from carimg.logs import JsonFormatter

_OK = r"(?!\[redacted\])"  # what the scrubber writes instead of a secret
_NAMES = (
    r"key|api_key|apikey|token|access_token|refresh_token|sig|code|device_code|user_code|"
    r"client_secret|password"
)
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # plaintext keys are cimg_ + 43; a display prefix (cimg_ + 7) is fine
    ("API key", re.compile(r"(?<![A-Za-z0-9])cimg_" + _OK + r"[A-Za-z0-9_-]{16,}")),
    (
        "OAuth token or code",
        re.compile(r"(?<![A-Za-z0-9])(?:cat|crt|cac)_" + _OK + r"[A-Za-z0-9_-]{16,}"),
    ),
    (
        "delivery token",
        # near misses of the route too (`/api/v1/Delivery//…`): they carry valid tokens
        re.compile(r"/delivery/+" + _OK + r"(?!\{token\})[^/?#\s\"'\\]+", re.I),
    ),
    ("query secret", re.compile(rf"[?&](?:{_NAMES})=" + _OK + r"[^&#\s\"'\\]+", re.I)),
    (
        "secret field",
        re.compile(
            # a JSON member, also inside a JSON-escaped message (`\"`)
            r"\b(?:device_code|user_code|access_token|refresh_token|client_secret|"
            r"password|code_verifier)\\?[\"']?\s*[:=]\s*\\?[\"']" + _OK + r"[^\"'\\]{6,}",
            re.I,
        ),
    ),
    (
        "credential header",
        re.compile(
            r"\b(?:authorization|x-api-key)[\"']?\s*[:=,]\s*[\"']?(?:(?:bearer|basic)\s+)?"
            + _OK
            + r"[A-Za-z0-9._~+/=-]{8,}",
            re.I,
        ),
    ),
    ("bearer credential", re.compile(r"\bbearer\s+" + _OK + r"[A-Za-z0-9._~+/=-]{8,}", re.I)),
    ("cookie", re.compile(r"\bcarimg_(?:session|csrf|playground)=" + _OK + r"[^;\s&\"'\\]+")),
)
PROCESS_LOGS = ("*server*.log", "*worker*.log")  # carimg processes the e2e tests start
_LIMIT = 50  # offending lines kept for the report


def find_secrets(line: str) -> list[str]:
    """The kinds of secret `line` shows (empty when none)."""
    return [kind for kind, pattern in SECRET_PATTERNS if pattern.search(line)]


def process_logs(root: Path) -> list[Path]:
    return sorted({path for glob in PROCESS_LOGS for path in root.rglob(glob) if path.is_file()})


def scan_files(root: Path) -> list[str]:
    found = []
    for path in process_logs(root):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            kinds = find_secrets(line)
            if kinds:
                found.append(f"{path}:{number}: [{', '.join(kinds)}] {line[:400]}")
    return found


class SecretLogHandler(logging.Handler):
    """Writes each record as the server would and keeps the lines that show a secret."""

    def __init__(self, formatter: logging.Formatter | None = None) -> None:
        super().__init__(logging.NOTSET)
        self.setFormatter(formatter or JsonFormatter())
        self.found: list[str] = []
        self.seen = 0

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:  # a record that cannot be written is not ours to judge
            return
        self.seen += 1
        kinds = find_secrets(line)
        if kinds and len(self.found) < _LIMIT:
            self.found.append(f"log record: [{', '.join(kinds)}] {line[:400]}")


_KEY = pytest.StashKey[SecretLogHandler]()
_FOUND = pytest.StashKey[list[str]]()
_CHECKED = pytest.StashKey[list[int]]()  # records, process log files
# carimg's own loggers write INFO (the access log) in `carimg serve`; in process they would
# stay at the root's WARNING and their lines would never be looked at.
_CARIMG_LEVEL = logging.INFO


def pytest_sessionstart(session: pytest.Session) -> None:
    handler = SecretLogHandler()
    logging.getLogger().addHandler(handler)
    carimg = logging.getLogger("carimg")
    if carimg.level == logging.NOTSET or carimg.level > _CARIMG_LEVEL:
        carimg.setLevel(_CARIMG_LEVEL)
    session.config.stash[_KEY] = handler
    session.config.stash[_FOUND] = []
    session.config.stash[_CHECKED] = [0, 0]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist controller: a worker's findings."""
    output = getattr(node, "workeroutput", {})
    node.config.stash.setdefault(_FOUND, []).extend(output.get("secrets_in_logs", []))
    checked = node.config.stash.setdefault(_CHECKED, [0, 0])
    for index, count in enumerate(output.get("logs_checked", [0, 0])):
        checked[index] += count


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    handler = config.stash.get(_KEY, None)
    found = config.stash.setdefault(_FOUND, [])
    checked = config.stash.setdefault(_CHECKED, [0, 0])
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        found.extend(handler.found)
        checked[0] += handler.seen
    # only where this process made temporary files (an xdist controller makes none)
    factory = getattr(config, "_tmp_path_factory", None)
    basetemp = getattr(factory, "_basetemp", None)
    if basetemp is not None and basetemp.exists():
        found.extend(scan_files(basetemp)[:_LIMIT])
        checked[1] += len(process_logs(basetemp))
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports and fails the run
        workeroutput["secrets_in_logs"] = found
        workeroutput["logs_checked"] = checked
        return
    if found and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    found = config.stash.get(_FOUND, [])
    records, files = config.stash.get(_CHECKED, [0, 0])
    terminalreporter.write_line(
        f"secrets in logs: {len(found)} found in {records} log records and {files} process logs"
    )
    if found:
        terminalreporter.section("secrets in logs", sep="=", red=True, bold=True)
        for line in found[:_LIMIT]:
            terminalreporter.line(line, red=True)
