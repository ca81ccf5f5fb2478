"""The fare: one pure function over a compiled tariff (issue "pricing", contract 1 and 2.1).

A tariff in the database is compiled once into plain frozen dataclasses holding Decimals
(``tariff_compile``); :func:`fare_compute` works only on that structure, so pricing a
journey does no ORM or database work and can be benchmarked on its own.

Meter model (shared/data/README.md): the flag fall covers the first
``flag_fall_distance_m``; after it the meter advances one increment per
``increment_distance_m`` travelled or per ``waiting_seconds_per_increment`` spent below the
changeover speed, an increment charged as soon as it starts. A band with
``applies_after_distance_m`` (TfL's rate beyond about six miles) prices the distance beyond,
and the increment already paid at the switch carries over. A band whose waiting is priced
in its own step (``waiting_increment_price_gbp``: South Ribble's 10p per 30 s against 20p
per tenth of a mile) counts its waiting increments apart from its distance increments,
each begun one paid at its own price (:meth:`CompiledBand.waiting_price`).

Contract 2.1: the distance part of a council fare is exactly what the authority's meter
shows for the distance (``flag_fall``, ``metered``, ``metered_beyond``: every published
example fare reproduces to the penny), and the time the meter would charge in traffic is
its own line (``time_in_traffic``): the meter run on distance and time together, less the
meter on distance alone. We know a journey only as a distance and a duration, so the time
in traffic is the part of the duration not explained by moving at ``cruise_mps``
(``PRICING_METER_CRUISE_MPH``, calibrated against TfL's typical fares and journey times:
README "Time in traffic").

Money: Decimal only, every line rounded half-up to 2 dp; a ``rounding`` line keeps the sum
of the lines equal to the fare (contract 2.1: appliedRules reproduce the fare).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from functools import lru_cache

from django.conf import settings

from core.money import gbp
from pricing.compiled_tariffs import (
    CompiledBand,
    CompiledExtra,
    CompiledTariff,
    TariffIncomplete,
    _timed_extra,
)
from pricing.tariff_windows import Windows, windows_compile

CENT = Decimal("0.01")
CENTIMETRE = Decimal("0.01")  # how finely a label shows a band's distances
ZERO = Decimal(0)
ONE = Decimal(1)
HUNDRED = Decimal(100)
UNIT_PRECISION = Decimal("0.000001")


@dataclass(frozen=True, slots=True)
class FareOptions:
    passengers: int = 1
    vehicle_type: str = "saloon"
    vehicle_factor: Decimal = ONE
    meet_and_greet: bool = False
    # Seed section 8; its one home is settings.PRICING_MEET_AND_GREET_GBP.
    meet_and_greet_gbp: Decimal = field(
        default_factory=lambda: Decimal(str(settings.PRICING_MEET_AND_GREET_GBP))
    )
    pickup_is_airport: bool = False
    dropoff_is_airport: bool = False
    # The pickup as the gazetteer labels it, for a pick-up charge at a named place
    # (Manchester Piccadilly's station barrier).
    pickup_label: str = ""
    # Speed above which a meter charges by distance (≈ 20 mph): see the module docstring.
    cruise_mps: Decimal = Decimal("8.94")
    # The pickup's nation, for public holidays (pricing.holidays); None: the table's own.
    nation: str | None = None


@dataclass(frozen=True, slots=True)
class FareResult:
    fare: Decimal
    applied_rules: list[dict]
    band: str
    uncertain: tuple[str, ...]


# --- the pure function -------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _fmt(value: Decimal) -> str:
    # A table has a handful of figures, formatted for every line of every fare: cached.
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _metres_fmt(value: Decimal) -> str:
    # Distances are exact (a yard is 0.9144 m); a label shows them to the centimetre.
    return _fmt(value.quantize(CENTIMETRE, rounding=ROUND_HALF_UP))


def _ceil_units(units: Decimal) -> int:
    if units <= ZERO:
        return 0
    # Quantise first so that Decimal division noise never adds a spurious increment.
    return int(units.quantize(UNIT_PRECISION).to_integral_value(rounding=ROUND_CEILING))


MPS_PER_MPH = Decimal("0.44704")


@lru_cache(maxsize=16)
def _mph(mps: Decimal) -> Decimal:
    return (mps / MPS_PER_MPH).quantize(Decimal("0.1"))


def time_in_traffic_s(distance_m: Decimal, duration_s: Decimal, cruise_mps: Decimal) -> Decimal:
    """The seconds of a journey the meter would charge by its clock: the part of the
    duration not explained by moving at ``cruise_mps`` (the calibrated speed model,
    README "Time in traffic"); never negative."""
    waiting = duration_s - distance_m / cruise_mps
    return waiting if waiting > ZERO else ZERO


def _steps(
    band: CompiledBand, distance_units: Decimal, waiting_s: Decimal
) -> tuple[int, int, Decimal]:
    """The increments a segment charges: (distance increments, waiting increments, the
    units the distance increments were counted from). Distance and waiting share one
    increment when they cost the same; a band that prices waiting in its own step counts
    each apart, every begun increment of each paid."""
    if not waiting_s:
        return _ceil_units(distance_units), 0, distance_units
    waiting_units = waiting_s / band.increment_seconds
    if band.waits_apart:
        return _ceil_units(distance_units), _ceil_units(waiting_units), distance_units
    units = distance_units + waiting_units
    return _ceil_units(units), 0, units


def _meter(
    tariff: CompiledTariff,
    meter_band: CompiledBand,
    distance_m: Decimal,
    waiting: Decimal,
    *,
    labelled: bool = True,
) -> tuple[list[tuple[str, str, Decimal]], Decimal]:
    """Run the meter over ``distance_m`` with ``waiting`` seconds below the changeover
    speed, shared between the distance segments by their share of the distance.

    The flag fall covers its first distance; then one increment per increment distance
    (or per increment seconds of waiting), charged as soon as it starts (waiting in its
    own increments where the band prices it apart: :func:`_steps`). A distance band
    (TfL's rate beyond about six miles) prices the distance beyond its start, and what the
    last increment paid for beyond a segment's end carries into the next. Returns the
    lines (none unless ``labelled``) and their total."""
    lines: list[tuple[str, str, Decimal]] = []
    tails = [t for t in tariff.tail_bands if t.after_distance < distance_m]
    seg_end = distance_m
    if meter_band.until_distance is not None and meter_band.until_distance < seg_end:
        seg_end = meter_band.until_distance
    if tails and tails[0].after_distance < seg_end:
        seg_end = tails[0].after_distance
    inc_d = meter_band.increment_distance
    waiting_here = ZERO
    if waiting:
        waiting_here = waiting * (seg_end / distance_m if distance_m else ONE)
    count, waited, units = _steps(
        meter_band, (seg_end - meter_band.flag_fall_distance) / inc_d, waiting_here
    )
    total = (
        meter_band.flag_fall
        + meter_band.increment_price * count
        + (meter_band.waiting_price * waited if waited else ZERO)
    )
    if labelled:
        lines.append(
            (
                "flag_fall",
                f"{meter_band.name}: flag fall, first {_metres_fmt(meter_band.flag_fall_distance)} m",
                meter_band.flag_fall,
            )
        )
        if count:
            lines.append(
                (
                    "metered",
                    f"{meter_band.name}: {count} x £{_fmt(meter_band.increment_price)} per "
                    f"{_metres_fmt(inc_d)} m",
                    meter_band.increment_price * count,
                )
            )
    carried_m = (count - units) * inc_d if count else ZERO
    seg_start = seg_end
    for index, tail in enumerate(tails):
        if not tail.is_complete:
            raise TariffIncomplete(f"{tariff.name}: '{tail.name}' has missing figures.")
        seg_end = tails[index + 1].after_distance if index + 1 < len(tails) else distance_m
        seg_len = seg_end - seg_start
        waiting_here = waiting * (seg_len / distance_m) if waiting else ZERO
        count, waited, units = _steps(
            tail, (seg_len - carried_m) / tail.increment_distance, waiting_here
        )
        total += tail.increment_price * count
        if waited:
            total += tail.waiting_price * waited
        if count and labelled:
            lines.append(
                (
                    "metered_beyond",
                    f"{tail.name}: {count} x £{_fmt(tail.increment_price)} per "
                    f"{_metres_fmt(tail.increment_distance)} m",
                    tail.increment_price * count,
                )
            )
        carried_m = (count - units) * tail.increment_distance if count else ZERO
        seg_start = seg_end
    return lines, total


def fare_compute(
    tariff: CompiledTariff,
    *,
    distance_m: Decimal,
    duration_s: Decimal,
    depart_at: dt.datetime,
    options: FareOptions,
) -> FareResult:
    """Price one journey. Pure: no I/O, no settings, no clock.

    Guarantees: the fare is a Decimal with 2 dp, half-up; ``applied_rules`` itemise every
    component ({code, label, amountGBP}) and their amounts sum exactly to the fare; the
    band is chosen from ``depart_at`` in the tariff's local time. Raises
    :class:`TariffIncomplete` when a needed figure is missing.
    """
    local = depart_at.astimezone(tariff.tz)
    nation = options.nation or tariff.nation
    band = tariff.band_at(local, nation)
    uncertain: tuple[str, ...] = band.uncertain
    meter_band = band
    if band.multiplier is not None:
        meter_band = tariff.band_named(band.multiplier_of)
    if not meter_band.is_complete:
        raise TariffIncomplete(f"{tariff.name}: '{meter_band.name}' has missing figures.")

    lines: list[tuple[str, str, Decimal]] = []
    waiting = time_in_traffic_s(distance_m, duration_s, options.cruise_mps)

    # The meter is run twice over the same segments: on the distance alone (what the
    # authority's table and its published examples give for that distance, exactly), and
    # on distance and time together (what the meter shows when the cab also spends
    # ``waiting`` seconds in traffic). The difference is the time line.
    distance_lines, distance_total = _meter(tariff, meter_band, distance_m, ZERO)
    lines.extend(distance_lines)
    if waiting > ZERO:
        _, with_time_total = _meter(tariff, meter_band, distance_m, waiting, labelled=False)
        extra = with_time_total - distance_total
        if extra > ZERO:
            lines.append(
                (
                    "time_in_traffic",
                    f"Time in traffic: about {int(waiting // 60)} min below "
                    f"{_fmt(_mph(options.cruise_mps))} mph, charged by the meter's clock",
                    extra,
                )
            )
    for tail in tariff.tail_bands:
        if tail.after_distance < distance_m:
            uncertain += tail.uncertain

    metered = sum((amount for _, _, amount in lines), ZERO)
    if band.multiplier is not None:
        lines.append(
            (
                "festive_multiplier",
                f"{band.name}: x{_fmt(band.multiplier)} of {meter_band.name}",
                metered * (band.multiplier - ONE),
            )
        )
        metered *= band.multiplier
    if options.vehicle_factor != ONE:
        lines.append(
            (
                "vehicle_class",
                f"{options.vehicle_type}: x{_fmt(options.vehicle_factor)} of the metered fare",
                metered * (options.vehicle_factor - ONE),
            )
        )

    lines.extend(_extras(tariff, local, metered, options, nation))
    if options.meet_and_greet:
        lines.append(("meet_and_greet", "Airport meet and greet", options.meet_and_greet_gbp))

    exact = sum((amount for _, _, amount in lines), ZERO)
    fare = gbp(exact)
    rules = [
        {"code": code, "label": label, "amountGBP": gbp(amount)} for code, label, amount in lines
    ]
    drift = fare - sum((r["amountGBP"] for r in rules), ZERO)
    if drift:
        rules.append({"code": "rounding", "label": "Rounding to the penny", "amountGBP": drift})
    return FareResult(fare=fare, applied_rules=rules, band=band.name, uncertain=uncertain)


def _extras(
    tariff: CompiledTariff,
    local: dt.datetime,
    metered: Decimal,
    options: FareOptions,
    nation: str,
) -> list[tuple[str, str, Decimal]]:
    lines: list[tuple[str, str, Decimal]] = []
    for extra in tariff.extras:
        kind = extra.kind
        if kind == "per_passenger":
            extra_people = options.passengers - extra.threshold
            if extra_people > 0:
                lines.append(
                    (
                        "extra_passenger",
                        f"{extra.name} (x{extra_people})",
                        extra.amount * extra_people,
                    )
                )
        elif kind == "party_flat" and options.passengers > extra.threshold:
            lines.append(("party_surcharge", extra.name, extra.amount))
        elif kind == "party_percent" and options.passengers > extra.threshold:
            lines.append(
                (
                    "party_surcharge",
                    f"{extra.name} ({_fmt(extra.percent)}%)",
                    metered * extra.percent / HUNDRED,
                )
            )
        elif (kind == "airport_pickup" and options.pickup_is_airport) or (
            kind == "airport_dropoff" and options.dropoff_is_airport
        ):
            lines.append(("airport_charge", extra.name, extra.amount))
        elif kind == "station_pickup" and extra.place and extra.place == options.pickup_label:
            lines.append(("station_charge", extra.name, extra.amount))
    timed = _timed_extra(tariff, local, nation)
    if timed is not None:
        if timed.amount is None:
            raise TariffIncomplete(f"{tariff.name}: '{timed.name}' has no amount.")
        if timed.amount:  # a zero charge only stands in for another at its times
            lines.append(("time_surcharge", timed.name, timed.amount))
    return lines


# The compiled tariff's names, for callers that still import them from here (their homes:
# pricing.compiled_tariffs and pricing.tariff_windows).
__all__ = [
    "CENT",
    "HUNDRED",
    "ONE",
    "UNIT_PRECISION",
    "ZERO",
    "CompiledBand",
    "CompiledExtra",
    "CompiledTariff",
    "FareOptions",
    "FareResult",
    "TariffIncomplete",
    "Windows",
    "fare_compute",
    "time_in_traffic_s",
    "windows_compile",
]
