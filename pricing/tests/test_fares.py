"""The pure fare function against hand-computed fares and the published reference fares.

Expectations are worked out from the figures in pricing/data/council_tariffs.json, quoted
in the comments; a meter charges an increment as soon as it starts (ceil).
"""

import dataclasses
import datetime as dt
import json
from decimal import ROUND_CEILING, Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction

from pricing.catalogue import tariff_compile
from pricing.compiled_tariffs import TariffIncomplete
from pricing.fares import FareOptions, fare_compute
from pricing.loaders import tariffs_load
from pricing.models import Tariff
from pricing.routing import duration_for, great_circle_m

LONDON = ZoneInfo("Europe/London")
MILE = Decimal("1609.344")
OPTIONS = FareOptions()
WEDNESDAY_NOON = dt.datetime(2025, 6, 4, 12, 0, tzinfo=LONDON)
WEDNESDAY_NIGHT = dt.datetime(2025, 6, 4, 23, 30, tzinfo=LONDON)
DATA = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "council_tariffs.json").read_text()
)


@pytest.fixture(scope="module")
def compiled_catalogue(django_db_setup, django_db_blocker) -> dict:
    """Every shipped tariff, loaded and compiled once for this module, then rolled back.

    The fare function is pure: these tests need the compiled structures, not the rows, and
    loading the tariffs for each test would cost more than all the pricing they do.
    """
    with django_db_blocker.unblock(), transaction.atomic():
        tariffs_load(estimates=False)
        catalogue = {
            tariff.reference: tariff_compile(tariff)
            for tariff in Tariff.objects.prefetch_related("bands", "extras")
        }
        transaction.set_rollback(True)
    return catalogue


@pytest.fixture
def compiled(compiled_catalogue):
    return compiled_catalogue.__getitem__


def ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def no_waiting(distance_m: Decimal) -> Decimal:
    """A duration with no time below the changeover speed: distance-only metering."""
    return distance_m / OPTIONS.cruise_mps


def price(tariff, distance_m, when, *, duration_s=None, options=OPTIONS):
    if duration_s is None:
        duration_s = no_waiting(distance_m)
    return fare_compute(
        tariff, distance_m=distance_m, duration_s=duration_s, depart_at=when, options=options
    )


def rules_sum(result) -> Decimal:
    return sum((r["amountGBP"] for r in result.applied_rules), Decimal(0))


# --- published reference fares ------------------------------------------------------------


# Every published example fare of every loaded table (pricing/data/council_tariffs.json,
# reference_fares): "t1" at a weekday noon, "t2" at a weekday 23:30 (the night tariff).
EXAMPLE_WHEN = {"t1": WEDNESDAY_NOON, "t2": WEDNESDAY_NIGHT}
DISTANCE_CODES = {"flag_fall", "metered", "metered_beyond"}
EXAMPLES = [
    (entry["tariff_id"], entry["exact"], row["miles"], band, row[band])
    for entry in DATA["reference_fares"]
    if "tariff_id" in entry
    for row in entry["rows"]
    for band in ("t1", "t2")
    if band in row
]


def test_every_table_with_published_examples_is_tested():
    loaded = {t["id"] for t in DATA["tariffs"]}
    examples = {tariff_id for tariff_id, *_ in EXAMPLES}
    assert examples <= loaded
    assert {"brighton-2022", "manchester-2023-09"} <= examples


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tariff_id", "exact", "miles", "band", "published"),
    EXAMPLES,
    ids=[f"{t}-{m}mi-{b}" for t, _, m, b, _ in EXAMPLES],
)
def test_published_example_fares_are_the_distance_part_of_the_quote(
    compiled, tariff_id, exact, miles, band, published
):
    # Given a table and a fare its authority published for a distance (no waiting)...
    tariff = compiled(tariff_id)
    # ...when a journey of that distance (published in whole or half miles) is priced,
    # even one slowed by traffic,
    distance = Decimal(str(miles)) * MILE
    slow = price(tariff, distance, EXAMPLE_WHEN[band], duration_s=no_waiting(distance) + 600)
    distance_part = sum(
        (r["amountGBP"] for r in slow.applied_rules if r["code"] in DISTANCE_CODES), Decimal(0)
    )
    published = Decimal(str(published))
    # then the distance lines are the published fare: to the penny where the authority
    # gives its meter's fare, within one 20p increment where it gives an "average cost"
    if exact:
        assert distance_part == published
    else:
        assert abs(distance_part - published) <= Decimal("0.20")
    # and the time in traffic is its own line on top
    assert [r["code"] for r in slow.applied_rules][-1] == "time_in_traffic"
    assert rules_sum(slow) == slow.fare


