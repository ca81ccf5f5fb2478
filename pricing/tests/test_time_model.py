"""The time-in-traffic speed model against TfL's typical fares and journey times (README,
"Time in traffic"): the shipped speed is the best of a grid, and its error is bounded."""

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from pricing.calibration import time_model_error
from pricing.fares import FareOptions, fare_compute, time_in_traffic_s

LONDON = ZoneInfo("Europe/London")
MILE = Decimal("1609.344")
MPH = Decimal("0.44704")
DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "council_tariffs.json").read_text()
)
TFL_ROWS = [r for r in DATA["reference_fares"][0]["rows"] if "miles" in r]
# A weekday noon (Tariff 1), a weekday 21:00 (Tariff 2), a night (Tariff 3), one week ahead.
_NEXT_WEDNESDAY = dt.date.today() + dt.timedelta(days=(2 - dt.date.today().weekday()) % 7 + 7)
WHEN = {
    "t1": dt.datetime.combine(_NEXT_WEDNESDAY, dt.time(11), LONDON),
    "t2": dt.datetime.combine(_NEXT_WEDNESDAY, dt.time(21), LONDON),
    "t3": dt.datetime.combine(_NEXT_WEDNESDAY, dt.time(23, 30), LONDON),
}


@pytest.fixture
def tfl_price(compiled):
    tfl = compiled("tfl-2017-06")

    def price(miles, band, minutes, cruise_mph):
        return float(
            fare_compute(
                tfl,
                distance_m=miles * MILE,
                duration_s=Decimal(minutes * 60),
                depart_at=WHEN[band],
                options=FareOptions(cruise_mps=Decimal(str(cruise_mph)) * MPH),
            ).fare
        )

    return price


def test_the_shipped_cruise_speed_is_the_best_fit_of_the_grid(tfl_price):
    shipped = time_model_error(tfl_price, TFL_ROWS, settings.PRICING_METER_CRUISE_MPH)
    grid = [time_model_error(tfl_price, TFL_ROWS, mph) for mph in range(8, 31, 2)]
    assert shipped.points == 24
    assert shipped.median_pct <= min(e.median_pct for e in grid) + 0.5
    # The figures the README states: median 9.2 %, p90 22.6 % at 20 mph.
    assert shipped.median_pct < 10
    assert shipped.p90_pct < 25


def test_a_journey_faster_than_the_cruise_speed_spends_no_time_in_traffic():
    # 1000 m at 10 m/s takes 100 s: 130 s is 30 s in traffic, 50 s is none (never negative)
    assert time_in_traffic_s(Decimal(1000), Decimal(130), Decimal(10)) == Decimal(30)
    assert time_in_traffic_s(Decimal(1000), Decimal(50), Decimal(10)) == Decimal(0)
