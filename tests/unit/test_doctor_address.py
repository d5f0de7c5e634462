"""`carimg doctor` names a server that mints URLs on another address than the one it reached."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from carimg.cli.doctor import Doctor, Outcome, run_check


def _doctor(reached: str) -> Doctor:
    return Doctor(cast(Any, SimpleNamespace(base_url=reached)), spend=False)


def test_urls_minted_on_another_address_fail_with_a_fix() -> None:
    doctor = _doctor("http://127.0.0.1:8123")

    def probe() -> Outcome:
        doctor.same_address("http://127.0.0.1:8000/docs/errors#400", 400)
        return Outcome("unreachable")

    check = run_check("image-urls", probe)
    assert check.status == "fail"
    assert "http://127.0.0.1:8000" in check.detail and "http://127.0.0.1:8123" in check.detail
    assert check.fix is not None and "CARIMG_BASE_URL=http://127.0.0.1:8123" in check.fix


@pytest.mark.parametrize(
    "minted", ["http://127.0.0.1:8123/api/v1/delivery/abc", "http://127.0.0.1:8123/docs/errors#400"]
)
def test_urls_minted_on_the_address_reached_pass(minted: str) -> None:
    _doctor("http://127.0.0.1:8123/").same_address(minted, 201)