# --- distances written in yards are kept exact (issue 33) ------------------------------------

YARD = Decimal("0.9144")  # metres, exactly (the international yard)
BAND_DISTANCES = (
    "flag_fall_distance_m",
    "increment_distance_m",
    "until_distance_m",
    "applies_after_distance_m",
)


def test_distances_written_in_yards_are_converted_without_rounding():
    # Given every band whose source wrote its distances in yards...
    registry = json.loads(
        (Path(__file__).resolve().parents[1] / "data" / "council_tariffs.json").read_text(),
        parse_float=Decimal,
    )
    rounded = [
        (tariff["id"], band["name"], field, band[field])
        for tariff in registry["tariffs"]
        for band in tariff["bands"]
        if "yd" in str(band.get("source_units") or "")
        for field in BAND_DISTANCES
        if band.get(field) is not None
        and (band[field] / YARD) != (band[field] / YARD).quantize(Decimal("0.01"))
    ]
    # then each of its distances is a whole number of hundredths of a yard times 0.9144 m:
    # 123.44 m for 135 yd (123.444 m) would be listed here
    assert rounded == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("tariff_id", "miles", "published"),
    [
        # 415 yd + 23 x 135 yd = 3520 yd: £3.20 + 23 x 20p (with 123.44 m a 24th step
        # began); PHTM's national table (August 2023) prints £7.80 for Bracknell Forest
        ("bracknell-2022-06", 2, "7.80"),
        # 880 yd + 22 x 120 yd = 3520 yd: £3.40 + 22 x 20p; PHTM prints £7.80 for South Hams
        ("south-hams-2022", 2, "7.80"),
        # 122.2 yd + 19 x 86.2 yd = 1760 yd: £2.00 + 19 x 20p, the council's "first mile"
        ("nottingham-2022-06", 1, "5.80"),
        # then 11 x 160 yd: + £2.20, PHTM's national table (August 2023) prints £8.00
        ("nottingham-2022-06", 2, "8.00"),
    ],
)
def test_a_whole_mile_on_a_step_boundary_charges_no_step_beyond_it(
    compiled, tariff_id, miles, published
):
    # Given a table written in yards whose whole miles fall exactly on a step boundary,
    tariff = compiled(tariff_id)
    distance = miles * MILE
    # when exactly that distance is priced by day, the fare is the council's own figure
    assert price(tariff, distance, WEDNESDAY_NOON).fare == Decimal(published)
    # and one centimetre more begins the next 20p step
    beyond = price(tariff, distance + Decimal("0.01"), WEDNESDAY_NOON)
    assert beyond.fare == Decimal(published) + Decimal("0.20")


TFL_WHEN = {
    "t1": dt.datetime(2025, 6, 4, 11, 0, tzinfo=LONDON),  # Mon-Fri 05:00-20:00
    "t2": dt.datetime(2025, 6, 4, 21, 0, tzinfo=LONDON),  # Mon-Fri 20:00-22:00
    "t3": dt.datetime(2025, 6, 4, 23, 30, tzinfo=LONDON),  # every day 22:00-05:00
}
TFL_CASES = [
    (row["miles"], band, tuple(row[band]))
    for row in DATA["reference_fares"][0]["rows"]
    if "miles" in row
    for band in ("t1", "t2", "t3")
]


