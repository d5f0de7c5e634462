"""Charging credits: one debit per delivery, refunds that cannot repeat, grants and purchases."""

from __future__ import annotations

from datetime import datetime

from carimg.domain.clock import Clock
from carimg.domain.errors import InsufficientCredits, InvalidParameter
from carimg.store.ledger import InsufficientBalance, LedgerStore, PaidFor
from carimg.store.records import LedgerEntry


class Ledger:
    """Every balance change is a ledger entry with a unique reference."""

    def __init__(self, store: LedgerStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def charge(
        self,
        account_id: str,
        credits: int,
        reference: str,
        note: str = "",
        also: PaidFor | None = None,
    ) -> int:
        """Debit `credits` once per reference; returns the balance. 402 when it is too low.

        `also` records what the debit pays for, in the same transaction (the store chooses the
        connection that writes it, see `LedgerStore.apply`).
        """
        try:
            _, balance = await self._store.apply(
                account_id,
                "debit",
                -credits,
                reference,
                note=note,
                now=self._clock.now(),
                also=also,
            )
        except InsufficientBalance as low:
            raise InsufficientCredits(balance=low.balance, required=credits) from low
        return balance

    async def refund(self, debit_reference: str, note: str = "") -> int:
        """Give back a debit (at most once); returns the balance."""
        debit = await self._store.entry(debit_reference)
        if debit is None or debit.kind != "debit":
            raise ValueError(f"no debit {debit_reference}")
        _, balance = await self._store.apply(
            debit.account_id,
            "refund",
            -debit.amount,
            f"refund:{debit_reference}",
            note=note,
            now=self._clock.now(),
        )
        return balance

    async def grant(self, account_id: str, credits: int, reference: str, note: str = "") -> int:
        if credits <= 0:
            raise InvalidParameter("credits", "Grant a positive number of credits.")
        _, balance = await self._store.apply(
            account_id, "grant", credits, reference, note=note, now=self._clock.now()
        )
        return balance

    async def balance(self, account_id: str) -> int:
        return await self._store.balance(account_id)

    async def entries(self, account_id: str) -> list[LedgerEntry]:
        return await self._store.entries(account_id)

    async def entries_since(self, account_id: str, since: datetime) -> list[LedgerEntry]:
        return await self._store.entries_since(account_id, since)
