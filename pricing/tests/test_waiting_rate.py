"""What waiting costs under a council tariff (pricing.waiting): the meter's rate in the band
in force, a multiplier band's rate from the band it multiplies, nothing where a figure is
missing, and nothing for no time waited (issue 37: the survivors of `make mutate
FAMILY=meter`)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from pricing.tests.factories import ALL_WEEK, TariffBandFactory, TariffFactory
from pricing.waiting import WaitingRate, tariff_waiting_rate

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 11, 25, 14, 5, tzinfo=dt.UTC)
TWENTY_PENCE_PER_20_S = WaitingRate(
    band="Tariff 1", increment_price=Decimal("0.20"), increment_seconds=Decimal(20)
)


@pytest.mark.parametrize(
    ("waited", "charge"),
    [
        (dt.timedelta(0), "0.00"),
        (dt.timedelta(seconds=-30), "0.00"),
        (dt.timedelta(microseconds=1), "0.20"),
        (dt.timedelta(seconds=20), "0.20"),
        (dt.timedelta(seconds=20, microseconds=1), "0.40"),
    ],
)
def test_every_increment_begun_is_paid_and_no_time_costs_nothing(waited, charge):
    assert TWENTY_PENCE_PER_20_S.charge(waited) == Decimal(charge)


def test_the_rate_is_the_band_in_force_at_the_time(django_assert_num_queries):
    tariff = TariffBandFactory().tariff
    assert tariff_waiting_rate(tariff.reference, at=AT) == TWENTY_PENCE_PER_20_S
    with django_assert_num_queries(0):
        assert tariff_waiting_rate("", at=AT) is None


def test_a_multiplier_band_waits_at_its_multiple_of_the_band_it_multiplies():
    # Given "Tariff 2" in force all week at 1.5 times "Tariff 1" (which covers no time itself)
    tariff = TariffFactory()
    TariffBandFactory(tariff=tariff, position=0, windows=[])
    TariffBandFactory(
        tariff=tariff,
        position=1,
        name="Tariff 2",
        windows=[dict(window) for window in ALL_WEEK],
        multiplier=Decimal("1.5"),
        multiplier_of="Tariff 1",
    )
    # then waiting costs 1.5 x 20p per 20 s, named after the band whose figures it uses
    rate = tariff_waiting_rate(tariff.reference, at=AT)
    assert rate == WaitingRate(
        band="Tariff 1", increment_price=Decimal("0.300"), increment_seconds=Decimal(20)
    )
    assert rate.charge(dt.timedelta(seconds=41)) == Decimal("0.90")


@pytest.mark.parametrize(
    "missing",
    [
        {"waiting_seconds_per_increment": None},
        {"increment_price_gbp": None},
        {"waiting_seconds_per_increment": Decimal(0)},
    ],
)
def test_a_band_missing_a_waiting_figure_has_no_rate(missing):
    tariff = TariffBandFactory(**missing).tariff
    assert tariff_waiting_rate(tariff.reference, at=AT) is None
