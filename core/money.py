"""Money is GBP in pence, rounded half-up (contract 1): the one rounding rule."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

PENNY = Decimal("0.01")


def gbp(amount: Decimal | int | str) -> Decimal:
    """``amount`` rounded half-up to the penny (10.125 is 10.13, never banker's 10.12)."""
    return Decimal(amount).quantize(PENNY, rounding=ROUND_HALF_UP)
