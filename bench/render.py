"""Renderer benchmark: cold source renders, start-up + first render, peak memory, derive time.

Run: `.venv/bin/python bench/render.py` (one core: it pins numba to one thread and, on Linux, the
process to one CPU). Prints a Markdown table for bench/RESULTS.md.

Render times are reported twice: wall clock, and the process's CPU time. On a machine shared with
other jobs the wall clock includes time spent waiting for the core; the CPU time is the closer
estimate of an idle core (it still pays for shared caches and memory bandwidth).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time

VEHICLES: list[tuple[str, str, int, str]] = [
    ("toyota", "camry", 2020, "sedan"),
    ("volkswagen", "golf", 2019, "hatchback"),
    ("ford", "f-150", 2021, "pickup"),
    ("honda", "odyssey", 2018, "minivan"),
    ("bmw", "m4", 2022, "coupe"),
    ("jeep", "grand-cherokee", 1998, "suv"),
    ("volvo", "7900", 2020, "bus"),
    ("yamaha", "mt-07", 2022, "motorcycle"),
]
VIEWS = ["front", "front-3-4", "side", "rear-3-4", "rear", "side-right"]
PAINTS = ["red", "silver", "blue", "white", "black", "#3a7d44"]

FIRST_RENDER = """
import time, json
t0 = time.perf_counter()
from carimg.render import Appearance, render_source
t1 = time.perf_counter()
render_source(Appearance("toyota", "camry", 2020, "sedan"), "front-3-4", "red")
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_render_s": t2 - t1}))
"""


def _one_core() -> None:
    os.environ["NUMBA_NUM_THREADS"] = "1"
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def startup() -> dict[str, float]:
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", FIRST_RENDER], capture_output=True, text=True, check=True
    )
    total = time.perf_counter() - t0
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    figures["process_total_s"] = total
    return figures


def main() -> None:
    _one_core()
    import resource

    import numpy as np

    from carimg.render import (
        Appearance,
        OutputSpec,
        derive,
        encode_source_png,
        render_source,
    )

    first = startup()
    render_source(Appearance("warm", "up", 2020, "sedan"), "side", "red")  # JIT cache loaded
    times: list[float] = []
    cpu_times: list[float] = []
    for i, (make, model, year, style) in enumerate(VEHICLES):
        for j, view in enumerate(VIEWS):
            app = Appearance(make, model, year, style)
            t = time.perf_counter()
            c = time.process_time()
            rgba = render_source(app, view, PAINTS[(i + j) % len(PAINTS)])
            cpu_times.append(time.process_time() - c)
            times.append(time.perf_counter() - t)
    t = time.perf_counter()
    png = encode_source_png(rgba)
    encode_s = time.perf_counter() - t
    derive_times = []
    derive_cpu = []
    for _ in range(20):
        t = time.perf_counter()
        c = time.process_time()
        webp = derive(rgba, OutputSpec(width=512, format="webp"))
        derive_cpu.append(time.process_time() - c)
        derive_times.append(time.perf_counter() - t)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ms = np.array(times) * 1000
    cpu = np.array(cpu_times) * 1000
    rows = {
        "renders": len(times),
        "cold render median ms": round(float(np.median(ms)), 1),
        "cold render p95 ms": round(float(np.percentile(ms, 95)), 1),
        "cold render max ms": round(float(ms.max()), 1),
        "cold render median ms (CPU time)": round(float(np.median(cpu)), 1),
        "cold render p95 ms (CPU time)": round(float(np.percentile(cpu, 95)), 1),
        "source PNG encode ms": round(encode_s * 1000, 1),
        "source PNG bytes": len(png),
        "derive 512 px WebP median ms": round(statistics.median(derive_times) * 1000, 1),
        "derive 512 px WebP median ms (CPU time)": round(statistics.median(derive_cpu) * 1000, 1),
        "512 px WebP bytes": len(webp.data),
        "import s": round(first["import_s"], 2),
        "first render after start s": round(first["first_render_s"], 2),
        "process start to first render s": round(first["process_total_s"], 2),
        "peak RSS MB": round(peak_mb, 1),
    }
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.processor() or ''}")
    print(f"python {platform.python_version()}, numpy {np.__version__}")
    print("| figure | value |\n|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
