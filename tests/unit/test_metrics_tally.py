"""metrics.TurnTally: Prometheus updates gathered per event-loop turn (at most one flush a
millisecond), applied as they would be."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram

from carimg import metrics
from carimg.metrics import TurnTally

BOUNDS = (0.002, 0.005, 0.01, 0.05, 1.0)
# on a bound, between bounds, below the first, above the last
VALUES = [0.001, 0.002, 0.003, 0.005, 0.0051, 0.04, 0.05, 0.7, 1.0, 3.0, 0.002]


def _histogram(registry: CollectorRegistry) -> Histogram:
    return Histogram(f"h_{uuid.uuid4().hex}", "test", ["route"], buckets=BOUNDS, registry=registry)


def _samples(registry: CollectorRegistry) -> list[tuple[str, dict[str, str], float]]:
    return [
        (sample.name.split("_", 2)[-1], sample.labels, sample.value)
        for metric in registry.collect()
        for sample in metric.samples
        if not sample.name.endswith("_created")
    ]


def test_gathered_observations_give_the_buckets_and_sum_that_one_by_one_observing_gives() -> None:
    one_by_one, gathered = CollectorRegistry(), CollectorRegistry()
    direct = _histogram(one_by_one).labels("/x")
    for value in VALUES:
        direct.observe(value)
    tally = TurnTally()
    child = _histogram(gathered).labels("/x")
    for value in VALUES:
        tally.observe(child, value)
    tally.flush()
    assert _samples(gathered) == _samples(one_by_one)


def test_updates_outside_an_event_loop_apply_at_once() -> None:
    counter = Counter(f"c_{uuid.uuid4().hex}", "test", registry=CollectorRegistry())
    TurnTally().inc(counter, 3)
    assert counter._value.get() == 3


async def test_updates_inside_a_turn_apply_when_the_turn_ends() -> None:
    counter = Counter(f"c_{uuid.uuid4().hex}", "test", registry=CollectorRegistry())
    tally = TurnTally()
    tally.inc(counter)
    tally.inc(counter)
    assert counter._value.get() == 0, "still this turn"
    await asyncio.sleep(0)
    assert counter._value.get() == 2


async def _just_flushed(
    monkeypatch: pytest.MonkeyPatch, interval: float
) -> tuple[TurnTally, Counter]:
    """A tally with FLUSH_INTERVAL `interval` that has just flushed its counter's first update."""
    monkeypatch.setattr(metrics, "FLUSH_INTERVAL", interval)
    counter = Counter(f"c_{uuid.uuid4().hex}", "test", registry=CollectorRegistry())
    tally = TurnTally()
    tally.inc(counter)
    await asyncio.sleep(0)
    assert counter._value.get() == 1, "the first turn's update, at once"
    return tally, counter


async def test_updates_soon_after_a_flush_wait_for_the_flush_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # under granian every request is a turn of its own: a flush per turn was one per request
    tally, counter = await _just_flushed(monkeypatch, 0.2)
    tally.inc(counter)
    await asyncio.sleep(0)
    assert counter._value.get() == 1, "within the interval of the last flush: gathered"
    await asyncio.sleep(0.3)
    assert counter._value.get() == 2, "applied once the interval has passed"


async def test_a_scrape_sees_updates_still_waiting_for_the_interval(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tally, counter = await _just_flushed(monkeypatch, 10.0)
    tally.inc(counter)
    tally.flush()  # what /metrics does before it collects
    assert counter._value.get() == 2
