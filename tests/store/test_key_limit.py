"""At most `max_active` active keys per account, however many creations race."""

from __future__ import annotations

import asyncio

from carimg.domain.clock import FixedClock
from carimg.domain.keys import key_hash, new_key
from carimg.store.accounts import AccountStore, TooManyKeys
from carimg.store.db import Database
from carimg.store.records import ApiKey
from tests.store.conftest import NewAccount


async def test_racing_key_creations_never_pass_the_limit(
    db: Database, new_account: NewAccount, clock: FixedClock
) -> None:
    account_id = await new_account(100)
    store = AccountStore(db)

    async def create(n: int) -> bool:
        plaintext = new_key()
        key = ApiKey(
            id=f"key_race_{n:02d}_{account_id[4:16]}",
            account_id=account_id,
            name=f"race {n}",
            prefix=plaintext[:12],
            scopes=("images:read",),
            origins=(),
            created_at=clock.now(),
            revoked_at=None,
        )
        try:
            await store.add_key(key, key_hash(plaintext), max_active=10)
        except TooManyKeys:
            return False
        return True

    created = await asyncio.gather(*(create(n) for n in range(30)))
    assert created.count(True) == 10
    assert len(await store.keys_of(account_id)) == 10
