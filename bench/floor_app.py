"""The least a billed keyed image can do, as a bare ASGI app: the floor under carimg's keyed row.

Per request: the key from `Authorization: Bearer` hashed (SHA-256) and looked up in a dict read
at start, both of its rate windows counted in a dict, the debit written, and the cached image
answered with the headers the spec names. No framework, no validation, no error handling:
whatever carimg adds on top of this is its own cost. See bench/keyed_floor.py.

The debit is written as carimg writes it: `UPDATE accounts … RETURNING`, the ledger entry and
the delivery row, each request in a savepoint of one transaction per event-loop turn, on
carimg's own schema and pragmas (WAL, synchronous=NORMAL, no automatic checkpoint), with
time-ordered request ids, and the log copied into the database from a worker thread every 300
debits (carimg's CHECKPOINT_WRITES).

Settings (environment): FLOOR_IMAGE (the image file), FLOOR_DATABASE (a carimg SQLite database
with accounts and keys), FLOOR_WRITES, one of
- `none`: no debit;
- `durable`: the debit as carimg writes it;
- `batched`: the same rows, but a turn's debits written by one multi-row INSERT into a temporary
  table whose trigger runs the three statements in SQLite (a quarter of the statements' CPU in a
  tight loop);
- `unsynced`: `durable` with synchronous=OFF (no fsync at all, which a ledger cannot accept: a
  power cut may corrupt the file).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
import sqlite3
import time
from typing import Any

IMAGE = open(os.environ["FLOOR_IMAGE"], "rb").read()  # noqa: SIM115 - read once at import
DATABASE = os.environ["FLOOR_DATABASE"]
WRITES = os.environ.get("FLOOR_WRITES", "durable")
SYNCHRONOUS = "OFF" if WRITES == "unsynced" else "NORMAL"
CHECKPOINT_WRITES = 300

_conn = sqlite3.connect(DATABASE, isolation_level=None)
for _pragma in (
    "journal_mode=WAL", "foreign_keys=ON", f"synchronous={SYNCHRONOUS}", "wal_autocheckpoint=0"
):  # fmt: skip
    _conn.execute(f"PRAGMA {_pragma}")
KEYS: dict[str, tuple[str, str]] = {
    digest: (key_id, account_id)
    for digest, key_id, account_id in _conn.execute("SELECT hash, id, account_id FROM api_keys")
}
_windows: dict[tuple[str, str, int], int] = {}
_pending: list[tuple[str, str, asyncio.Future[int]]] = []
_checkpoint = {"writes": 0, "running": False}

_DEBIT = (
    "UPDATE accounts SET credits = credits - 1 WHERE id = ? AND credits - 1 >= 0 RETURNING credits"
)
_ENTRY = (
    "INSERT INTO ledger (account_id, kind, amount, balance_after, reference, note, created_at) "
    "VALUES (?, 'debit', -1, ?, ?, ?, ?)"
)
_DELIVERY = (
    "INSERT INTO deliveries (request_id, account_id, vehicle_id, view, paint, created_at) "
    "VALUES (?, ?, 'veh_toyota_camry_2020', 'front-3-4', 'white', ?) ON CONFLICT DO NOTHING"
)
# `batched`: one row per debit; the trigger writes the same three statements' rows.
_conn.executescript(
    """
    CREATE TEMP TABLE debits (account_id TEXT, request_id TEXT, note TEXT, created_at TEXT);
    CREATE TEMP TRIGGER debits_apply AFTER INSERT ON debits BEGIN
      UPDATE accounts SET credits = credits - 1 WHERE id = NEW.account_id;
      INSERT INTO ledger (account_id, kind, amount, balance_after, reference, note, created_at)
        VALUES (NEW.account_id, 'debit', -1,
          (SELECT credits FROM accounts WHERE id = NEW.account_id),
          'img_' || NEW.request_id, NEW.note, NEW.created_at);
      INSERT INTO deliveries (request_id, account_id, vehicle_id, view, paint, created_at)
        VALUES (NEW.request_id, NEW.account_id, 'veh_toyota_camry_2020', 'front-3-4', 'white',
          NEW.created_at) ON CONFLICT DO NOTHING;
    END;
    """
)


def _write_each(batch: list[tuple[str, str, asyncio.Future[int]]], now: str) -> list[int]:
    balances = []
    for account_id, request_id, _ in batch:
        _conn.execute("SAVEPOINT work")
        (balance,) = _conn.execute(_DEBIT, (account_id,)).fetchone()
        note = f"veh_toyota_camry_2020 front-3-4 {request_id}"
        _conn.execute(_ENTRY, (account_id, balance, f"img_{request_id}", note, now))
        _conn.execute(_DELIVERY, (request_id, account_id, now))
        _conn.execute("RELEASE work")
        balances.append(balance)
    return balances


def _write_batched(batch: list[tuple[str, str, asyncio.Future[int]]], now: str) -> list[int]:
    values: list[str] = []
    for account_id, request_id, _ in batch:
        values += (account_id, request_id, f"veh_toyota_camry_2020 front-3-4 {request_id}", now)
    (last,) = _conn.execute("SELECT coalesce(max(id), 0) FROM ledger").fetchone()
    rows = ",".join(["(?, ?, ?, ?)"] * len(batch))
    _conn.execute(f"INSERT INTO debits VALUES {rows}", values)
    _conn.execute("DELETE FROM debits")
    written = _conn.execute("SELECT balance_after FROM ledger WHERE id > ? ORDER BY id", (last,))
    return [balance for (balance,) in written]


def _commit_turn() -> None:
    """The debits of one event-loop turn in one transaction."""
    batch = _pending[:]
    _pending.clear()
    now = time.strftime("%Y-%m-%d %H:%M:%S.000000", time.gmtime())
    _conn.execute("BEGIN IMMEDIATE")
    balances = (_write_batched if WRITES == "batched" else _write_each)(batch, now)
    _conn.execute("COMMIT")
    for (_, _, future), balance in zip(batch, balances, strict=True):
        future.set_result(balance)
    _after_commit(len(batch))


def _copy_log() -> None:
    with sqlite3.connect(DATABASE) as conn:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def _after_commit(writes: int) -> None:
    """Every CHECKPOINT_WRITES debits, the log copied into the database off the loop."""
    _checkpoint["writes"] += writes
    if _checkpoint["running"] or _checkpoint["writes"] < CHECKPOINT_WRITES:
        return
    _checkpoint.update(writes=0, running=True)
    copying = asyncio.get_running_loop().run_in_executor(None, _copy_log)
    copying.add_done_callback(lambda _: _checkpoint.update(running=False))


async def _debit(account_id: str, request_id: str) -> int:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[int] = loop.create_future()
    if not _pending:
        loop.call_soon(_commit_turn)
    _pending.append((account_id, request_id, future))
    return await future


def _count(key_id: str, account_id: str) -> int:
    """Both rate windows counted; the key's count."""
    window = int(time.time() // 60)
    key_window, account_window = ("key", key_id, window), ("account", account_id, window)
    _windows[account_window] = _windows.get(account_window, 0) + 1
    count = _windows[key_window] = _windows.get(key_window, 0) + 1
    return count


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    authorization = dict(scope["headers"]).get(b"authorization", b"")
    found = KEYS.get(hashlib.sha256(authorization.removeprefix(b"Bearer ")).hexdigest())
    if found is None:
        await send({"type": "http.response.start", "status": 401, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    key_id, account_id = found
    used = _count(key_id, account_id)
    request_id = f"req_{time.time_ns() // 1_000_000:013d}{secrets.token_hex(6)}"  # time-ordered
    balance = 0 if WRITES == "none" else await _debit(account_id, request_id)
    headers = [
        (b"etag", b'W/"floor-0123456789abcdef"'),
        (b"cache-control", b"private, max-age=86400"),
        (b"content-location", b"http://127.0.0.1/api/v1/images/car?make=toyota&model=camry"),
        (b"vary", b"Accept"),
        (b"ratelimit-limit", b"1000000"),
        (b"ratelimit-remaining", str(1_000_000 - used).encode()),
        (b"ratelimit-reset", b"30"),
        (b"x-credits-charged", b"1"),
        (b"x-credits-remaining", str(balance).encode()),
        (b"x-image-source", b"cache"),
        (b"x-image-width", b"256"),
        (b"x-image-height", b"144"),
        (b"content-length", str(len(IMAGE)).encode()),
        (b"content-type", b"image/webp"),
        (b"x-request-id", request_id.encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": IMAGE})
