"""`carimg serve`: run the ASGI app under granian."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import typer

from carimg.config import Settings

if TYPE_CHECKING:
    from granian.http import HTTP1Settings
    from granian.log import LogLevels

    from carimg.api.headlimits import HeadLimits

APP = "carimg.app:create_app_from_env"  # a factory: each server process builds its own app


def register(app: typer.Typer) -> None:
    """Add the serve command to the CLI."""

    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to bind."),
        port: int = typer.Option(8000, help="TCP port."),
        workers: int = typer.Option(1, help="Server processes."),
    ) -> None:
        """Serve the API (embedded defaults: ./var, SQLite, no external service) under granian.

        SIGTERM or SIGINT stop accepting connections, let requests in flight finish (at most
        `CARIMG_SHUTDOWN_TIMEOUT` seconds), close the services and exit 0.
        """
        import os
        import shutil
        import signal

        # links and delivery URLs name the address served unless the operator says otherwise
        os.environ.setdefault("CARIMG_BASE_URL", served_base_url(host, port))
        settings = _settings()
        own_metrics_dir = _share_metrics(workers)
        # granian installs its own stop handlers once it starts; until then a stop is a clean
        # exit too
        signal.signal(signal.SIGTERM, _exit_cleanly)
        try:
            run_granian(settings, host, port, workers)
        finally:
            if own_metrics_dir is not None:
                shutil.rmtree(own_metrics_dir, ignore_errors=True)


def served_base_url(host: str, port: int) -> str:
    """The base URL of `carimg serve --host H --port P` when CARIMG_BASE_URL is unset.

    A wildcard host (0.0.0.0, ::) is reached on this machine's loopback address; behind a proxy
    or on another name, CARIMG_BASE_URL says the public address.
    """
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host)
    if shown is None:
        shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _settings() -> Settings:
    """The settings, or a usage error naming each `CARIMG_*` variable that is wrong."""
    from pydantic import ValidationError

    try:
        return Settings()
    except ValidationError as error:
        # the values themselves are not repeated: a wrong variable may hold a secret
        problems = "; ".join(
            f"CARIMG_{str(problem['loc'][0]).upper() if problem['loc'] else '*'}: {problem['msg']}"
            for problem in error.errors()
        )
        raise typer.BadParameter(problems) from None


def run_granian(settings: Settings, host: str, port: int, workers: int) -> None:
    """granian's main process binds, forks the workers and, on SIGTERM/SIGINT, stops them: each
    stops accepting, finishes the requests in flight, runs the app's lifespan shutdown and exits;
    one still busy after `shutdown_timeout` seconds is killed. Then `serve()` returns (status 0).
    X-Forwarded-* headers are not read (granian only does behind its opt-in proxy wrapper)."""
    from granian.constants import Interfaces, Loops
    from granian.server import Server

    from carimg.api.headlimits import HeadLimits
    from carimg.logs import log_config

    Server(
        APP,
        factory=True,
        address=host,
        port=port,
        interface=Interfaces.ASGI,  # with lifespan: the app's startup and shutdown run
        workers=workers,
        loop=Loops(event_loop(settings)),
        websockets=False,  # the app has no WebSocket route
        log_enabled=True,
        log_level=_granian_log_level(settings.log_level),
        log_dictconfig=log_config(settings.log_format, settings.log_level),
        log_access=False,  # carimg.access logs each request with its id and route
        workers_kill_timeout=settings.shutdown_timeout,
        http1_settings=granian_http1(HeadLimits.of(settings)),
        backpressure=connection_limit(),
    ).serve()


def connection_limit() -> int:
    """The connections each server process may hold at once: its open-file limit, raised to
    the hard limit first (granian's workers inherit it).

    granian times a request's head only from its first byte, so a connection that never sends
    one is held until the client closes it, and each holds one of granian's `backpressure`
    permits; at granian's default (1,024 a process) that many silent connections lock every
    other client out. With the whole open-file limit, the files run out first."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY:
        hard = _MAX_FILES
    if soft == resource.RLIM_INFINITY or soft > hard:
        soft = hard
    elif soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):  # a ceiling below the hard limit: keep what there is
            pass
    return max(soft, 1)


def granian_http1(limits: HeadLimits) -> HTTP1Settings:
    """granian's HTTP/1 settings for `limits`: a head may take `timeout` seconds to arrive, and
    granian buffers no more than `head_bytes` of it (hyper answers a longer head 431 without a
    body, and more than 100 headers 431 too); the app checks each header and the target."""
    from granian.http import HTTP1Settings

    return HTTP1Settings(
        header_read_timeout=math.ceil(limits.timeout * 1000),
        max_buffer_size=max(_HYPER_MIN_BUFFER, limits.head_bytes),
    )


_HYPER_MIN_BUFFER = 8192  # hyper refuses a smaller read buffer
_MAX_FILES = 1 << 20  # Linux's default ceiling on open files (fs.nr_open)


def event_loop(settings: Settings) -> str:
    """`CARIMG_EVENT_LOOP`: `auto` is uvloop when installed (the faster loop under granian),
    else asyncio's own."""
    import importlib.util

    installed = importlib.util.find_spec("uvloop") is not None
    if settings.event_loop == "uvloop" and not installed:
        raise typer.BadParameter("CARIMG_EVENT_LOOP: uvloop is not installed")
    if settings.event_loop == "auto":
        return "uvloop" if installed else "asyncio"
    return settings.event_loop


def _granian_log_level(level: str) -> LogLevels:
    from granian.log import LogLevels

    name = level.lower()
    try:
        return LogLevels("debug" if name == "trace" else name)  # granian has no trace level
    except ValueError:
        raise typer.BadParameter(f"CARIMG_LOG_LEVEL: unknown level {level!r}") from None


def _exit_cleanly(signum: int, frame: object) -> None:
    raise SystemExit(0)


def _share_metrics(workers: int) -> str | None:
    """Let several server processes add up their metrics in one directory (prometheus-client's
    multiprocess mode), emptied first. Returns the directory when this command made it."""
    import os
    import tempfile

    variable = "PROMETHEUS_MULTIPROC_DIR"
    directory = os.environ.get(variable)
    made = None
    if not directory:
        if workers <= 1:
            return None
        directory = made = tempfile.mkdtemp(prefix="carimg-metrics-")
        os.environ[variable] = directory  # inherited by the worker processes the server starts
    os.makedirs(directory, exist_ok=True)
    for name in os.listdir(directory):  # an earlier run's files would be added in
        if name.endswith(".db"):
            os.unlink(os.path.join(directory, name))
    return made
