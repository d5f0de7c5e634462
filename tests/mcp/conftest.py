"""The agent endpoint against a real `carimg serve` process (the e2e server fixture)."""

from __future__ import annotations

from tests.e2e.conftest import server  # noqa: F401  (the session's real server process)
