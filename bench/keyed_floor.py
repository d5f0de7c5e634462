#!/usr/bin/env python3
"""How near nginx a billed keyed image can come at all: carimg's keyed row next to its floor.

The floor is bench/floor_app.py, a bare ASGI app doing only what every billed request must
(hash and look up the key, count two rate windows, write the debit as carimg writes it on
SQLite, answer the image with its headers), served by granian like carimg's fastest row. Measured
with wrk side by side in one run, each row once per round (nginx first), keys rotating over 50
accounts as in bench/serve.py:
  1. nginx serving the same bytes as a static file (the reference);
  2. the floor without the debit (`FLOOR_WRITES=none`);
  3. the floor with the debit as carimg writes it, at carimg's durability (`durable`);
  4. the same rows written by one statement per turn through a trigger (`batched`): what the
     cheapest SQL for the debit would give;
  5. the floor with the debit unsynced (`unsynced`: synchronous=OFF, which a ledger cannot
     accept; shown to say where the time goes);
  6. carimg's keyed image endpoint under granian (`carimg serve`).
Writes the `## Keyed floor` section of bench/RESULTS.md.

Run: `.venv/bin/python bench/keyed_floor.py [--seconds 6] [--rounds 5]`
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from serve import (
    KEY_ROTATION_LUA,
    TABLE_HEAD,
    Carimg,
    Run,
    ensure_tools,
    free_port,
    prepare_with,
    serve,
    start_nginx,
    table_rows,
    write_section,
    wrk,
)

FLOORS = ("none", "durable", "batched", "unsynced")
FLOOR_LABELS = {
    "none": "floor, no debit",
    "durable": "floor, debit as carimg writes it (synchronous=NORMAL)",
    "batched": "floor, a turn's debits in one statement (synchronous=NORMAL)",
    "unsynced": "floor, debit unsynced (synchronous=OFF, not acceptable)",
}


def start_floor(work: Path, writes: str) -> tuple[subprocess.Popen[bytes], str, Path, Path]:
    """bench/floor_app.py under granian on a prepared carimg database of its own; the process,
    its URL, its keys' Lua script and keys file."""
    data_dir = work / f"floor-{writes}" / "var"
    keys = prepare_with(Carimg(f"floor {writes}"), data_dir)
    keys_file = data_dir.parent / "keys.txt"
    keys_file.write_text("\n".join(keys) + "\n")
    lua = data_dir.parent / "keys.lua"
    lua.write_text(KEY_ROTATION_LUA)
    port = free_port()
    env = {
        **os.environ,
        "FLOOR_IMAGE": str(work / "nginx" / "static" / "car.webp"),
        "FLOOR_DATABASE": str(data_dir / "carimg.db"),
        "FLOOR_WRITES": writes,
        "PYTHONPATH": str(Path(__file__).parent),
    }
    command = [sys.executable, "-m", "granian", "--interface", "asgi", "--loop", "uvloop"]
    command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    process = subprocess.Popen([*command, "floor_app:app"], env=env)
    url = f"http://127.0.0.1:{port}/api/v1/images/car"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            httpx.get(url, headers={"Authorization": f"Bearer {keys[0]}"}).raise_for_status()
            return process, url, lua, keys_file
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    sys.exit("the floor app did not start")


def debits(database: Path) -> int:
    with sqlite3.connect(database) as conn:
        return int(conn.execute("SELECT count(*) FROM ledger WHERE kind = 'debit'").fetchone()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ensure_tools()
    work = Path(tempfile.mkdtemp(prefix="carimg-floor-"))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        nginx, static_url = start_nginx(work, 1)
        processes.append(nginx)
        floors = {writes: start_floor(work, writes) for writes in FLOORS}
        processes += [floor[0] for floor in floors.values()]
        carimg = serve(Carimg("granian"), work, 1)
        processes.append(carimg.process)
        rounds: list[list[Run]] = []
        for _ in range(args.rounds):
            runs = [wrk("nginx static file", static_url, args.seconds, args.connections)]
            for writes, (_, floor_url, lua, keys_file) in floors.items():
                keys = {"CARIMG_BENCH_KEYS": str(keys_file)}
                runs.append(
                    wrk(FLOOR_LABELS[writes], floor_url, args.seconds, args.connections, lua, keys)
                )
            keys = {"CARIMG_BENCH_KEYS": str(carimg.keys_file)}
            label = "carimg keyed image, granian"
            url = carimg.keyed_url
            runs.append(wrk(label, url, args.seconds, args.connections, carimg.lua, keys))
            rounds.append(runs)
        billed = {
            writes: debits(work / f"floor-{writes}" / "var" / "carimg.db")
            for writes in FLOORS
            if writes != "none"
        }
        write_results(rounds, billed, args)
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)


def write_results(
    rounds: list[list[Run]], billed: dict[str, int], args: argparse.Namespace
) -> None:
    requests = {
        writes: sum(r[1 + FLOORS.index(writes)].requests for r in rounds) for writes in billed
    }
    lines = [
        "## Keyed floor",
        "",
        f"Measured {datetime.date.today().isoformat()} on {platform.machine()} "
        f"({os.cpu_count()} cores, shared by the servers, nginx and wrk), Python "
        f"{platform.python_version()}, `bench/keyed_floor.py --seconds {args.seconds} "
        f"--connections {args.connections} --rounds {args.rounds}`: wrk -t2 "
        f"-c{args.connections}, loopback, keys rotating over 50 accounts, one process per row "
        "(the floors and carimg under granian on uvloop), the same 256 px WebP bytes; every "
        "row measured once per round, the rounds one after the other in this one run.",
        "",
        *TABLE_HEAD,
        *table_rows(rounds),
        "",
        "The floors' debits (the ledger's debit entries against wrk's count): "
        + "; ".join(
            f"{writes}: {billed[writes]:,} for {requests[writes]:,} requests" for writes in billed
        )
        + ".",
        "",
    ]
    write_section("\n".join(lines))


if __name__ == "__main__":
    main()