@pytest.mark.django_db
@pytest.mark.parametrize(("miles", "band", "bounds"), TFL_CASES)
def test_tfl_fares_fall_within_published_ranges(compiled, miles, band, bounds):
    # Given TfL's complete metre/second table and the router's duration for the journey
    tfl = compiled("tfl-2017-06")
    distance = miles * MILE
    when = TFL_WHEN[band]
    duration = Decimal(round(duration_for(float(distance), when)))
    # When it is priced at that time of day
    result = price(tfl, distance, when, duration_s=duration)
    # Then the fare is inside TfL's published range for that distance and tariff
    assert Decimal(str(bounds[0])) <= result.fare <= Decimal(str(bounds[1]))
    assert result.band == f"Tariff {band[1]}"


@pytest.mark.django_db
def test_tfl_heathrow_to_central_london_within_published_range(compiled, settings):
    tfl = compiled("tfl-2017-06")
    low, high = DATA["reference_fares"][0]["rows"][4]["all"]
    # Heathrow (airportsdata) to central London (geonames), the estimate's road factor
    straight = great_circle_m(51.4706, -0.46194, 51.50853, -0.12574)
    metres = Decimal(str(round(straight * settings.PRICING_ROAD_FACTOR, 1)))
    for when in TFL_WHEN.values():
        duration = Decimal(round(duration_for(float(metres), when)))
        result = price(tfl, metres, when, duration_s=duration)
        assert Decimal(str(low)) <= result.fare <= Decimal(str(high))
        assert any(r["code"] == "metered_beyond" for r in result.applied_rules)


# --- hand-computed fares ------------------------------------------------------------------


@pytest.mark.django_db
def test_manchester_day_one_mile(compiled):
    # Tariff 1 Day: 3.40 covers 348.44 m, then 0.20 per 123 m.
    # (1609.344 - 348.44) / 123 = 10.25 -> 11 increments -> 3.40 + 2.20 = 5.60
    result = price(compiled("manchester-2023-09"), MILE, WEDNESDAY_NOON)
    assert result.fare == Decimal("3.40") + 11 * Decimal("0.20")
    assert result.band == "Tariff 1 Day"


@pytest.mark.django_db
def test_manchester_night_one_mile(compiled):
    # Tariff 2 Night: 3.80 covers 210.67 m, then 0.20 per 92.5 m.
    # (1609.344 - 210.67) / 92.5 = 15.12 -> 16 increments -> 3.80 + 3.20 = 7.00
    result = price(compiled("manchester-2023-09"), MILE, WEDNESDAY_NIGHT)
    assert result.fare == Decimal("3.80") + 16 * Decimal("0.20")
    assert result.band == "Tariff 2 Night"


@pytest.mark.django_db
def test_bands_follow_london_time_in_summer(compiled):
    # 21:30 UTC on a June Wednesday is 22:30 BST: Manchester's night rate starts at 22:00
    # local time, so the trip is charged at night (7.00), not at the day rate (5.60).
    result = price(
        compiled("manchester-2023-09"), MILE, dt.datetime(2025, 6, 4, 21, 30, tzinfo=dt.UTC)
    )
    assert result.band == "Tariff 2 Night"
    assert result.fare == Decimal("7.00")


@pytest.mark.django_db
def test_bands_follow_london_time_in_winter(compiled):
    # In January London is on GMT: 21:30 UTC is 21:30 local, still the day rate; and
    # 06:30 UTC on a summer morning is 07:30 BST, already day.
    winter = dt.datetime(2025, 1, 8, 21, 30, tzinfo=dt.UTC)
    summer_morning = dt.datetime(2025, 6, 4, 5, 30, tzinfo=dt.UTC)
    assert price(compiled("manchester-2023-09"), MILE, winter).band == "Tariff 1 Day"
    assert price(compiled("manchester-2023-09"), MILE, summer_morning).band == "Tariff 1 Day"


@pytest.mark.django_db
def test_manchester_waiting_time_adds_increments(compiled):
    # 5 km with 300 s below changeover speed: 0.20 per 123 m or per 31.57 s.
    # (5000 - 348.44) / 123 = 37.82; 300 / 31.57 = 9.50; total 47.32 -> 48 -> 3.40 + 9.60
    distance = Decimal(5000)
    result = price(
        compiled("manchester-2023-09"),
        distance,
        WEDNESDAY_NOON,
        duration_s=no_waiting(distance) + 300,
    )
    expected_units = (distance - Decimal("348.44")) / 123 + Decimal(300) / Decimal("31.57")
    assert ceil(expected_units) == 48
    assert result.fare == Decimal("3.40") + 48 * Decimal("0.20")


