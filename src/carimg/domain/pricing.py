"""Pricing variants A and B of the spec: packs, credits per dollar, plans."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

CREDITS_PER_IMAGE: Final = 1
FREE_CREDITS: Final = 100

Variant = Literal["A", "B"]


@dataclass(frozen=True, slots=True)
class Pack:
    """A credit pack sold through hosted checkout."""

    credits: int
    cents: int

    @property
    def id(self) -> str:
        return f"pack_{self.credits}"

    @property
    def label(self) -> str:
        return f"{self.credits:,} credits for ${self.cents / 100:,.2f}"


@dataclass(frozen=True, slots=True)
class Plan:
    """A subscription plan (variant B)."""

    id: str
    name: str
    price_monthly: float
    credits_per_month: int
    distinct_vehicles_per_month: int


@dataclass(frozen=True, slots=True)
class Pricing:
    """What one pricing variant sells."""

    variant: Variant
    credits_per_dollar: int
    packs: tuple[Pack, ...]
    plans: tuple[Plan, ...]
    credits_per_image: int = CREDITS_PER_IMAGE
    free_credits: int = FREE_CREDITS


PRICING: Final[dict[Variant, Pricing]] = {
    "A": Pricing(
        variant="A",
        credits_per_dollar=1000,
        packs=(Pack(5000, 500), Pack(10000, 1000), Pack(25000, 2500), Pack(100000, 10000)),
        plans=(),
    ),
    "B": Pricing(
        variant="B",
        credits_per_dollar=100,
        packs=(
            Pack(100, 100),
            Pack(500, 500),
            Pack(1000, 1000),
            Pack(2500, 2500),
            Pack(10000, 10000),
        ),
        plans=(
            Plan("free", "Free", 0, 0, 100),
            Plan("pro", "Pro", 29, 25000, 2500),
            Plan("business", "Business", 99, 150000, 15000),
            Plan("enterprise", "Enterprise", 0, 0, 0),
        ),
    ),
}


def pricing_for(variant: Variant) -> Pricing:
    return PRICING[variant]
