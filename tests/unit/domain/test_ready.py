"""ReadyAnswers: a memo bounded in entries and in the bytes its answers hold."""

from __future__ import annotations

from pathlib import Path

from carimg.config import Settings
from carimg.domain.ready import ReadyAnswers, share_of_cache


def test_an_answer_is_kept_under_its_key_and_replaced_by_the_next() -> None:
    ready: ReadyAnswers[str] = ReadyAnswers(1_000)
    assert ready.get("t") is None
    ready.put("t", "first", 10)
    ready.put("t", "second", 10)
    assert ready.get("t") == "second"
    assert len(ready) == 1


def test_a_full_memo_starts_over() -> None:
    ready: ReadyAnswers[str] = ReadyAnswers(1_000, entries=2)
    ready.put("a", "A", 1)
    ready.put("b", "B", 1)
    ready.put("c", "C", 1)
    assert (ready.get("a"), ready.get("b"), ready.get("c")) == (None, None, "C")


def test_the_bytes_held_are_bounded_and_a_replaced_answer_s_bytes_are_freed() -> None:
    ready: ReadyAnswers[str] = ReadyAnswers(100)
    ready.put("a", "A", 60)
    ready.put("a", "A again", 60)  # replaces: 60 bytes held, not 120
    assert ready.get("a") == "A again"
    ready.put("b", "B", 40)
    assert (ready.get("a"), ready.get("b")) == ("A again", "B")
    ready.put("c", "C", 1)  # past 100 bytes: starts over
    assert (ready.get("a"), ready.get("b"), ready.get("c")) == (None, None, "C")


def test_an_answer_larger_than_the_whole_budget_is_not_kept() -> None:
    ready: ReadyAnswers[str] = ReadyAnswers(100)
    ready.put("big", "B", 101)
    assert ready.get("big") is None


def test_a_memo_of_images_holds_a_quarter_of_the_image_cache(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, derived_cache_mb=64)
    assert share_of_cache(settings) == 16 * 2**20