@pytest.mark.django_db
def test_increment_boundary_charges_the_next_increment_once_started(compiled):
    manchester = compiled("manchester-2023-09")
    # Exactly flag fall distance + 10 increments: 10 increments (5.40)
    exact = Decimal("348.44") + 10 * Decimal(123)
    assert price(manchester, exact, WEDNESDAY_NOON).fare == Decimal("5.40")
    # One centimetre more starts the 11th increment (5.60)
    assert price(manchester, exact + Decimal("0.01"), WEDNESDAY_NOON).fare == Decimal("5.60")
    # Inside the flag fall distance: flag fall only
    assert price(manchester, Decimal(300), WEDNESDAY_NOON).fare == Decimal("3.40")


@pytest.mark.django_db
def test_manchester_bank_holiday_noon_uses_night_rate(compiled):
    # 25 Aug 2025 is the summer bank holiday: Tariff 2 ("bank holidays 24h") or the
    # identical Tariff 3, never Tariff 1 Day -> 7.00 a mile
    holiday = dt.datetime(2025, 8, 25, 12, 0, tzinfo=LONDON)
    result = price(compiled("manchester-2023-09"), MILE, holiday)
    assert result.band != "Tariff 1 Day"
    assert result.fare == Decimal("3.80") + 16 * Decimal("0.20")


@pytest.mark.django_db
def test_manchester_christmas_is_tariff_2_plus_half(compiled):
    # Tariff 4 (20:00 24 Dec - 06:00 27 Dec) = Tariff 2 x 1.5: 7.00 + 3.50 = 10.50
    christmas = dt.datetime(2025, 12, 25, 12, 0, tzinfo=LONDON)
    result = price(compiled("manchester-2023-09"), MILE, christmas)
    assert result.band.startswith("Tariff 4")
    assert result.fare == (Decimal("3.80") + 16 * Decimal("0.20")) * Decimal("1.5")
    assert "festive_multiplier" in [r["code"] for r in result.applied_rules]
    assert "what the +50% applies to" in result.uncertain


@pytest.mark.django_db
def test_manchester_extra_passengers_are_charged(compiled):
    # "each passenger additional to hirer" 0.20: three passengers -> +0.40
    options = FareOptions(passengers=3)
    result = price(compiled("manchester-2023-09"), MILE, WEDNESDAY_NOON, options=options)
    assert result.fare == Decimal("5.60") + 2 * Decimal("0.20")
    assert "extra_passenger" in [r["code"] for r in result.applied_rules]


@pytest.mark.django_db
def test_manchester_airport_drop_off_barrier(compiled):
    options = FareOptions(dropoff_is_airport=True)
    result = price(compiled("manchester-2023-09"), MILE, WEDNESDAY_NOON, options=options)
    assert result.fare == Decimal("5.60") + Decimal("3.00")


@pytest.mark.django_db
def test_glasgow_night_surcharge_and_festive_instead(compiled):
    glasgow = compiled("glasgow-2025")
    # Single scale: 4.50 covers 804.67 m, then 0.30 per 159.11 m.
    # Two miles: (3218.688 - 804.67) / 159.11 = 15.17 -> 16 -> 4.50 + 4.80 = 9.30
    metered = Decimal("4.50") + 16 * Decimal("0.30")
    assert price(glasgow, 2 * MILE, WEDNESDAY_NOON).fare == metered
    # 21:00-06:00 adds the 1.50 night surcharge
    late = dt.datetime(2025, 6, 4, 22, 0, tzinfo=LONDON)
    assert price(glasgow, 2 * MILE, late).fare == metered + Decimal("1.50")
    # the festive 2.70 replaces it on Christmas night
    festive = dt.datetime(2025, 12, 25, 22, 0, tzinfo=LONDON)
    assert price(glasgow, 2 * MILE, festive).fare == metered + Decimal("2.70")


