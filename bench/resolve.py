#!/usr/bin/env python3
"""Free-text resolver evaluation: top-1 accuracy over `tests/data/resolver_eval.jsonl`.

Run: `.venv/bin/python bench/resolve.py [--write] [--failures]` (goal: top-1 at least 95 %).
Top-1: the resolved make slug and model slug equal the expected ones. Year accuracy: over the
phrases with an expected year, the resolved vehicle's year equals it (the nearest available year
when the asked one is missing). `--write` replaces the `## Resolver` section of `bench/RESULTS.md`
and leaves every other section alone.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from carimg.catalog import Catalog, load_catalog
from carimg.domain.resolver import Resolution, Unresolved, resolve

ROOT = Path(__file__).resolve().parent.parent
EVAL_SET = ROOT / "tests" / "data" / "resolver_eval.jsonl"
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## Resolver"
DATE = "2026-11-22"
MISS_NOTES = (
    "Left as misses on purpose: the catalog has both Dodge `Ram 1500` (1991–2025) and Ram `1500` "
    "(2013–2026), and `dodge ram 1500` names Dodge's literally (the expectation was written for "
    "the current brand); `sportster iron 883` names three Harley-Davidson catalog models at once "
    "(Sportster, Iron, 883) and the resolver takes the one with most model years.",
)


@dataclass(frozen=True, slots=True)
class Case:
    query: str
    make: str
    model: str
    year: int | None


@dataclass(frozen=True, slots=True)
class Outcome:
    case: Case
    resolution: Resolution | None
    seconds: float

    @property
    def got(self) -> str:
        if self.resolution is None:
            return "unresolved"
        vehicle = self.resolution.vehicle
        return f"{vehicle.make.slug}/{vehicle.model.slug} {vehicle.year}"

    @property
    def top1(self) -> bool:
        r = self.resolution
        return (
            r is not None
            and r.vehicle.make.slug == self.case.make
            and r.vehicle.model.slug == self.case.model
        )

    @property
    def year_ok(self) -> bool:
        return self.resolution is not None and self.resolution.vehicle.year == self.case.year


def load_cases(path: Path = EVAL_SET) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            cases.append(Case(row["query"], row["make"], row["model"], row["year"]))
    return cases


def evaluate(catalog: Catalog, cases: list[Case]) -> list[Outcome]:
    outcomes = []
    for case in cases:
        start = time.perf_counter()
        try:
            resolution: Resolution | None = resolve(catalog, case.query)
        except Unresolved:
            resolution = None
        outcomes.append(Outcome(case, resolution, time.perf_counter() - start))
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, float]:
    with_year = [o for o in outcomes if o.case.year is not None]
    top1 = [o for o in outcomes if o.top1]
    return {
        "phrases": len(outcomes),
        "top1": len(top1) / len(outcomes),
        "top1_count": len(top1),
        "year_phrases": len(with_year),
        "year_accuracy": sum(o.year_ok for o in with_year) / max(1, len(with_year)),
        "year_count": sum(o.year_ok for o in with_year),
        "median_ms": statistics.median(o.seconds for o in outcomes) * 1000,
        "p95_ms": sorted(o.seconds for o in outcomes)[int(len(outcomes) * 0.95) - 1] * 1000,
        "max_ms": max(o.seconds for o in outcomes) * 1000,
    }


def section(outcomes: list[Outcome], figures: dict[str, float]) -> str:
    confidence = Counter(o.resolution.confidence for o in outcomes if o.resolution)
    correct_by_conf = Counter(o.resolution.confidence for o in outcomes if o.resolution and o.top1)
    failures = [o for o in outcomes if not o.top1]
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python bench/resolve.py --write` — {DATE}, this machine: "
        f"{platform.machine()}, Python {platform.python_version()}, one process, in process "
        "(catalog loaded before timing). Evaluation set: `tests/data/resolver_eval.jsonl`, "
        f"{int(figures['phrases'])} phrases written before the resolver existed (typos, word "
        "order, aliases, punctuation, colors and synonyms, views, sizes and formats, motorcycles, "
        "trucks, vans, kei cars, UK/Asian/Malaysian models, years outside a model's range).",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| top-1 (make and model slug) | {figures['top1']:.1%} "
        f"({int(figures['top1_count'])}/{int(figures['phrases'])}) | ≥ 95 % |",
        f"| year right, where a year is expected | {figures['year_accuracy']:.1%} "
        f"({int(figures['year_count'])}/{int(figures['year_phrases'])}) | |",
        f"| resolve time, median | {figures['median_ms']:.2f} ms | |",
        f"| resolve time, p95 / max | {figures['p95_ms']:.1f} ms / {figures['max_ms']:.1f} ms | |",
    ]
    for level in ("high", "medium", "low"):
        if confidence[level]:
            share = correct_by_conf[level] / confidence[level]
            lines.append(
                f"| confidence {level}: phrases, top-1 among them | {confidence[level]}, "
                f"{share:.1%} | |"
            )
    lines += [
        "",
        "The set was written before the resolver, but the resolver was then improved while "
        "looking at its misses (phrase aliases such as `silverado 2500` → Silverado HD, body "
        "words such as `super duty`, typo matching within a named make, leaving an unknown word "
        "out), so these are in-sample figures, not a blind test. Timings are wall clock on 2 "
        "cores shared with other jobs; a phrase costs one to a few catalog searches, the slow "
        "tail is phrases that fall through to typo matching.",
    ]
    lines += ["", f"Misses ({len(failures)}):", ""]
    lines += [
        f"- `{o.case.query}` → {o.got} (expected {o.case.make}/{o.case.model})" for o in failures
    ]
    if failures:
        lines += ["", *MISS_NOTES]
    return "\n".join(lines) + "\n"


def write_section(text: str, path: Path = RESULTS) -> None:
    """Replace (or append) the `## Resolver` section; other sections stay byte for byte."""
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = current.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == SECTION), None)
    if start is None:
        joined = current.rstrip("\n")
        path.write_text((joined + "\n\n" if joined else "") + text, encoding="utf-8")
        return
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "".join(lines[end:])
    path.write_text("".join(lines[:start]) + text + ("\n" + tail if tail else ""), "utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="update bench/RESULTS.md")
    parser.add_argument("--failures", action="store_true", help="print every miss")
    args = parser.parse_args()
    catalog = load_catalog()
    cases = load_cases()
    evaluate(catalog, cases[:20])  # warm up
    outcomes = evaluate(catalog, cases)
    figures = summary(outcomes)
    print(f"machine: {platform.machine()}, python {platform.python_version()}")
    print(
        f"top-1: {figures['top1']:.1%} ({int(figures['top1_count'])}/{len(cases)}); "
        f"year: {figures['year_accuracy']:.1%} "
        f"({int(figures['year_count'])}/{int(figures['year_phrases'])}); "
        f"median {figures['median_ms']:.2f} ms, p95 {figures['p95_ms']:.1f} ms, "
        f"max {figures['max_ms']:.1f} ms"
    )
    if args.failures:
        for o in outcomes:
            if not o.top1 or (o.case.year is not None and not o.year_ok):
                print(
                    f"  {o.case.query!r}: got {o.got}, expected "
                    f"{o.case.make}/{o.case.model} {o.case.year}"
                )
    if args.write:
        write_section(section(outcomes, figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
