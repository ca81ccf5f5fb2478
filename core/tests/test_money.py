"""Money is rounded half-up to the penny (contract 1), in one place: core.money.gbp."""

from decimal import Decimal

import pytest

from core.money import gbp


@pytest.mark.parametrize(
    ("amount", "rounded"),
    [
        ("10.125", "10.13"),  # half-up, never banker's 10.12
        ("10.135", "10.14"),
        ("10.124", "10.12"),
        ("-1.005", "-1.01"),  # a refund rounds away from zero, as a charge does
        ("3", "3.00"),
        (7, "7.00"),
        (Decimal("0.005"), "0.01"),
    ],
)
def test_amounts_are_rounded_half_up_to_the_penny(amount, rounded):
    assert gbp(amount) == Decimal(rounded)
    assert gbp(amount).as_tuple().exponent == -2