@pytest.mark.django_db
def test_cambridge_sunday_is_tariff_2(compiled):
    # Tariff 2 on Sundays: 4.85 covers 90 m, 0.20 per 143.5 m.
    # (1609.344 - 90) / 143.5 = 10.59 -> 11 -> 4.85 + 2.20 = 7.05
    sunday = dt.datetime(2025, 6, 8, 12, 0, tzinfo=LONDON)
    result = price(compiled("cambridge-2023-04"), MILE, sunday)
    assert result.band == "Tariff 2"
    assert result.fare == Decimal("4.85") + 11 * Decimal("0.20")


@pytest.mark.django_db
def test_tfl_tariff_4_prices_the_distance_beyond_six_miles(compiled):
    tfl = compiled("tfl-2017-06")
    distance = 10 * MILE
    # Tariff 1 to 9656.1 m: 2.60 covers 234.8 m, 0.20 per 117.4 m
    units_1 = (Decimal("9656.1") - Decimal("234.8")) / Decimal("117.4")  # 80.25 -> 81
    count_1 = ceil(units_1)
    # the 81st increment paid for 0.75 x 117.4 m beyond 9656.1 m; then 0.20 per 86.9 m
    carried = (count_1 - units_1) * Decimal("117.4")
    count_4 = ceil((distance - Decimal("9656.1") - carried) / Decimal("86.9"))
    result = price(tfl, distance, WEDNESDAY_NOON)
    assert (count_1, count_4) == (81, 74)
    assert result.fare == Decimal("2.60") + (count_1 + count_4) * Decimal("0.20")


@pytest.mark.django_db
def test_tfl_saturday_daytime_is_tariff_2_and_bank_holiday_tariff_3(compiled):
    tfl = compiled("tfl-2017-06")
    assert price(tfl, MILE, dt.datetime(2025, 6, 7, 10, 0, tzinfo=LONDON)).band == "Tariff 2"
    assert price(tfl, MILE, dt.datetime(2025, 5, 26, 10, 0, tzinfo=LONDON)).band == "Tariff 3"


@pytest.mark.django_db
def test_meet_and_greet_adds_25(compiled):
    manchester = compiled("manchester-2023-09")
    plain = price(manchester, MILE, WEDNESDAY_NOON)
    greeted = price(manchester, MILE, WEDNESDAY_NOON, options=FareOptions(meet_and_greet=True))
    assert greeted.fare - plain.fare == Decimal("25.00")
    assert greeted.applied_rules[-1]["code"] == "meet_and_greet"


@pytest.mark.django_db
def test_vehicle_factor_scales_the_metered_fare(compiled):
    # executive x1.40 of 5.60 -> +2.24
    options = FareOptions(vehicle_type="executive", vehicle_factor=Decimal("1.40"))
    result = price(compiled("manchester-2023-09"), MILE, WEDNESDAY_NOON, options=options)
    assert result.fare == Decimal("5.60") * Decimal("1.40")


@pytest.mark.django_db
@pytest.mark.parametrize("factor", ["1.001", "1.005", "1.0149", "1.333", "1.777", "2.5"])
def test_applied_rules_always_sum_to_the_fare(compiled, factor):
    options = FareOptions(
        passengers=5, vehicle_type="mpv", vehicle_factor=Decimal(factor), meet_and_greet=True
    )
    for reference in ("bracknell-undated", "manchester-2023-09", "south-glos-2023-24"):
        for metres in (500, 2345, 12_345, 40_000):
            result = price(
                compiled(reference),
                Decimal(metres),
                WEDNESDAY_NIGHT,
                duration_s=Decimal(metres) / 5,
                options=options,
            )
            assert rules_sum(result) == result.fare
            assert result.fare == result.fare.quantize(Decimal("0.01"))


