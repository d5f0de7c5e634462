#!/usr/bin/env python3
"""Serving benchmark: carimg next to nginx serving the same bytes, side by side in one run.

Measures with wrk (50 connections, loopback):
  1. nginx serving a 256 px WebP as a static file (the reference);
  2. `GET /api/v1/images/car` for that cached variant, every request authenticated with a key,
     counted against its rate windows and billed one credit (keys rotate over 50 accounts);
  3. `GET /api/v1/delivery/{token}` of an unlimited signed URL for the same variant;
for one carimg process (SQLite) under `carimg serve` (granian, on uvloop and on asyncio's own
loop) and, with `--before REF`, for the tree of an earlier commit, or of a checked-out tree when
REF is a directory (run with its `carimg serve`, `--server uvicorn` unless `--before-server`
says otherwise or `none` for a tree without the option); with `--plain-uvicorn`, also for this
tree under plain uvicorn (`uvicorn --factory`, uvicorn's own protocol on uvloop and httptools:
no carimg server runs it). `--workers N` gives nginx N worker processes and every carimg
server `--workers N` (both using the machine's cores). Every row is measured once per round
(nginx first), `--rounds` rounds in a row; the table gives medians, the ratio of medians to
nginx's, and each round's ratio range. Writes it into the `## Serving` section of
bench/RESULTS.md.

Run: `.venv/bin/python bench/serve.py [--seconds 10] [--connections 50] [--rounds 3]
[--before REF|DIR [--before-server uvicorn|granian|none]] [--only LABEL] [--plain-uvicorn]
[--workers N]`
(installs wrk and nginx from Debian when missing and running as root).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"
ACCOUNTS = 50
VARIANT = {"make": "toyota", "model": "camry", "year": 2020, "size": "thumb", "format": "webp"}

KEY_ROTATION_LUA = """
local keys = {}
for line in io.lines(os.getenv("CARIMG_BENCH_KEYS")) do keys[#keys + 1] = line end
local counter = math.random(#keys)
request = function()
  counter = counter + 1
  local key = keys[(counter % #keys) + 1]
  return wrk.format("GET", nil, {["Authorization"] = "Bearer " .. key})
end
"""

NGINX_CONF = """
{user}
worker_processes {workers};
daemon off;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  sendfile on;
  client_body_temp_path {root}/body;
  proxy_temp_path {root}/proxy;
  fastcgi_temp_path {root}/fastcgi;
  uwsgi_temp_path {root}/uwsgi;
  scgi_temp_path {root}/scgi;
  types {{ image/webp webp; }}
  server {{
    listen 127.0.0.1:{port};
    root {root}/static;
  }}
}}
"""


@dataclass
class Run:
    name: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ensure_tools() -> None:
    subprocess.run([str(ROOT / "scripts" / "ensure-nginx.sh")], check=False)
    if shutil.which("wrk") is None and os.geteuid() == 0:
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "wrk"],
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            capture_output=True,
            check=False,
        )
    for tool in ("wrk", "nginx"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is required (Debian: apt-get install {tool})")


def _milliseconds(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def wrk(
    name: str, url: str, seconds: int, connections: int, script: Path | None = None,
    env: dict[str, str] | None = None,
) -> Run:  # fmt: skip
    threads = min(2, connections)  # wrk needs at least one connection per thread
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", url]
    if script is not None:
        command[1:1] = ["-s", str(script)]
    out = subprocess.run(
        command, capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}
    ).stdout
    latency = dict(re.findall(r"^\s+(50|99)%\s+(\S+)\s*$", out, re.M))
    if "99" not in latency:
        sys.exit(f"unexpected wrk output:\n{out}")
    requests = int(re.search(r"(\d+) requests in", out).group(1))  # type: ignore[union-attr]
    errors_match = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return Run(
        name=name,
        requests_per_second=float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),  # type: ignore[union-attr]
        p50_ms=_milliseconds(latency["50"]),
        p99_ms=_milliseconds(latency["99"]),
        requests=requests,
        errors=int(errors_match.group(1)) if errors_match else 0,
    )


async def prepare(data_dir: Path) -> list[str]:
    """Enterprise accounts with plenty of credits, each with a key of its own large limit."""
    from carimg.catalog import load_catalog
    from carimg.config import Settings
    from carimg.render import RenderPool
    from carimg.services import build_services

    services = await build_services(
        Settings(data_dir=data_dir), load_catalog(), render_pool=RenderPool(0)
    )
    keys = []
    try:
        for index in range(ACCOUNTS):
            account = await services.accounts.create_account(
                f"bench{index}@example.com", credits=10_000_000, plan="enterprise"
            )
            key, _ = await services.accounts.create_key(account, rate_limit_per_minute=1_000_000)
            keys.append(key)
    finally:
        await services.close()
    return keys


async def debits(data_dir: Path) -> int:
    from sqlalchemy import func, select

    from carimg.store.db import create_engine
    from carimg.store.tables import ledger

    engine = create_engine(f"sqlite+aiosqlite:///{data_dir / 'carimg.db'}")
    async with engine.connect() as conn:
        total = await conn.scalar(select(func.count()).where(ledger.c.kind == "debit"))
    await engine.dispose()
    return int(total or 0)


def start_server(data_dir: Path, port: int, build: Carimg, workers: int) -> subprocess.Popen[bytes]:
    """`carimg serve` on SQLite in `data_dir`; a build with a `source` runs that tree's src/."""
    env = {
        **os.environ,
        "CARIMG_DATA_DIR": str(data_dir),
        "CARIMG_BASE_URL": f"http://127.0.0.1:{port}",
        "CARIMG_LOG_LEVEL": "warning",
        "CARIMG_EVENT_LOOP": build.event_loop,
    }
    server, source = build.server, build.source
    command = [sys.executable, "-m", "carimg", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(workers)]
    if server is not None:  # a tree from before carimg served under granian only
        command += ["--server", server]
    if build.plain_uvicorn:  # what carimg would serve at under uvicorn's public options
        command = [sys.executable, "-m", "uvicorn", "--factory", "carimg.app:create_app_from_env"]
        command += ["--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
        command += ["--no-access-log", "--log-level", "warning"]
    if source is not None:
        env["PYTHONPATH"] = _before(source)
    process = subprocess.Popen(command, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1)
            return process
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    sys.exit("carimg did not start")


def _before(source: Path) -> str:
    """PYTHONPATH for an older tree: its src/ first, then the caller's (where that tree's own
    dependencies may have been installed: an older carimg needed packages this one does not)."""
    return os.pathsep.join(filter(None, [str(source), os.environ.get("PYTHONPATH")]))


@dataclass
class Carimg:
    """One carimg build under one server (and event loop), with its own database."""

    label: str
    server: str | None = None  # `carimg serve --server` of an older tree
    source: Path | None = None
    event_loop: str = "auto"
    plain_uvicorn: bool = False  # `uvicorn --factory` instead of `carimg serve`


def _commit(ref: str) -> str:
    """`ref`'s short commit id (a directory: the commit checked out there)."""
    where = ref if Path(ref).is_dir() else str(ROOT)
    name = "HEAD" if Path(ref).is_dir() else ref
    done = subprocess.run(
        ["git", "-C", where, "rev-parse", "--short", name], capture_output=True, text=True
    )
    return done.stdout.strip() or ref


def checkout(ref: str, into: Path) -> Path:
    """The src/ of commit `ref`, unpacked (no worktree left behind), or of the tree at `ref`
    when that is a directory."""
    if Path(ref).is_dir():
        return Path(ref).resolve() / "src"
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "src"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


@dataclass
class Served:
    """A build's server, up, with its keys and its delivery URL."""

    build: Carimg
    process: subprocess.Popen[bytes]
    data_dir: Path
    keyed_url: str
    delivery_url: str
    keys_file: Path
    lua: Path


def prepare_with(build: Carimg, data_dir: Path) -> list[str]:
    """`prepare` run by the build's own tree (its migrations create the database), in a
    process of its own; the keys, one per line."""
    env = dict(os.environ)
    if build.source is not None:
        env["PYTHONPATH"] = _before(build.source)
    done = subprocess.run(
        [sys.executable, __file__, "--prepare", str(data_dir)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [word for word in done.stdout.split() if word.startswith("cimg_")]


def serve(build: Carimg, work: Path, workers: int) -> Served:
    """Start one build on a database of its own; its variant rendered, a URL minted."""
    data_dir = work / build.label.replace(" ", "-").replace("/", "-") / "var"
    keys = prepare_with(build, data_dir)
    keys_file = data_dir.parent / "keys.txt"
    keys_file.write_text("\n".join(keys) + "\n")
    lua = data_dir.parent / "keys.lua"
    lua.write_text(KEY_ROTATION_LUA)
    port = free_port()
    process = start_server(data_dir, port, build, workers)
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {keys[0]}"}
    httpx.get(f"{base}/api/v1/images/car", params=VARIANT, headers=auth, timeout=120)
    minted = httpx.post(
        f"{base}/api/v1/image-urls", json={**VARIANT, "ttl_seconds": 86400}, headers=auth
    )
    minted.raise_for_status()
    delivery_url = minted.json()["data"][0]["url"]
    httpx.get(delivery_url).raise_for_status()
    query = "&".join(f"{k}={v}" for k, v in VARIANT.items())
    keyed_url = f"{base}/api/v1/images/car?{query}"
    return Served(build, process, data_dir, keyed_url, delivery_url, keys_file, lua)


def measure(served: Served, args: argparse.Namespace) -> tuple[Run, Run, int]:
    """One round of keyed images and delivery loads; also the debits the keyed run wrote."""
    label = served.build.label
    before = asyncio.run(debits(served.data_dir))
    keyed = wrk(
        f"keyed image, {label}",
        served.keyed_url,
        args.seconds,
        args.connections,
        script=served.lua,
        env={"CARIMG_BENCH_KEYS": str(served.keys_file)},
    )
    billed = asyncio.run(debits(served.data_dir)) - before
    delivery = wrk(
        f"signed URL (unlimited, cached), {label}",
        served.delivery_url,
        args.seconds,
        args.connections,
    )
    return keyed, delivery, billed


def _processes(workers: int) -> str:
    if workers == 1:
        return "one carimg process (SQLite) per row, nginx 1 worker"
    return (
        f"{workers} carimg worker processes (one SQLite database) per row, nginx {workers} workers"
    )


def write_results(rounds: list[list[Run]], billing: list[str], args: argparse.Namespace) -> None:
    """One row per measurement: medians over the rounds; the ratio of medians to nginx's, and
    the lowest and highest ratio to the nginx run of the same round."""
    lines = [
        "## Serving",
        "",
        f"Measured {datetime.date.today().isoformat()} on {platform.machine()} "
        f"({os.cpu_count()} cores, shared by server, nginx and wrk), Python "
        f"{platform.python_version()}, `bench/serve.py --seconds {args.seconds} "
        f"--connections {args.connections} --rounds {args.rounds}"
        + (f" --before {args.before}" if args.before else "")
        + (f" --before-server {args.before_server}" if args.before_server != "uvicorn" else "")
        + (f" --only {args.only!r}" if args.only else "")
        + (" --plain-uvicorn" if args.plain_uvicorn else "")
        + (f" --workers {args.workers}" if args.workers != 1 else "")
        + f"`: wrk -t2 -c{args.connections}, loopback, {_processes(args.workers)}, the same "
        "256 px WebP bytes; every row measured once per round, the "
        "rounds one after the other in this one run.",
        "",
        *TABLE_HEAD,
    ]
    lines += table_rows(rounds)
    lines += [
        "",
        "Every keyed request was billed (wrk counts requests still in flight at the end, so "
        "the two may differ by up to the connection count): " + "; ".join(billing) + ".",
        "",
    ]
    write_section("\n".join(lines))


TABLE_HEAD = [
    "| what | requests/s (median) | vs nginx | per round | p50 ms | p99 ms | non-2xx |",
    "|---|---|---|---|---|---|---|",
]


def table_rows(rounds: list[list[Run]]) -> list[str]:
    """One row per measurement (each round's first run is nginx's): medians over the rounds;
    the ratio of medians to nginx's, and the lowest and highest ratio to the nginx run of the
    same round."""
    nginx = statistics.median(r[0].requests_per_second for r in rounds)
    lines = []
    for index, run in enumerate(rounds[0]):
        runs = [r[index] for r in rounds]
        rate = statistics.median(x.requests_per_second for x in runs)
        ratios = [r[index].requests_per_second / r[0].requests_per_second for r in rounds]
        lines.append(
            f"| {run.name} | {rate:,.0f} | {rate / nginx:.1%} | "
            f"{min(ratios):.1%}–{max(ratios):.1%} | "
            f"{statistics.median(x.p50_ms for x in runs):.2f} | "
            f"{statistics.median(x.p99_ms for x in runs):.2f} | {sum(x.errors for x in runs)} |"
        )
    return lines


def write_section(section: str) -> None:
    """Replace the `## ` section of RESULTS.md that `section` heads (or append it); print it."""
    heading = section.split("\n", 1)[0]
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
    if heading + "\n" in text:
        pattern = re.escape(heading) + r"\n.*?(?=\n## |\Z)"
        text = re.sub(pattern, lambda _: section.rstrip() + "\n", text, count=1, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + section
    RESULTS.write_text(text)
    print(section)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="also measure this commit's tree")
    parser.add_argument(
        "--before-server",
        default="uvicorn",
        help="`carimg serve --server` for --before (default uvicorn; none: no option)",
    )
    parser.add_argument(
        "--only", help="measure only the builds whose label contains this (a quick look)"
    )
    parser.add_argument(
        "--plain-uvicorn", action="store_true", help="also this tree under plain uvicorn"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="nginx and carimg worker processes (default 1)"
    )
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)  # see prepare_with
    args = parser.parse_args()
    if args.prepare:
        print("\n".join(asyncio.run(prepare(args.prepare))))
        return
    ensure_tools()
    work = Path(tempfile.mkdtemp(prefix="carimg-bench-"))
    builds = [
        Carimg("granian"),  # on uvloop, the default
        Carimg("granian on asyncio's loop", event_loop="asyncio"),
    ]
    if args.plain_uvicorn:
        builds.append(Carimg("plain uvicorn", plain_uvicorn=True))
    if args.before:
        source = checkout(args.before, work / "before")
        server = None if args.before_server == "none" else args.before_server
        label = f"before ({_commit(args.before)}, {server or 'its default server'})"
        builds.insert(0, Carimg(label, server, source))
    if args.only:
        builds = [build for build in builds if args.only in build.label]
    nginx = None
    servers: list[Served] = []
    try:
        nginx, static_url = start_nginx(work, args.workers)
        # all up; an idle one costs nothing
        servers = [serve(build, work, args.workers) for build in builds]
        rounds: list[list[Run]] = []
        billed = dict.fromkeys((s.build.label for s in servers), 0)
        keyed_requests = dict(billed)
        for _ in range(args.rounds):
            runs = [wrk("nginx static file", static_url, args.seconds, args.connections)]
            for served in servers:
                keyed, delivery, debited = measure(served, args)
                runs += [keyed, delivery]
                billed[served.build.label] += debited
                keyed_requests[served.build.label] += keyed.requests
            rounds.append(runs)
        billing = [
            f"{label}: {billed[label]:,} debits for {keyed_requests[label]:,} requests"
            for label in billed
        ]
        write_results(rounds, billing, args)
    finally:
        for served in servers:
            served.process.terminate()
            served.process.wait(timeout=30)
        if nginx is not None:
            nginx.terminate()
        shutil.rmtree(work, ignore_errors=True)


def start_nginx(work: Path, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    """nginx serving the benchmark variant's bytes as a static file; the process and the URL."""
    static = work / "nginx" / "static"
    static.mkdir(parents=True)
    (static / "car.webp").write_bytes(asyncio.run(variant_bytes(work / "reference")))
    port = free_port()
    user = "user root;" if os.geteuid() == 0 else ""
    conf = work / "nginx" / "nginx.conf"
    conf.write_text(NGINX_CONF.format(user=user, root=work / "nginx", port=port, workers=workers))
    nginx = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(work / "nginx")])
    return nginx, f"http://127.0.0.1:{port}/car.webp"


async def variant_bytes(data_dir: Path) -> bytes:
    """The benchmark variant's bytes, rendered in process (what every server row serves)."""
    from carimg.catalog import load_catalog
    from carimg.config import Settings
    from carimg.domain.imagerequest import parse_image_request
    from carimg.services import build_services

    services = await build_services(Settings(data_dir=data_dir), load_catalog())
    try:
        spec = parse_image_request(services.catalog, {**VARIANT, "year": VARIANT["year"]})
        return (await services.images.renderer.image(spec)).data
    finally:
        await services.close()


if __name__ == "__main__":
    main()
