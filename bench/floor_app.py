"""The least a billed keyed image can do, as a bare ASGI app: the floor under carimg's keyed row.

Per request: the key from `Authorization: Bearer` hashed (SHA-256) and looked up in a dict read
at start, both of its rate windows counted in a dict, the debit written as carimg writes it
(`UPDATE accounts … RETURNING`, the ledger entry and the delivery row, each request in a
savepoint of one transaction per event-loop turn, on carimg's own schema with its pragmas), and
the cached image answered with the headers the spec names. No framework, no validation, no
error handling: whatever carimg adds on top of this is its own cost. See bench/keyed_floor.py.

Settings (environment): FLOOR_IMAGE (the image file), FLOOR_DATABASE (a carimg SQLite
database with accounts and keys), FLOOR_WRITES: `durable` (carimg's pragmas: WAL,
synchronous=NORMAL, SQLite's automatic checkpoints), `unsynced` (synchronous=OFF: no fsync at
all, which a ledger cannot accept: a power cut may corrupt the file) or `none` (no debit).
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
WRITES = os.environ.get("FLOOR_WRITES", "durable")
SYNCHRONOUS = {"durable": "NORMAL", "unsynced": "OFF", "none": "NORMAL"}[WRITES]

_conn = sqlite3.connect(os.environ["FLOOR_DATABASE"], isolation_level=None)
for _pragma in ("journal_mode=WAL", "foreign_keys=ON", f"synchronous={SYNCHRONOUS}"):
    _conn.execute(f"PRAGMA {_pragma}")
KEYS: dict[str, tuple[str, str]] = {
    digest: (key_id, account_id)
    for digest, key_id, account_id in _conn.execute("SELECT hash, id, account_id FROM api_keys")
}
_windows: dict[tuple[str, str, int], int] = {}
_pending: list[tuple[str, str, asyncio.Future[int]]] = []

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


def _commit_turn() -> None:
    """The debits of one event-loop turn in one transaction, each in a savepoint."""
    batch = _pending[:]
    _pending.clear()
    now = time.strftime("%Y-%m-%d %H:%M:%S.000000", time.gmtime())
    balances = []
    _conn.execute("BEGIN IMMEDIATE")
    for account_id, request_id, _ in batch:
        _conn.execute("SAVEPOINT work")
        (balance,) = _conn.execute(_DEBIT, (account_id,)).fetchone()
        note = f"veh_toyota_camry_2020 front-3-4 {request_id}"
        _conn.execute(_ENTRY, (account_id, balance, f"img_{request_id}", note, now))
        _conn.execute(_DELIVERY, (request_id, account_id, now))
        _conn.execute("RELEASE work")
        balances.append(balance)
    _conn.execute("COMMIT")
    for (_, _, future), balance in zip(batch, balances, strict=True):
        future.set_result(balance)


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
    request_id = "req_" + secrets.token_hex(12)
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