@pytest.mark.django_db
def test_rounding_line_appears_when_lines_round_apart(compiled):
    # Given Bracknell with its party extra at 12.5% (instead of 50%) and a x1.005 class
    # factor, two lines have sub-penny parts: e.g. 5.40 -> 0.675 and 0.027, which round to
    # 0.68 + 0.03 while the fare rounds once (5.40 + 0.702 = 6.102 -> 6.10).
    bracknell = compiled("bracknell-undated")
    extra = dataclasses.replace(bracknell.extras[0], percent=Decimal("12.5"))
    tariff = dataclasses.replace(bracknell, extras=(extra,))
    options = FareOptions(passengers=5, vehicle_factor=Decimal("1.005"))
    codes = set()
    for metres in range(1000, 6000, 37):
        result = price(tariff, Decimal(metres), WEDNESDAY_NOON, options=options)
        codes.update(r["code"] for r in result.applied_rules)
        assert rules_sum(result) == result.fare
    assert "rounding" in codes


@pytest.mark.django_db
def test_sheffield_weekend_nights_and_the_rate_beyond_ten_miles(compiled):
    # Tariff 3 from 19:00 on a Friday; Tariff 2 on a Wednesday night; beyond 10 miles
    # (16093.44 m) 0.20 per 145.39 m instead of per 160.93 m.
    sheffield = compiled("sheffield-current")
    friday_night = dt.datetime(2025, 6, 6, 21, 0, tzinfo=LONDON)
    assert price(sheffield, MILE, friday_night).band == "Tariff 3 Weekend nights"
    assert price(sheffield, MILE, WEDNESDAY_NIGHT).band == "Tariff 2 Night"
    long = price(sheffield, 12 * MILE, WEDNESDAY_NOON)
    # (16093.44 - 91.44) / 160.93 = 99.43 -> 100 x 0.20; (19312.128 - 16093.44 - 0.57 x
    # 160.93 carried) / 145.39 = 21.51 -> 22 x 0.20; 3.50 + 20.00 + 4.40 = 27.90
    assert [r["code"] for r in long.applied_rules] == ["flag_fall", "metered", "metered_beyond"]
    assert long.fare == Decimal("27.90")


@pytest.mark.django_db
def test_newport_bank_holiday_extra_but_not_on_top_of_the_christmas_tariff(compiled):
    newport = compiled("newport-2022-09")
    late_august_monday = dt.datetime(2025, 8, 25, 12, 0, tzinfo=LONDON)  # a Welsh holiday
    holiday = price(newport, MILE, late_august_monday)
    assert ("time_surcharge", Decimal("1.50")) in [
        (r["code"], r["amountGBP"]) for r in holiday.applied_rules
    ]
    christmas = price(newport, MILE, dt.datetime(2025, 12, 25, 12, 0, tzinfo=LONDON))
    assert christmas.band.startswith("Tariff 4")
    assert "time_surcharge" not in [r["code"] for r in christmas.applied_rules]
    # twice Tariff 1: 3.50 + ceil((1609.344 - 91.44) / 91.44) = 17 x 0.10, doubled
    assert christmas.fare == 2 * (Decimal("3.50") + 17 * Decimal("0.10"))


@pytest.mark.django_db
def test_a_timed_charge_without_its_amount_prices_nothing(compiled):
    # South Gloucestershire's 2025 table: the holiday charges were not in the reports read
    south_glos = compiled("south-glos-2025-04")
    assert south_glos.can_price(WEDNESDAY_NOON, MILE)
    christmas = dt.datetime(2025, 12, 25, 12, 0, tzinfo=LONDON)
    assert not south_glos.can_price(christmas, MILE)
    with pytest.raises(TariffIncomplete, match="has no amount"):
        price(south_glos, MILE, christmas)


@pytest.mark.django_db
def test_incomplete_tariffs_refuse_to_price(compiled):
    with pytest.raises(TariffIncomplete):
        price(compiled("tfl-2025"), MILE, WEDNESDAY_NOON)
    # Brighton's New Year tariff has no increment price
    new_year = dt.datetime(2025, 12, 31, 23, 0, tzinfo=LONDON)
    with pytest.raises(TariffIncomplete):
        price(compiled("brighton-2022"), MILE, new_year)


