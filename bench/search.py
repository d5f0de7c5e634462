#!/usr/bin/env python3
"""Catalog search benchmark: per-query median over realistic queries, in process.

Run: `.venv/bin/python bench/search.py` (target: median under 2 ms).
"""

from __future__ import annotations

import platform
import statistics
import time

from carimg.catalog import load_catalog

QUERIES = [
    # make + model, as typed
    "toyota camry", "honda civic", "ford f-150", "f150", "chevy silverado 1500", "ram 1500",
    "tesla model 3", "tesla model y", "bmw 3 series", "bmw x5", "audi a4", "audi q5",
    "mercedes c class", "merc e-class", "vw golf", "volkswagen jetta", "nissan altima",
    "nissan rogue", "hyundai elantra", "kia sorento", "subaru outback", "mazda cx-5",
    "mazda mx-5 miata", "jeep wrangler", "jeep grand cherokee", "gmc sierra", "honda cr-v",
    "crv", "toyota rav4", "rav 4", "lexus rx", "porsche 911", "porsche cayenne", "mini cooper",
    "land rover defender", "range rover sport", "volvo xc90", "alfa giulia", "fiat 500",
    "dodge charger", "dodge challenger", "chevrolet corvette", "ford mustang", "ford transit",
    "mercedes sprinter", "toyota sienna", "honda odyssey", "chrysler pacifica", "toyota tacoma",
    "toyota tundra", "nissan frontier", "honda n-box", "suzuki wagon r", "daihatsu tanto",
    "perodua myvi", "proton saga", "harley davidson street glide", "ducati monster",
    "yamaha r1", "kawasaki ninja", "vespa primavera", "honda pcx", "bajaj re", "atul gem",
    "freightliner cascadia", "kenworth t680", "peterbilt 579", "isuzu npr", "blue bird vision",
    # with years, any order, partial words
    "2020 toyota camry", "camry 2018", "2015 honda accord", "2022 ford bronco",
    "2020 toy cam", "civic honda 2019", "2024 rivian r1t", "2010 bmw m3", "peugeot 2008",
    "2019 peugeot 3008", "1995 porsche 911", "2001 chevy s10",
    # makes alone and prefixes
    "toyota", "porsche", "merc", "hyund", "volks", "lambo", "aston",
    # typos
    "toyta camry", "hunda civic", "volkswagon golf", "porshe 911", "subaru outbak",
    "mercedez c class", "chevrolet silverdo",
]  # fmt: skip


def main() -> None:
    catalog = load_catalog()
    for query in QUERIES:  # warm up caches and lazy indexes
        catalog.search(query)
    timings: list[float] = []
    for query in QUERIES:
        runs = []
        for _ in range(20):
            start = time.perf_counter()
            catalog.search(query)
            runs.append(time.perf_counter() - start)
        timings.append(statistics.median(runs) * 1000)
    ordered = sorted(timings)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    print(f"machine: {platform.machine()}, python {platform.python_version()}")
    print(f"queries: {len(QUERIES)}, 20 runs each")
    print(f"per-query median: {statistics.median(timings):.3f} ms")
    print(f"p95 over queries: {p95:.3f} ms; max {ordered[-1]:.3f} ms")
    slowest = sorted(zip(timings, QUERIES, strict=True), reverse=True)[:5]
    print("slowest:", ", ".join(f"{q!r} {t:.2f} ms" for t, q in slowest))


if __name__ == "__main__":
    main()
