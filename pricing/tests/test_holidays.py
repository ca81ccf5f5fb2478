"""Public holidays by nation (pricing.holidays, issue 21): a journey follows the public
holidays of the nation it starts in. Dates are computed for next year, relative to today."""

import datetime as dt
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from pricing.compiled_tariffs import CompiledBand, CompiledTariff
from pricing.fares import FareOptions, fare_compute
from pricing.holidays import is_bank_holiday, nation_of_district
from pricing.tariff_windows import windows_compile

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

NEXT_YEAR = timezone.localdate().year + 1


@pytest.mark.parametrize(
    ("day", "nations"),
    [
        (dt.date(NEXT_YEAR, 3, 17), {"NIR"}),  # St Patrick's Day
        (dt.date(NEXT_YEAR, 12, 25), {"ENG", "WLS", "SCT", "NIR"}),
    ],
)
def test_holidays_belong_to_their_nations(day, nations):
    for nation in ("ENG", "WLS", "SCT", "NIR"):
        assert is_bank_holiday(day, nation) == (nation in nations), nation


def test_scotland_has_its_own_new_year_and_august_holidays():
    # Scotland: 1 and 2 January (or substitutes), first Monday of August; England: last.
    first_monday_august = dt.date(NEXT_YEAR, 8, 1)
    first_monday_august += dt.timedelta(days=(7 - first_monday_august.weekday()) % 7)
    assert is_bank_holiday(first_monday_august, "SCT")
    assert not is_bank_holiday(first_monday_august, "ENG")
    early_january = [dt.date(NEXT_YEAR, 1, n) for n in range(2, 6)]
    assert any(is_bank_holiday(d, "SCT") and not is_bank_holiday(d, "ENG") for d in early_january)


def test_a_holiday_band_follows_the_pickups_nation():
    # A table whose night band also covers public holidays: at noon on Scotland's August
    # holiday a Scottish pickup is on the holiday band, an English one on the day band.
    common = {
        "flag_fall_distance": Decimal(100),
        "increment_distance": Decimal(100),
        "increment_price": Decimal("0.2"),
        "increment_seconds": Decimal(20),
        "excludes": windows_compile([]),
    }
    bands = (
        CompiledBand(
            name="Day",
            position=0,
            windows=windows_compile(
                [{"type": "weekly", "days": DAYS, "start": "06:00", "end": "22:00"}]
            ),
            flag_fall=Decimal("2"),
            **common,
        ),
        CompiledBand(
            name="Holiday",
            position=1,
            windows=windows_compile([{"type": "public_holiday"}]),
            flag_fall=Decimal("3"),
            **common,
        ),
    )
    tariff = CompiledTariff(
        id=1,
        version="",
        reference="t",
        kind="council",
        name="T",
        authority="A",
        tz=ZoneInfo("Europe/London"),
        time_bands=bands,
        tail_bands=(),
        extras=(),
        source={},
    )
    august = dt.date(NEXT_YEAR, 8, 1)
    august += dt.timedelta(days=(7 - august.weekday()) % 7)
    noon = dt.datetime.combine(august, dt.time(12), ZoneInfo("Europe/London"))
    scottish = fare_compute(
        tariff,
        distance_m=Decimal(100),
        duration_s=Decimal(1),
        depart_at=noon,
        options=FareOptions(nation="SCT"),
    )
    english = fare_compute(
        tariff,
        distance_m=Decimal(100),
        duration_s=Decimal(1),
        depart_at=noon,
        options=FareOptions(nation="ENG"),
    )
    assert (scottish.band, scottish.fare) == ("Holiday", Decimal("3.00"))
    assert (english.band, english.fare) == ("Day", Decimal("2.00"))


def test_the_nation_is_the_first_letter_of_the_district_code():
    assert nation_of_district("E08000035") == "ENG"
    assert nation_of_district("W06000015") == "WLS"
    assert nation_of_district("S12000049") == "SCT"
    assert nation_of_district("N09000003") == "NIR"
    assert nation_of_district(None) == "ENG"