@pytest.mark.django_db
def test_broxtowe_night_holidays_and_christmas_multiply_the_basic_rate(compiled):
    # Basic: 3.00 for 880 yd, then 0.10 per 88 yd -> 1 mile = 4.00 (the council's figure);
    # midnight-06:00 and bank holidays 1.25 x Basic, Christmas and New Year 2 x Basic
    broxtowe = compiled("broxtowe-current")
    assert price(broxtowe, MILE, WEDNESDAY_NIGHT).fare == Decimal("4.00")  # 23:30: Basic
    after_midnight = dt.datetime(2025, 6, 5, 0, 30, tzinfo=LONDON)
    night = price(broxtowe, MILE, after_midnight)
    assert night.band.startswith("Night and bank holidays")
    assert night.fare == Decimal("5.00")
    assert rules_sum(night) == night.fare
    holiday = dt.datetime(2025, 8, 25, 12, 0, tzinfo=LONDON)  # summer bank holiday
    assert price(broxtowe, MILE, holiday).fare == Decimal("5.00")
    before = dt.datetime(2025, 12, 24, 17, 59, tzinfo=LONDON)
    assert price(broxtowe, MILE, before).fare == Decimal("4.00")
    christmas_eve = dt.datetime(2025, 12, 24, 18, 0, tzinfo=LONDON)
    assert price(broxtowe, MILE, christmas_eve).fare == Decimal("8.00")
    # a bank holiday within the Christmas period is the Christmas rate, not 1.25 x
    boxing_day = dt.datetime(2025, 12, 26, 12, 0, tzinfo=LONDON)
    assert price(broxtowe, MILE, boxing_day).fare == Decimal("8.00")


@pytest.mark.django_db
def test_south_hams_cost_2_on_sundays_nights_holidays_and_christmas(compiled):
    # 1 mile: ceil((1609.344 - 804.65) / 109.7) = ceil(7.34) = 8 increments;
    # Cost 1 3.40 + 8 x 0.20 = 5.00, Cost 2 4.00 + 8 x 0.30 = 6.40
    south_hams = compiled("south-hams-2022")
    assert price(south_hams, MILE, WEDNESDAY_NOON).fare == Decimal("5.00")
    cost_2 = [
        dt.datetime(2025, 6, 8, 12, 0, tzinfo=LONDON),  # Sunday noon
        dt.datetime(2025, 6, 4, 20, 0, tzinfo=LONDON),  # Wednesday 20:00
        dt.datetime(2025, 8, 25, 12, 0, tzinfo=LONDON),  # summer bank holiday
        dt.datetime(2025, 12, 24, 19, 0, tzinfo=LONDON),  # Christmas Eve 19:00
    ]
    for when in cost_2:
        result = price(south_hams, MILE, when)
        assert (result.band, result.fare) == ("Cost 2", Decimal("6.40")), when
    christmas_eve_day = dt.datetime(2025, 12, 24, 18, 59, tzinfo=LONDON)
    assert price(south_hams, MILE, christmas_eve_day).band == "Cost 1"
    # "each additional passenger" 0.40: three passengers -> +0.80
    three = price(south_hams, MILE, WEDNESDAY_NOON, options=FareOptions(passengers=3))
    assert three.fare == Decimal("5.80")


