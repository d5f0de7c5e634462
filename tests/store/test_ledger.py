"""The ledger contract on SQLite and PostgreSQL: append-only entries with unique references, the
balance changed in the same transaction and never below zero, no overspend and no double charge
under concurrency, refunds at most once; and the same through the image endpoint."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from carimg.domain.clock import FixedClock
from carimg.domain.errors import InsufficientCredits
from carimg.domain.ledger import Ledger
from carimg.services import Services
from carimg.store.db import Database
from carimg.store.ledger import LedgerStore
from carimg.store.tables import accounts
from tests.api.images_helpers import CAMRY, IMAGE_URL
from tests.conftest import Customer
from tests.store.conftest import NewAccount


def reference() -> str:
    return f"debit:test:{uuid.uuid4().hex}"


async def test_a_debit_changes_the_balance_and_records_balance_after(
    ledger: Ledger, new_account: NewAccount
) -> None:
    account = await new_account(10)
    assert await ledger.charge(account, 3, "debit:one") == 7
    grant, debit = await ledger.entries(account)
    assert (grant.kind, grant.amount, grant.balance_after) == ("grant", 10, 10)
    assert (debit.kind, debit.amount, debit.balance_after, debit.reference) == (
        "debit",
        -3,
        7,
        "debit:one",
    )
    assert await ledger.balance(account) == 7


async def test_a_debit_above_the_balance_is_refused_and_writes_nothing(
    ledger: Ledger, new_account: NewAccount
) -> None:
    account = await new_account(3)
    with pytest.raises(InsufficientCredits) as refused:
        await ledger.charge(account, 5, reference())
    assert refused.value.status == 402
    assert (refused.value.balance, refused.value.required) == (3, 5)
    assert await ledger.balance(account) == 3
    assert [entry.kind for entry in await ledger.entries(account)] == ["grant"]


async def test_the_balance_cannot_be_stored_below_zero(
    db: Database, new_account: NewAccount
) -> None:
    account = await new_account(1)
    with pytest.raises(IntegrityError):
        async with db.write.begin() as conn:
            await conn.execute(update(accounts).where(accounts.c.id == account).values(credits=-1))


async def test_concurrent_debits_never_overspend(ledger: Ledger, new_account: NewAccount) -> None:
    account = await new_account(25)
    results = await asyncio.gather(
        *(ledger.charge(account, 1, reference()) for _ in range(40)), return_exceptions=True
    )
    balances = [r for r in results if isinstance(r, int)]
    refused = [r for r in results if isinstance(r, InsufficientCredits)]
    assert (len(balances), len(refused)) == (25, 15), results
    assert sorted(balances) == list(range(25))  # every success saw its own balance
    assert await ledger.balance(account) == 0
    debits = [entry for entry in await ledger.entries(account) if entry.kind == "debit"]
    assert len(debits) == 25
    assert sorted(d.balance_after for d in debits) == list(range(25))
    assert len({d.reference for d in debits}) == 25


async def test_a_reference_applied_twice_changes_the_balance_once(
    ledger_store: LedgerStore, new_account: NewAccount, clock: FixedClock
) -> None:
    account = await new_account(10)
    first = await ledger_store.apply(account, "debit", -1, "debit:same", now=clock.now())
    again = await ledger_store.apply(account, "debit", -1, "debit:same", now=clock.now())
    assert (first, again) == ((True, 9), (False, 9))
    assert await ledger_store.balance(account) == 9
    assert [e.reference for e in await ledger_store.entries(account)].count("debit:same") == 1


async def test_a_charge_retried_with_its_reference_is_not_charged_again(
    ledger: Ledger, new_account: NewAccount
) -> None:
    account = await new_account(10)
    assert await ledger.charge(account, 2, "debit:retry") == 8
    assert await ledger.charge(account, 2, "debit:retry") == 8
    assert await ledger.balance(account) == 8


async def test_concurrent_applications_of_one_reference_change_the_balance_once(
    ledger_store: LedgerStore, new_account: NewAccount, clock: FixedClock
) -> None:
    account = await new_account(10)
    results = await asyncio.gather(
        *(
            ledger_store.apply(account, "debit", -1, "debit:racing", now=clock.now())
            for _ in range(12)
        )
    )
    assert Counter(applied for applied, _ in results) == {True: 1, False: 11}
    assert await ledger_store.balance(account) == 9
    entries = await ledger_store.entries(account)
    assert [e.reference for e in entries].count("debit:racing") == 1


async def test_a_refund_happens_at_most_once(ledger: Ledger, new_account: NewAccount) -> None:
    account = await new_account(10)
    await ledger.charge(account, 1, "debit:to-refund")
    assert await ledger.refund("debit:to-refund") == 10
    assert await ledger.refund("debit:to-refund") == 10
    refunds = [e for e in await ledger.entries(account) if e.kind == "refund"]
    assert [(r.amount, r.balance_after, r.reference) for r in refunds] == [
        (1, 10, "refund:debit:to-refund")
    ]


async def test_concurrent_refunds_of_one_debit_refund_once(
    ledger: Ledger, new_account: NewAccount
) -> None:
    account = await new_account(10)
    await ledger.charge(account, 3, "debit:racing-refund")
    balances = await asyncio.gather(*(ledger.refund("debit:racing-refund") for _ in range(8)))
    assert set(balances) == {10}
    assert await ledger.balance(account) == 10
    refunds = [e for e in await ledger.entries(account) if e.kind == "refund"]
    assert len(refunds) == 1 and refunds[0].amount == 3


async def test_only_a_debit_can_be_refunded(ledger: Ledger, new_account: NewAccount) -> None:
    account = await new_account(10)
    with pytest.raises(ValueError, match="no debit"):
        await ledger.refund(f"grant:signup:{account}")
    with pytest.raises(ValueError, match="no debit"):
        await ledger.refund("debit:never-made")
    assert await ledger.balance(account) == 10


# -- through the image endpoint ---------------------------------------------------------------


async def test_concurrent_image_requests_never_overspend(
    client: httpx.AsyncClient, make_customer, services: Services
) -> None:  # type: ignore[no-untyped-def]
    thumb = {**CAMRY, "size": "thumb"}
    warm: Customer = await make_customer()
    assert (await client.get(IMAGE_URL, params=thumb, headers=warm.headers)).status_code == 200
    customer: Customer = await make_customer(credits=5)
    responses = await asyncio.gather(
        *(client.get(IMAGE_URL, params=thumb, headers=customer.headers) for _ in range(20))
    )
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {200: 5, 402: 15}, statuses
    served = [r for r in responses if r.status_code == 200]
    assert {r.headers["x-image-source"] for r in served} == {"cache"}
    assert sorted(r.headers["x-credits-remaining"] for r in served) == ["0", "1", "2", "3", "4"]
    refused = [r.json() for r in responses if r.status_code == 402]
    assert {(body["required_credits"], body["balance"]) for body in refused} == {(1, 0)}
    assert await services.ledger.balance(customer.account_id) == 0
    entries = await services.ledger.entries(customer.account_id)
    kinds = Counter(entry.kind for entry in entries)
    assert kinds == {"grant": 1, "debit": 5}
