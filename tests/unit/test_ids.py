"""Time-ordered ids: 48 bits of milliseconds, then random bytes."""

from __future__ import annotations

import time

from carimg.domain.ids import ordered_hex


def test_an_ordered_id_starts_with_the_time_in_milliseconds() -> None:
    before = time.time_ns() // 1_000_000
    made = ordered_hex(10)
    after = time.time_ns() // 1_000_000
    assert len(made) == 12 + 20
    assert before <= int(made[:12], 16) <= after


def test_ids_of_one_millisecond_differ_in_their_random_part() -> None:
    made = [ordered_hex(8) for _ in range(5000)]
    assert len(set(made)) == 5000
    assert len({m[12:] for m in made}) == 5000


def test_ids_made_in_later_milliseconds_sort_later() -> None:
    earlier = [ordered_hex(4) for _ in range(50)]
    time.sleep(0.002)
    later = [ordered_hex(4) for _ in range(50)]
    assert max(earlier) < min(later)


def test_more_random_bytes_than_the_pool_holds_are_still_served() -> None:
    assert len(ordered_hex(5000)) == 12 + 10_000
