"""The fare function's rules on a small tariff built for the purpose, with round figures
worked out by hand: band windows and their edges, the meter across several distance
bands, extras, festive multipliers, vehicle classes and rounding. Pure: no database.

The tariff ("Testshire"), all times Europe/London:
- Day    06:00-22:00 every day except Sundays 06:00-22:00, bank holidays and 30 Dec:
         2.00 for the first 1000 m, then 0.10 per 100 m or 10 s
- Night  22:00-06:00: 3.00 for the first 1000 m, then 0.20 per 100 m or 10 s
- Sunday 06:00-22:00 on Sundays (same figures as Day)
- Festive 20:50 30 Dec - 06:10 31 Dec: Night x1.5
- Any    every minute of the week (listed last: loses every tie)
- beyond 3000 m 0.30 per 200 m or 20 s; beyond 5000 m 0.50 per 250 m or 25 s;
  beyond 5500 m 1.00 per 100 m or 10 s
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest

from pricing.compiled_tariffs import CompiledBand, CompiledExtra, CompiledTariff, TariffIncomplete
from pricing.fares import FareOptions, fare_compute
from pricing.tariff_windows import Windows, windows_compile

LONDON = ZoneInfo("Europe/London")
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
CRUISE = Decimal(10)  # m/s: a journey of d metres in d/10 s has no waiting
NO_WAIT = FareOptions(cruise_mps=CRUISE)


def daily(start: str, end: str, days=DAYS) -> dict:
    return {"type": "weekly", "days": days, "start": start, "end": end}


def band(name, position, windows, *, excludes=(), flag_fall="2.00", price="0.10", **extra):
    fields = {
        "flag_fall": Decimal(flag_fall),
        "flag_fall_distance": Decimal(1000),
        "increment_distance": Decimal(100),
        "increment_price": Decimal(price),
        "increment_seconds": Decimal(10),
    }
    fields.update(extra)
    return CompiledBand(
        name=name,
        position=position,
        windows=windows_compile(list(windows)),
        excludes=windows_compile(list(excludes)),
        **fields,
    )


def tail(name, after, distance, price, seconds, uncertain=()):
    return CompiledBand(
        name=name,
        position=10,
        windows=Windows(),
        excludes=Windows(),
        flag_fall=None,
        flag_fall_distance=None,
        increment_distance=Decimal(distance),
        increment_price=Decimal(price),
        increment_seconds=Decimal(seconds),
        after_distance=Decimal(after),
        uncertain=uncertain,
    )


def extra(name, kind, *, amount=None, percent=None, threshold=0, windows=()):
    return CompiledExtra(
        name=name,
        kind=kind,
        amount=None if amount is None else Decimal(amount),
        percent=None if percent is None else Decimal(percent),
        threshold=threshold,
        windows=windows_compile(list(windows)),
        uncertain=False,
    )


TIME_BANDS = (
    band(
        "Day",
        0,
        [daily("06:00", "22:00")],
        excludes=[
            daily("06:00", "22:00", ["Sun"]),
            {"type": "public_holiday"},
            {"type": "annual", "from": "12-30 00:00", "to": "12-31 00:00"},
        ],
        uncertain=("day flag fall distance",),
    ),
    band("Night", 1, [daily("22:00", "06:00")], flag_fall="3.00", price="0.20"),
    band("Sunday", 2, [daily("06:00", "22:00", ["Sun"])]),
    CompiledBand(
        name="Festive (Night x1.5)",
        position=3,
        windows=windows_compile([{"type": "annual", "from": "12-30 20:50", "to": "12-31 06:10"}]),
        excludes=Windows(),
        flag_fall=None,
        flag_fall_distance=None,
        increment_distance=None,
        increment_price=None,
        increment_seconds=None,
        multiplier=Decimal("1.5"),
        multiplier_of="Night",
    ),
    band("Any", 4, [daily("00:00", "24:00")], flag_fall="9.00"),
)
TAILS = (
    tail("Beyond 3 km", 3000, 200, "0.30", 20, uncertain=("beyond 3 km waiting rate",)),
    tail("Beyond 5 km", 5000, 250, "0.50", 25),
    tail("Beyond 5.5 km", 5500, 100, "1.00", 10),
)
EXTRAS = (
    extra("Extra passenger", "per_passenger", amount="0.50", threshold=2),
    extra("Group of five or more", "party_flat", amount="2.00", threshold=4),
    extra("Party of seven or more", "party_percent", percent="10", threshold=6),
    extra("Late", "time_surcharge", amount="1.00", windows=[daily("23:30", "05:15")]),
    extra("Sunday", "time_surcharge", amount="0.75", windows=[daily("00:00", "24:00", ["Sun"])]),
    extra(
        "New Year",
        "time_surcharge",
        amount="2.50",
        windows=[{"type": "annual", "from": "12-31 20:50", "to": "01-01 06:10"}],
    ),
    extra("Bank holiday", "time_surcharge", amount="1.25", windows=[{"type": "public_holiday"}]),
    extra("Airport pick-up", "airport_pickup", amount="4.00"),
    extra("Airport drop-off", "airport_dropoff", amount="3.00"),
)


def tariff(time_bands=TIME_BANDS, tail_bands=(), extras=()) -> CompiledTariff:
    return CompiledTariff(
        id=1,
        version="test",
        reference="testshire",
        kind="council",
        name="Testshire",
        authority="Testshire Council",
        tz=LONDON,
        time_bands=tuple(time_bands),
        tail_bands=tuple(tail_bands),
        extras=tuple(extras),
        source={},
    )


def at(year, month, day, hour, minute=0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=LONDON)


def price(when, *, distance=2000, waiting=0, options=NO_WAIT, **tariff_parts):
    distance = Decimal(distance)
    return fare_compute(
        tariff(**tariff_parts),
        distance_m=distance,
        duration_s=distance / options.cruise_mps + waiting,
        depart_at=when,
        options=options,
    )


def rules(result) -> list[tuple[str, Decimal]]:
    return [(r["code"], r["amountGBP"]) for r in result.applied_rules]


# --- which band applies -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("when", "expected"),
    [
        (at(2025, 6, 4, 5, 59), "Night"),  # Wednesday
        (at(2025, 6, 4, 6, 0), "Day"),  # a window includes its first minute...
        (at(2025, 6, 4, 21, 59), "Day"),
        (at(2025, 6, 4, 22, 0), "Night"),  # ...and not its last
        (
            at(2025, 6, 8, 12, 0),
            "Sunday",
        ),  # Day excludes Sundays; of Sunday and Any, the first listed wins
        (at(2025, 8, 25, 12, 0), "Any"),  # bank holiday: Day excludes it
        (at(2025, 12, 30, 12, 0), "Any"),  # Day excludes 30 Dec
        (at(2025, 12, 30, 20, 49), "Any"),
        (at(2025, 12, 30, 20, 50), "Festive (Night x1.5)"),  # a dated window beats a weekly one
        (at(2025, 12, 31, 6, 9), "Festive (Night x1.5)"),
        (at(2025, 12, 31, 6, 10), "Day"),
    ],
)
def test_the_band_in_force_at_each_edge(when, expected):
    assert price(when).band == expected


def test_the_band_follows_london_time_whatever_zone_the_departure_is_given_in():
    # 05:30 UTC on 4 June is 06:30 BST: Day, not Night
    assert price(dt.datetime(2025, 6, 4, 5, 30, tzinfo=dt.UTC)).band == "Day"


def test_a_moment_no_band_covers_cannot_be_priced():
    day_only = [TIME_BANDS[0]]
    with pytest.raises(TariffIncomplete, match="Testshire: no tariff band covers Wed 04 Jun 03:00"):
        price(at(2025, 6, 4, 3, 0), time_bands=day_only)


def test_a_band_with_missing_figures_cannot_be_priced():
    gap = band("Day", 0, [daily("00:00", "24:00")], increment_price=None)
    with pytest.raises(TariffIncomplete, match="Testshire: 'Day' has missing figures"):
        price(at(2025, 6, 4, 12), time_bands=[gap])


def test_a_distance_band_with_missing_figures_cannot_be_priced():
    broken = tail("Beyond 3 km", 3000, 200, "0.30", 20)
    broken = replace(broken, increment_price=None)
    with pytest.raises(TariffIncomplete, match="Testshire: 'Beyond 3 km' has missing figures"):
        price(at(2025, 6, 4, 12), distance=4000, tail_bands=[broken])


# --- the meter ------------------------------------------------------------------------------


def test_the_meter_charges_flag_fall_and_increments_with_exact_rules():
    # Day, 2000 m, no waiting: 2.00 + (2000 - 1000) / 100 = 10 x 0.10
    result = price(at(2025, 6, 4, 12))
    assert result.applied_rules == [
        {
            "code": "flag_fall",
            "label": "Day: flag fall, first 1000 m",
            "amountGBP": Decimal("2.00"),
        },
        {
            "code": "metered",
            "label": "Day: 10 x £0.1 per 100 m",
            "amountGBP": Decimal("1.00"),
        },
    ]
    assert result.fare == Decimal("3.00")
    assert result.uncertain == ("day flag fall distance",)


def test_a_journey_of_no_distance_costs_the_flag_fall():
    result = price(at(2025, 6, 4, 12), distance=0, waiting=30)
    assert rules(result) == [("flag_fall", Decimal("2.00"))]


def test_waiting_and_distance_share_the_meter_across_three_distance_bands():
    # The distance part alone, 6000 m:
    # Day to 3000 m:   (3000 - 1000) / 100 = 20                               -> 20 x 0.10
    # 3000-5000 m:     2000 / 200 = 10                                         -> 10 x 0.30
    # 5000-5500 m:     500 / 250 = 2                                           -> 2 x 0.50
    # 5500-6000 m:     500 / 100 = 5                                           -> 5 x 1.00
    # With 100 s of waiting shared by each segment's share of the distance, the meter shows:
    # Day to 3000 m:   20 + 100 x 3000/6000 / 10 = 25                          -> 25 x 0.10
    # 3000-5000 m:     10 + 100 x 2000/6000 / 20 = 11.67                       -> 12 x 0.30
    #                  (12 - 11.67) x 200 = 66.67 m already paid for
    # 5000-5500 m:     (500 - 66.67) / 250 + 100 x 500/6000 / 25 = 2.07        -> 3 x 0.50
    #                  (3 - 2.07) x 250 = 233.33 m already paid for
    # 5500-6000 m:     (500 - 233.33) / 100 + 100 x 500/6000 / 10 = 3.5        -> 4 x 1.00
    # 2.00 + 2.50 + 3.60 + 1.50 + 4.00 = 13.60 against 2.00 + 2.00 + 3.00 + 1.00 + 5.00 = 13.00
    result = price(at(2025, 6, 4, 12), distance=6000, waiting=100, tail_bands=TAILS)
    assert rules(result) == [
        ("flag_fall", Decimal("2.00")),
        ("metered", Decimal("2.00")),
        ("metered_beyond", Decimal("3.00")),
        ("metered_beyond", Decimal("1.00")),
        ("metered_beyond", Decimal("5.00")),
        ("time_in_traffic", Decimal("0.60")),
    ]
    assert result.fare == Decimal("13.60")
    assert result.uncertain == ("day flag fall distance", "beyond 3 km waiting rate")


def test_the_distance_part_never_depends_on_the_time_in_traffic():
    # Whatever the waiting, the distance lines are what the table gives for the distance
    # (contract 2.1); waiting only adds the time line.
    still = price(at(2025, 6, 4, 12), distance=6000, waiting=0, tail_bands=TAILS)
    slow = price(at(2025, 6, 4, 12), distance=6000, waiting=900, tail_bands=TAILS)
    distance_lines = [r for r in rules(slow) if r[0] != "time_in_traffic"]
    assert distance_lines == rules(still)
    assert rules(slow)[-1][0] == "time_in_traffic"
    assert slow.fare > still.fare


# A band that prices waiting in its own step (pricing/data/README.md
# ``waiting_increment_price_gbp``; South Ribble: 20p per tenth of a mile, 10p per 30 s).
WAITS_APART = band("Day", 0, [daily("00:00", "24:00")], waiting_increment_price=Decimal("0.05"))
SAME_STEP = band("Day", 0, [daily("00:00", "24:00")])


def test_a_band_with_its_own_waiting_step_prices_distance_as_before():
    # 2000 m, no waiting: 2.00 + 10 x 0.10, whatever the waiting step costs
    apart = price(at(2025, 6, 4, 12), time_bands=[WAITS_APART])
    same = price(at(2025, 6, 4, 12), time_bands=[SAME_STEP])
    assert (
        rules(apart)
        == rules(same)
        == [
            ("flag_fall", Decimal("2.00")),
            ("metered", Decimal("1.00")),
        ]
    )
    # ...and with time in traffic its distance lines are still the table's for the distance
    slow = price(at(2025, 6, 4, 12), waiting=95, time_bands=[WAITS_APART])
    assert rules(slow)[:2] == rules(same)


@pytest.mark.parametrize(
    ("waiting", "steps"),
    [(0, 0), (1, 1), (10, 1), (11, 2), (95, 10), (100, 10)],
)
def test_a_band_with_its_own_waiting_step_charges_time_in_its_own_increments(waiting, steps):
    # Waiting is counted apart from distance (the steps cost different amounts, so one
    # increment cannot be part distance, part time): every 10 s begun is 0.05, and the
    # distance's own increments are untouched. 2000 m ends exactly on an increment.
    result = price(at(2025, 6, 4, 12), waiting=waiting, time_bands=[WAITS_APART])
    time_lines = [r for r in rules(result) if r[0] == "time_in_traffic"]
    assert time_lines == ([("time_in_traffic", Decimal("0.05") * steps)] if steps else [])
    assert result.fare == Decimal("3.00") + Decimal("0.05") * steps


def test_waiting_apart_does_not_complete_the_distance_increment_already_begun():
    # 2050 m: 10.5 increments of distance, charged as 11 (1.10). With 5 s of waiting a
    # shared meter fills the begun increment (10.5 + 0.5 = 11: nothing more to pay); a
    # band that waits apart charges its first 10 s of waiting (0.05) on top.
    shared = price(at(2025, 6, 4, 12), distance=2050, waiting=5, time_bands=[SAME_STEP])
    apart = price(at(2025, 6, 4, 12), distance=2050, waiting=5, time_bands=[WAITS_APART])
    assert rules(shared) == [("flag_fall", Decimal("2.00")), ("metered", Decimal("1.10"))]
    assert rules(apart) == [*rules(shared), ("time_in_traffic", Decimal("0.05"))]


def test_a_waiting_step_of_the_same_price_is_the_shared_meter():
    # Giving the increment price again as the waiting price changes nothing (null means
    # "the same", and the same is the same)
    same_again = band("Day", 0, [daily("00:00", "24:00")], waiting_increment_price=Decimal("0.1"))
    for distance, waiting in ((2050, 5), (6000, 100), (1500, 37)):
        assert rules(
            price(at(2025, 6, 4, 12), distance=distance, waiting=waiting, time_bands=[same_again])
        ) == rules(
            price(at(2025, 6, 4, 12), distance=distance, waiting=waiting, time_bands=[SAME_STEP])
        )


def test_distance_bands_with_their_own_waiting_step_count_it_apart_in_each_segment():
    # 6000 m with 120 s of waiting, shared by each segment's share of the distance:
    # Day to 3000 m (shared step 0.10): 20 + 120 x 3000/6000 / 10 = 26        -> 26 x 0.10
    # 3000-5000 m (0.30, waiting 0.15 per 20 s): 10 distance; 40 s / 20 = 2    -> 2 x 0.15
    # 5000-5500 m (0.50 per 250 m or 25 s, shared): 500/250 + 10/25 = 2.4      -> 3 x 0.50
    #             (3 - 2.4) x 250 = 150 m already paid for
    # 5500-6000 m (1.00, waiting 0.40 per 10 s): (500 - 150)/100 = 3.5 -> 4; 10 s -> 1 x 0.40
    # distance alone: 2.00 + 2.00 + 3.00 + 1.00 + 5.00 = 13.00 (the 5500-6000 m segment
    # has no carry without waiting); with time: 2.00 + 2.60 + 3.30 + 1.50 + 4.40 = 13.80
    tails = (
        replace(TAILS[0], waiting_increment_price=Decimal("0.15")),
        TAILS[1],
        replace(TAILS[2], waiting_increment_price=Decimal("0.40")),
    )
    result = price(at(2025, 6, 4, 12), distance=6000, waiting=120, tail_bands=tails)
    assert rules(result) == [
        ("flag_fall", Decimal("2.00")),
        ("metered", Decimal("2.00")),
        ("metered_beyond", Decimal("3.00")),
        ("metered_beyond", Decimal("1.00")),
        ("metered_beyond", Decimal("5.00")),
        ("time_in_traffic", Decimal("0.80")),
    ]
    assert result.fare == Decimal("13.80")


def test_a_distance_band_starts_only_beyond_its_distance():
    # Exactly 3000 m: the 3 km band has nothing to charge and its doubts do not apply
    result = price(at(2025, 6, 4, 12), distance=3000, tail_bands=TAILS)
    assert rules(result) == [("flag_fall", Decimal("2.00")), ("metered", Decimal("2.00"))]
    assert result.uncertain == ("day flag fall distance",)


def test_a_festive_multiplier_scales_the_meter_and_the_vehicle_class_after_it():
    # Night: 3.00 + 10 x 0.20 = 5.00; festive x1.5 adds 2.50; an estate x1.5 of 7.50 adds 3.75
    options = FareOptions(cruise_mps=CRUISE, vehicle_type="estate", vehicle_factor=Decimal("1.5"))
    result = price(at(2025, 12, 30, 23), options=options)
    assert result.applied_rules[2:] == [
        {
            "code": "festive_multiplier",
            "label": "Festive (Night x1.5): x1.5 of Night",
            "amountGBP": Decimal("2.50"),
        },
        {
            "code": "vehicle_class",
            "label": "estate: x1.5 of the metered fare",
            "amountGBP": Decimal("3.75"),
        },
    ]
    assert result.fare == Decimal("11.25")


def test_lines_that_round_apart_get_a_rounding_line():
    # 3.00 metered; x1.125 adds 0.375 (0.38); meet and greet at 24.985 (24.99, half up,
    # not 24.98 as banks round): exactly 28.36, the lines say 28.37, so a rounding line of
    # -0.01 keeps them equal
    options = FareOptions(
        cruise_mps=CRUISE,
        vehicle_type="estate",
        vehicle_factor=Decimal("1.125"),
        meet_and_greet=True,
        meet_and_greet_gbp=Decimal("24.985"),
    )
    result = price(at(2025, 6, 4, 12), options=options)
    assert result.fare == Decimal("28.36")
    assert result.applied_rules[-2:] == [
        {
            "code": "meet_and_greet",
            "label": "Airport meet and greet",
            "amountGBP": Decimal("24.99"),
        },
        {"code": "rounding", "label": "Rounding to the penny", "amountGBP": Decimal("-0.01")},
    ]


# --- extras ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("passengers", "lines"),
    [
        (2, []),
        (3, [("extra_passenger", "Extra passenger (x1)", "0.50")]),
        (4, [("extra_passenger", "Extra passenger (x2)", "1.00")]),
        (
            5,
            [
                ("extra_passenger", "Extra passenger (x3)", "1.50"),
                ("party_surcharge", "Group of five or more", "2.00"),
            ],
        ),
        (
            6,
            [
                ("extra_passenger", "Extra passenger (x4)", "2.00"),
                ("party_surcharge", "Group of five or more", "2.00"),
            ],
        ),
        (
            7,
            [
                ("extra_passenger", "Extra passenger (x5)", "2.50"),
                ("party_surcharge", "Group of five or more", "2.00"),
                ("party_surcharge", "Party of seven or more (10%)", "0.30"),
            ],
        ),
    ],
)
def test_passenger_extras_start_above_their_thresholds(passengers, lines):
    options = FareOptions(cruise_mps=CRUISE, passengers=passengers)
    result = price(at(2025, 6, 4, 12), options=options, extras=EXTRAS)
    assert [(r["code"], r["label"], r["amountGBP"]) for r in result.applied_rules[2:]] == [
        (code, label, Decimal(amount)) for code, label, amount in lines
    ]


@pytest.mark.parametrize(
    ("when", "surcharge"),
    [
        (at(2025, 6, 4, 23, 29), None),
        (at(2025, 6, 4, 23, 30), ("Late", "1.00")),
        (at(2025, 6, 5, 5, 14), ("Late", "1.00")),
        (at(2025, 6, 5, 5, 15), None),
        (at(2025, 6, 8, 12, 0), ("Sunday", "0.75")),
        (at(2025, 8, 25, 12, 0), ("Bank holiday", "1.25")),
        (at(2025, 12, 31, 20, 49), None),
        (at(2025, 12, 31, 20, 50), ("New Year", "2.50")),
        (at(2025, 12, 31, 23, 45), ("New Year", "2.50")),  # instead of Late
        (at(2026, 1, 1, 6, 9), ("New Year", "2.50")),  # instead of Bank holiday
        (at(2026, 1, 1, 6, 10), ("Bank holiday", "1.25")),
    ],
)
def test_the_strongest_timed_surcharge_applies_alone(when, surcharge):
    result = price(when, extras=EXTRAS)
    timed = [
        (r["label"], r["amountGBP"]) for r in result.applied_rules if r["code"] == "time_surcharge"
    ]
    assert timed == ([] if surcharge is None else [(surcharge[0], Decimal(surcharge[1]))])


@pytest.mark.parametrize(
    ("pickup", "dropoff", "charges"),
    [
        (True, False, [("Airport pick-up", "4.00")]),
        (False, True, [("Airport drop-off", "3.00")]),
        (True, True, [("Airport pick-up", "4.00"), ("Airport drop-off", "3.00")]),
        (False, False, []),
    ],
)
def test_airport_charges_follow_the_ends_of_the_journey(pickup, dropoff, charges):
    options = FareOptions(
        cruise_mps=CRUISE, passengers=7, pickup_is_airport=pickup, dropoff_is_airport=dropoff
    )
    result = price(at(2025, 6, 4, 12), options=options, extras=EXTRAS)
    assert [
        (r["label"], r["amountGBP"]) for r in result.applied_rules if r["code"] == "airport_charge"
    ] == [(label, Decimal(amount)) for label, amount in charges]


def test_a_distance_band_the_last_increment_already_paid_for_adds_no_line():
    # Day's one increment past its first 1000 m pays to 1100 m: "Beyond 1050 m" (1050 to
    # 1090 m here) is paid for already, so it charges nothing and shows no "0 x" line
    beyond = tail("Beyond 1050 m", 1050, 200, "0.30", 20)
    result = price(at(2025, 6, 4, 12), distance=1090, tail_bands=[beyond])
    assert rules(result) == [("flag_fall", Decimal("2.00")), ("metered", Decimal("0.10"))]
    assert result.fare == Decimal("2.10")


@pytest.mark.parametrize(
    ("pickup_label", "charges"),
    [
        ("Manchester Piccadilly", [("station_charge", "Piccadilly Station barrier", "0.60")]),
        ("Manchester Victoria", []),
        ("", []),
    ],
)
def test_a_pick_up_charge_at_a_named_place_applies_there_only(pickup_label, charges):
    barrier = replace(
        extra("Piccadilly Station barrier", "station_pickup", amount="0.60"),
        place="Manchester Piccadilly",
    )
    # an extra naming no place is never charged as one, even for a pickup of no label
    unplaced = extra("Station rank", "station_pickup", amount="0.40")
    options = FareOptions(cruise_mps=CRUISE, pickup_label=pickup_label)
    result = price(at(2025, 6, 4, 12), options=options, extras=(*EXTRAS, unplaced, barrier))
    assert [
        (r["code"], r["label"], r["amountGBP"])
        for r in result.applied_rules
        if r["code"] not in {"flag_fall", "metered"}
    ] == [(code, label, Decimal(amount)) for code, label, amount in charges]


@pytest.mark.parametrize(
    ("waiting", "minutes"),
    [
        ("120", 2),
        # a hair under eleven minutes, at Decimal's full 28 digits, is still ten whole minutes:
        # the whole minutes are counted down (its quotient by 60 would round up to 11)
        ("659.9999999999999999999999999", 10),
    ],
)
def test_the_time_line_states_the_whole_minutes_spent_in_traffic(waiting, minutes):
    result = price(at(2025, 6, 4, 12), distance=0, waiting=Decimal(waiting))
    [label] = [r["label"] for r in result.applied_rules if r["code"] == "time_in_traffic"]
    assert label == (
        f"Time in traffic: about {minutes} min below 22.4 mph, charged by the meter's clock"
    )