@pytest.mark.django_db
def test_south_ribble_prices_distance_in_its_steps_and_waiting_at_10p_per_30_s(compiled):
    # The council's page: Tariff 1 £2.70 for the first two tenths of a mile, then £0.20 a
    # tenth; waiting on each tariff £0.10 per 30 s or part (waiting_increment_price_gbp).
    # 1 mile: 2.70 + 8 x 0.20 = 4.30; 2 miles: 2.70 + 18 x 0.20 = 6.30
    south_ribble = compiled("south-ribble-2022-04")
    assert south_ribble.lifecycle == "partial"  # may have been replaced (see its status)
    assert price(south_ribble, MILE, WEDNESDAY_NOON).fare == Decimal("4.30")
    assert price(south_ribble, 2 * MILE, WEDNESDAY_NOON).fare == Decimal("6.30")
    # 95 s in traffic: four periods of 30 s begun, at 10p each (a meter that shared the
    # 20p step between distance and time would have charged 0.80)
    slow = price(south_ribble, MILE, WEDNESDAY_NOON, duration_s=no_waiting(MILE) + 95)
    assert [(r["code"], r["amountGBP"]) for r in slow.applied_rules] == [
        ("flag_fall", Decimal("2.70")),
        ("metered", Decimal("1.60")),
        ("time_in_traffic", Decimal("0.40")),
    ]
    # Tariff 2 (00:00-06:00 and bank holidays): 3.50 + 8 x 0.25; Tariff 3 (Christmas and
    # New Year): 4.50 + 8 x 0.35; each waits at the same 10p per 30 s
    small_hours = dt.datetime(2025, 6, 5, 2, 0, tzinfo=LONDON)
    assert price(south_ribble, MILE, small_hours).fare == Decimal("5.50")
    holiday = dt.datetime(2025, 8, 25, 12, 0, tzinfo=LONDON)
    assert price(south_ribble, MILE, holiday).band == "Tariff 2"
    christmas = dt.datetime(2025, 12, 25, 12, 0, tzinfo=LONDON)
    festive = price(south_ribble, MILE, christmas, duration_s=no_waiting(MILE) + 30)
    assert (festive.band, festive.fare) == ("Tariff 3", Decimal("7.40"))
    # the hirer's companions: 20p each beyond the first
    three = price(south_ribble, MILE, WEDNESDAY_NOON, options=FareOptions(passengers=3))
    assert three.fare == Decimal("4.70")


@pytest.mark.django_db
def test_aberdeen_2023_bands_follow_the_councils_hours(compiled):
    # historical (replaced in April 2025), but its windows are read as the council wrote
    # them: weekday days, nights and weekends, weekend 02:00-05:00, Christmas
    aberdeen = compiled("aberdeen-2023")
    assert aberdeen.lifecycle == "historical"
    bands = {
        dt.datetime(2025, 6, 4, 12, 0): "Weekday day",
        dt.datetime(2025, 6, 4, 21, 0): "Nights and weekends",
        dt.datetime(2025, 6, 9, 7, 0): "Nights and weekends",  # Monday before 08:00
        dt.datetime(2025, 6, 7, 12, 0): "Nights and weekends",  # Saturday noon
        dt.datetime(2025, 6, 7, 3, 0): "Weekend small hours",
        dt.datetime(2025, 12, 25, 12, 0): "Christmas and New Year",
    }
    for when, band in bands.items():
        assert price(aberdeen, MILE, when.replace(tzinfo=LONDON)).band == band, when


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("reference", "when"),
    [
        ("aberdeen-2025-04", WEDNESDAY_NOON),  # no waiting time
        ("nottingham-2022-06", WEDNESDAY_NIGHT),  # the night prices are missing
        ("wirral-2024-02", WEDNESDAY_NOON),  # no hours, no waiting time
        ("northern-ireland-2023-12", WEDNESDAY_NOON),  # initial charges only
        ("tameside-2022-03", WEDNESDAY_NOON),  # no prices in the copy read
        ("halton-2023", WEDNESDAY_NOON),  # no hours for its three tariffs
        ("barnsley-2023", WEDNESDAY_NOON),  # a price per mile, not the increments
        ("east-dunbartonshire-2022-12", WEDNESDAY_NIGHT),  # Tariff 2 cut off in the copy
        ("west-dunbartonshire-2024-05", WEDNESDAY_NOON),  # no amounts in the copy read
        ("midlothian-2022-11", WEDNESDAY_NOON),  # no distances, no hours
        ("reading-2023-10", WEDNESDAY_NOON),  # no waiting time, flag-fall distance unclear
        ("bracknell-2026-05", WEDNESDAY_NOON),  # Appendix A not read
        ("dundee-2024-12", WEDNESDAY_NOON),  # no initial distances, no hours
        ("inverclyde-2024-12", WEDNESDAY_NOON),  # initial charges only
    ],
)
def test_partial_tables_refuse_to_price(compiled, reference, when):
    tariff = compiled(reference)
    assert tariff.lifecycle == "partial"
    assert not tariff.can_price(when, MILE)
    with pytest.raises(TariffIncomplete):
        price(tariff, MILE, when)
