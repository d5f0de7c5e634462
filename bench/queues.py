"""Task queues on Redis compared for the render queue: arq, Dramatiq and Celery.

Run: `PYTHONPATH=<dir with dramatiq and celery> .venv/bin/python bench/queues.py` — Dramatiq and
Celery are not project dependencies: install them into a scratch directory first, e.g.
`.venv/bin/pip install --target /tmp/q "dramatiq[redis]" "celery[redis]"` (then delete the
`redis` package it brings, so the project's redis-py is the one imported). A queue that cannot
be imported is skipped.

Each queue in turn gets the bench's own redis-server (a free port, emptied between queues), one
worker process with 8 concurrent slots and a no-op task (the job's payload is what a render job
sends); the figures are the queue's own overhead: enqueue -> result round trips one at a time
(latency), and 2,000 jobs enqueued at once until the last result (throughput). Prints a
Markdown table.
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

ROUND_TRIPS = 200
BURST = 2000
PAYLOAD = ("0" * 40, ["toyota", "camry", 2020, "sedan", 0], "front-3-4", "red")

TASKS = textwrap.dedent(
    """
    import os
    URL = os.environ["BENCH_REDIS"]

    # arq
    async def render(ctx, key, appearance, view, paint):
        return {"ok": True}

    class ArqSettings:
        from arq.connections import RedisSettings
        functions = [render]
        redis_settings = RedisSettings.from_dsn(URL)
        max_jobs = 8
        poll_delay = 0.02
        keep_result = 60

    # dramatiq
    try:
        import dramatiq
        from dramatiq.brokers.redis import RedisBroker
        from dramatiq.results import Results
        from dramatiq.results.backends import RedisBackend

        broker = RedisBroker(url=URL)
        broker.add_middleware(Results(backend=RedisBackend(url=URL)))
        dramatiq.set_broker(broker)

        @dramatiq.actor(store_results=True)
        def dramatiq_render(key, appearance, view, paint):
            return {"ok": True}
    except ImportError:
        pass

    # celery
    try:
        from celery import Celery

        celery_app = Celery("bench_tasks", broker=URL, backend=URL)
        celery_app.conf.worker_prefetch_multiplier = 1

        @celery_app.task(name="render")
        def celery_render(key, appearance, view, paint):
            return {"ok": True}
    except ImportError:
        pass
    """
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def summary(name: str, latencies: list[float], burst_seconds: float) -> str:
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    return (
        f"| {name} | {statistics.median(latencies) * 1000:.1f} ms | {p95 * 1000:.1f} ms | "
        f"{BURST / burst_seconds:.0f} jobs/s |"
    )


def run_arq(url: str) -> tuple[list[float], float]:
    from arq import create_pool
    from arq.connections import RedisSettings

    async def main() -> tuple[list[float], float]:
        redis = await create_pool(RedisSettings.from_dsn(url))
        latencies = []
        for _ in range(ROUND_TRIPS):
            started = time.perf_counter()
            job = await redis.enqueue_job("render", *PAYLOAD)
            assert job is not None
            await job.result(timeout=30, poll_delay=0.02)
            latencies.append(time.perf_counter() - started)
        started = time.perf_counter()
        jobs = [await redis.enqueue_job("render", *PAYLOAD) for _ in range(BURST)]
        await asyncio.gather(*(j.result(timeout=120, poll_delay=0.02) for j in jobs if j))
        burst = time.perf_counter() - started
        await redis.aclose()
        return latencies, burst

    return asyncio.run(main())


def run_dramatiq(url: str) -> tuple[list[float], float]:
    import bench_tasks  # type: ignore[import-not-found]

    actor = bench_tasks.dramatiq_render
    latencies = []
    for _ in range(ROUND_TRIPS):
        started = time.perf_counter()
        actor.send(*PAYLOAD).get_result(block=True, timeout=30_000)
        latencies.append(time.perf_counter() - started)
    started = time.perf_counter()
    messages = [actor.send(*PAYLOAD) for _ in range(BURST)]
    for message in messages:
        message.get_result(block=True, timeout=120_000)
    return latencies, time.perf_counter() - started


def run_celery(url: str) -> tuple[list[float], float]:
    import bench_tasks

    task = bench_tasks.celery_render
    latencies = []
    for _ in range(ROUND_TRIPS):
        started = time.perf_counter()
        task.delay(*PAYLOAD).get(timeout=30)
        latencies.append(time.perf_counter() - started)
    started = time.perf_counter()
    results = [task.delay(*PAYLOAD) for _ in range(BURST)]
    for result in results:
        result.get(timeout=120)
    return latencies, time.perf_counter() - started


QUEUES: dict[str, tuple[str, list[str], Callable[[str], tuple[list[float], float]]]] = {
    "arq 0.28 (asyncio; polls Redis every 20 ms)": (
        "arq", ["-m", "arq", "bench_tasks.ArqSettings"], run_arq
    ),
    "Dramatiq 2 (threads; Redis results backend)": (
        "dramatiq",
        ["-m", "dramatiq", "bench_tasks", "--processes", "1", "--threads", "8"],
        run_dramatiq,
    ),
    "Celery 5 (threads pool; Redis broker and backend)": (
        "celery",
        ["-m", "celery", "-A", "bench_tasks.celery_app", "worker", "-P", "threads", "-c", "8",
         "--without-heartbeat", "--without-mingle", "--without-gossip", "-l", "warning"],
        run_celery,
    ),
}  # fmt: skip


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="carimg-queues-"))
    (work / "bench_tasks.py").write_text(TASKS)
    sys.path.insert(0, str(work))
    rows = []
    port = free_port()  # one Redis of the bench's own: bench_tasks binds its URL once
    url = f"redis://127.0.0.1:{port}/0"
    os.environ["BENCH_REDIS"] = url
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(work), *sys.path[1:]])}
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    time.sleep(0.3)
    try:
        for name, (module, worker_args, run) in QUEUES.items():
            try:
                __import__(module)
            except ImportError:
                print(f"skipped {name}: not installed", file=sys.stderr)
                continue
            subprocess.run(["redis-cli", "-p", str(port), "flushall"], capture_output=True)
            worker = subprocess.Popen(
                [sys.executable, *worker_args], env=env, cwd=work,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            try:
                time.sleep(3)  # the worker is up and polling
                latencies, burst = run(url)
                rows.append(summary(name, latencies, burst))
                print(rows[-1], flush=True)
            finally:
                worker.terminate()
                worker.wait(timeout=30)
    finally:
        redis.terminate()
        redis.wait(timeout=10)
    print("\n| queue | round trip, median | round trip, p95 | throughput (1 worker, 8 slots) |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
