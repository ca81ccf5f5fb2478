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
import re
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.conf import settings

from core.money import gbp
from pricing.holidays import ENGLAND, is_bank_holiday

CENT = Decimal("0.01")
ZERO = Decimal(0)
ONE = Decimal(1)
HUNDRED = Decimal(100)
UNIT_PRECISION = Decimal("0.000001")

# Which window made a band (or a timed surcharge) apply decides between overlapping ones:
# a dated festive window beats a public holiday, which beats the weekly pattern.
PRECEDENCE_WEEKLY = 10
PRECEDENCE_HOLIDAY = 20
PRECEDENCE_ANNUAL = 30

DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
YEAR_END_KEY = 12_31_2400
YEAR_START_KEY = 1_01_0000

_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}


class TariffIncomplete(Exception):
    """The tariff lacks a figure needed for this journey (shared/data/README.md: never
    invent a missing figure). Selection skips such tariffs; direct callers get this."""


# --- windows -----------------------------------------------------------------------------


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.strip().split(":")
    return int(hours) * 60 + int(minutes)


def _annual_key(month_day: str, hhmm: str) -> int:
    """'12-24', '20:00' -> 12242000 (comparable within a year)."""
    month, day = (int(p) for p in month_day.split("-"))
    return month * 1_000_000 + day * 10_000 + int(hhmm.replace(":", ""))


@dataclass(frozen=True, slots=True)
class Windows:
    """When something applies, as integer intervals for constant-time matching.

    ``weekly``: [start, end) minutes of the week (Monday 00:00 = 0), wraps pre-split.
    ``annual``: [start, end) keys MMDDhhmm within a year, wraps pre-split.
    ``holiday``: every minute of a public holiday of the journey's nation.
    """

    weekly: tuple[tuple[int, int], ...] = ()
    annual: tuple[tuple[int, int], ...] = ()
    holiday: bool = False

    def __bool__(self) -> bool:
        return bool(self.weekly or self.annual or self.holiday)

    def precedence(self, week_minute: int, annual_key: int, holiday: bool) -> int:
        """0 when no window matches, else the strongest matching kind."""
        for start, end in self.annual:
            if start <= annual_key < end:
                return PRECEDENCE_ANNUAL
        if holiday and self.holiday:
            return PRECEDENCE_HOLIDAY
        for start, end in self.weekly:
            if start <= week_minute < end:
                return PRECEDENCE_WEEKLY
        return 0


def windows_compile(specs: list[dict]) -> Windows:
    """Compile stored window specs (see ``pricing.models.TariffBand.windows``)."""
    weekly: list[tuple[int, int]] = []
    annual: list[tuple[int, int]] = []
    holiday = False

    def add_weekly(start: int, end: int) -> None:
        start %= MINUTES_PER_WEEK
        end = start + ((end - start) % MINUTES_PER_WEEK or MINUTES_PER_WEEK)
        if end <= MINUTES_PER_WEEK:
            weekly.append((start, end))
        else:
            weekly.extend([(start, MINUTES_PER_WEEK), (0, end - MINUTES_PER_WEEK)])

    for spec in specs:
        kind = spec["type"]
        if kind == "public_holiday":
            holiday = True
        elif kind == "weekly":
            start, end = _minutes(spec["start"]), _minutes(spec["end"])
            length = (end - start) % MINUTES_PER_DAY or MINUTES_PER_DAY
            for day in spec["days"]:
                offset = DAY_NAMES.index(day) * MINUTES_PER_DAY
                add_weekly(offset + start, offset + start + length)
        elif kind == "weekly_span":
            (from_day, from_time), (to_day, to_time) = (
                s.split() for s in (spec["from"], spec["to"])
            )
            add_weekly(
                DAY_NAMES.index(from_day) * MINUTES_PER_DAY + _minutes(from_time),
                DAY_NAMES.index(to_day) * MINUTES_PER_DAY + _minutes(to_time),
            )
        elif kind == "annual":
            start = _annual_key(*spec["from"].split())
            end = _annual_key(*spec["to"].split())
            if start < end:
                annual.append((start, end))
            else:  # crosses New Year
                annual.extend([(start, YEAR_END_KEY + 1), (YEAR_START_KEY, end)])
        else:
            raise ValueError(f"Unknown window type {kind!r}")
    return Windows(weekly=tuple(weekly), annual=tuple(annual), holiday=holiday)


# --- compiled tariff ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompiledBand:
    name: str
    position: int
    windows: Windows
    excludes: Windows
    flag_fall: Decimal | None
    flag_fall_distance: Decimal | None
    increment_distance: Decimal | None
    increment_price: Decimal | None
    increment_seconds: Decimal | None
    until_distance: Decimal | None = None
    # The price of one waiting increment where the table gives its own (None: the same as
    # ``increment_price``); read it through ``waiting_price``.
    waiting_increment_price: Decimal | None = None
    after_distance: Decimal | None = None
    multiplier: Decimal | None = None
    multiplier_of: str = ""
    uncertain: tuple[str, ...] = ()

    @property
    def waiting_price(self) -> Decimal | None:
        """What one increment of waiting (``increment_seconds``) costs: the band's own
        waiting step if the table gives one, else its increment price (the one home of
        that rule: the meter and the booking's waiting charge read it here)."""
        if self.waiting_increment_price is not None:
            return self.waiting_increment_price
        return self.increment_price

    @property
    def waits_apart(self) -> bool:
        """Whether waiting is charged in a step of another price than distance, so that
        the two cannot share an increment."""
        return self.waiting_price != self.increment_price

    @property
    def is_tail(self) -> bool:
        return self.after_distance is not None

    @property
    def is_complete(self) -> bool:
        if self.multiplier is not None:
            return bool(self.multiplier_of)
        meter = (self.increment_distance, self.increment_price, self.increment_seconds)
        if (
            any(v is None for v in meter)
            or not self.increment_distance
            or not self.increment_seconds
        ):
            return False
        return self.is_tail or (self.flag_fall is not None and self.flag_fall_distance is not None)


@dataclass(frozen=True, slots=True)
class CompiledExtra:
    name: str
    kind: str
    amount: Decimal | None
    percent: Decimal | None
    threshold: int
    windows: Windows
    uncertain: bool
    place: str = ""  # a pick-up charge at a named place: the gazetteer's label


@dataclass(frozen=True, slots=True)
class CompiledTariff:
    """Everything :func:`fare_compute` needs, free of the ORM."""

    id: int
    version: str
    reference: str
    kind: str
    name: str
    authority: str
    tz: ZoneInfo
    time_bands: tuple[CompiledBand, ...]
    tail_bands: tuple[CompiledBand, ...]
    extras: tuple[CompiledExtra, ...]
    source: dict = field(hash=False, compare=False)
    # ONS codes of the districts the table covers (pricing.licensing); empty: all of the
    # authority's districts.
    areas_gss: tuple[str, ...] = ()
    account_id: int | None = None
    effective_from: dt.date | None = None
    effective_to: dt.date | None = None
    lifecycle: str = "current"
    # How its fares are reached (pricing.models.TariffBasis): table, uprated, calibrated,
    # network; selection prefers them in that order (pricing.selectors.councils_for).
    basis: str = "table"
    # Whose public holidays its bands and charges follow (pricing.holidays): the nation of
    # its districts; the network's own rates follow the pickup's (FareOptions.nation).
    nation: str = ENGLAND

    def in_force_on(self, day: dt.date) -> bool:
        """Whether the table prices a journey picked up on ``day`` (Europe/London): from
        its first day (unknown counts as long ago) until the day its replacement starts."""
        if self.effective_from is not None and day < self.effective_from:
            return False
        return self.effective_to is None or day < self.effective_to

    def band_at(self, local: dt.datetime, nation: str | None = None) -> CompiledBand:
        """The time band in force at local time ``local`` (Europe/London), public holidays
        being those of ``nation`` (default: the table's own)."""
        week_minute = local.weekday() * MINUTES_PER_DAY + local.hour * 60 + local.minute
        annual_key = local.month * 1_000_000 + local.day * 10_000 + local.hour * 100 + local.minute
        holiday = is_bank_holiday(local.date(), nation or self.nation)
        best: CompiledBand | None = None
        best_precedence = 0
        for band in self.time_bands:
            precedence = band.windows.precedence(week_minute, annual_key, holiday)
            if precedence > best_precedence and not band.excludes.precedence(
                week_minute, annual_key, holiday
            ):
                best, best_precedence = band, precedence
        if best is None:
            raise TariffIncomplete(f"{self.name}: no tariff band covers {local:%a %d %b %H:%M}.")
        return best

    def band_named(self, name: str) -> CompiledBand:
        for band in self.time_bands:
            if band.name == name or band.name.startswith(name + " "):
                return band
        raise TariffIncomplete(f"{self.name}: band '{name}' not found.")

    def can_price(self, local: dt.datetime, distance_m: Decimal, nation: str | None = None) -> bool:
        """Whether every figure this journey needs is known (selection skips it if not)."""
        try:
            band = self.band_at(local, nation)
            if band.multiplier is not None:
                band = self.band_named(band.multiplier_of)
        except TariffIncomplete:
            return False
        if not band.is_complete:
            return False
        timed = _timed_extra(self, local, nation or self.nation)
        if timed is not None and timed.amount is None:
            return False  # a timed charge applies whose amount the source did not give
        return all(t.is_complete for t in self.tail_bands if t.after_distance < distance_m)


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
                f"{meter_band.name}: flag fall, first {_fmt(meter_band.flag_fall_distance)} m",
                meter_band.flag_fall,
            )
        )
        if count:
            lines.append(
                (
                    "metered",
                    f"{meter_band.name}: {count} x £{_fmt(meter_band.increment_price)} per "
                    f"{_fmt(inc_d)} m",
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
                    f"{_fmt(tail.increment_distance)} m",
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


def _timed_extra(tariff: CompiledTariff, local: dt.datetime, nation: str) -> CompiledExtra | None:
    """The timed surcharge in force at ``local``: they replace each other ("instead of
    night"), so the strongest matching window wins."""
    timed: CompiledExtra | None = None
    timed_precedence = 0
    week_minute = annual_key = 0
    holiday = None
    for extra in tariff.extras:
        if extra.kind != "time_surcharge":
            continue
        if holiday is None:
            week_minute = local.weekday() * MINUTES_PER_DAY + local.hour * 60 + local.minute
            annual_key = (
                local.month * 1_000_000 + local.day * 10_000 + local.hour * 100 + local.minute
            )
            holiday = is_bank_holiday(local.date(), nation)
        precedence = extra.windows.precedence(week_minute, annual_key, holiday)
        if precedence > timed_precedence:
            timed, timed_precedence = extra, precedence
    return timed


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


# --- parsing of the councils' wording (used by the loader) -------------------------------

_TIME = r"(\d{1,2}:\d{2})"
_DATE = r"(\d{1,2}) ([A-Z][a-z]{2})"
_RE_SPAN = re.compile(rf"^{_TIME} {_DATE} ?(?:-|to) ?{_TIME} {_DATE}$")
_RE_DAY_TO_TIME = re.compile(rf"^{_DATE} to {_TIME} {_DATE}$")
_RE_TIMES_ON_DATES = re.compile(rf"^{_TIME}-{_TIME} ((?:\d{{1,2}} [A-Z][a-z]{{2}}(?: and )?)+)$")
_RE_WEEKLY = re.compile(
    rf"^(?:also )?(Mon|Tue|Wed|Thu|Fri|Sat|Sun)-(Mon|Tue|Wed|Thu|Fri|Sat|Sun) "
    rf"{_TIME}-{_TIME}$"
)
_RE_SUNDAYS = re.compile(rf"^Sundays(?: {_TIME}-{_TIME})?$")
_RE_WEEK_SPAN = re.compile(
    rf"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) {_TIME}-(Mon|Tue|Wed|Thu|Fri|Sat|Sun) {_TIME}"
)
_RE_DAILY = re.compile(rf"{_TIME}-{_TIME}")
_HOLIDAY_WORDS = re.compile(r"\b(?:public|bank) holidays?\b", re.IGNORECASE)
_EXCLUDE_WORDS = re.compile(r"^(?:excludes|not)\b", re.IGNORECASE)


def _md(day: str, month: str) -> str:
    return f"{_MONTHS[month]:02d}-{int(day):02d}"


def _hhmm(text: str) -> str:
    hours, minutes = text.split(":")
    return f"{int(hours):02d}:{minutes}"


def _day_range(first: str, last: str) -> list[str]:
    i, j = DAY_NAMES.index(first), DAY_NAMES.index(last)
    return [DAY_NAMES[(i + k) % 7] for k in range((j - i) % 7 + 1)]


def special_dates_parse(text: str) -> tuple[list[dict], list[dict]] | None:
    """Council wording for a special period -> (windows, excludes); None if not understood.

    Understood forms are the ones in pricing/data/council_tariffs.json, e.g.
    "20:00 24 Dec-06:00 27 Dec", "25 Dec to 07:00 26 Dec", "18:00-24:00 24 Dec and 31 Dec",
    "06:00-10:00 1 Jan", "also Sat-Sun 05:00-22:00", "Sundays 06:00-21:00",
    "bank holidays 24h", "excludes public holidays", "Fri 18:00-Mon 06:00".
    """
    text = text.strip()
    windows: list[dict] = []
    for part in (p.strip() for p in text.split(";")):
        if m := _RE_SPAN.match(part):
            t1, d1, m1, t2, d2, m2 = m.groups()
            windows.append(
                {
                    "type": "annual",
                    "from": f"{_md(d1, m1)} {_hhmm(t1)}",
                    "to": f"{_md(d2, m2)} {_hhmm(t2)}",
                }
            )
        elif m := _RE_DAY_TO_TIME.match(part):
            d1, m1, t2, d2, m2 = m.groups()
            windows.append(
                {
                    "type": "annual",
                    "from": f"{_md(d1, m1)} 00:00",
                    "to": f"{_md(d2, m2)} {_hhmm(t2)}",
                }
            )
        elif m := _RE_TIMES_ON_DATES.match(part):
            t1, t2, dates = m.groups()
            for day, month in re.findall(r"(\d{1,2}) ([A-Z][a-z]{2})", dates):
                start = f"{_md(day, month)} {_hhmm(t1)}"
                if t2 == "24:00":
                    nxt = dt.date(2001, _MONTHS[month], int(day)) + dt.timedelta(days=1)
                    end = f"{nxt:%m-%d} 00:00"
                else:
                    end = f"{_md(day, month)} {_hhmm(t2)}"
                windows.append({"type": "annual", "from": start, "to": end})
        elif m := _RE_WEEKLY.match(part):
            first, last, t1, t2 = m.groups()
            windows.append(
                {
                    "type": "weekly",
                    "days": _day_range(first, last),
                    "start": _hhmm(t1),
                    "end": _hhmm(t2),
                }
            )
        elif m := _RE_SUNDAYS.match(part):
            t1, t2 = m.groups()
            windows.append(
                {
                    "type": "weekly",
                    "days": ["Sun"],
                    "start": _hhmm(t1 or "00:00"),
                    "end": _hhmm(t2 or "24:00"),
                }
            )
        elif m := _RE_WEEK_SPAN.search(part):
            d1, t1, d2, t2 = m.groups()
            windows.append(
                {"type": "weekly_span", "from": f"{d1} {_hhmm(t1)}", "to": f"{d2} {_hhmm(t2)}"}
            )
        elif _HOLIDAY_WORDS.search(part):
            if _EXCLUDE_WORDS.match(part):
                return [], [{"type": "public_holiday"}]
            windows.append({"type": "public_holiday"})
        elif m := _RE_DAILY.search(part):
            windows.append(
                {
                    "type": "weekly",
                    "days": list(DAY_NAMES),
                    "start": _hhmm(m[1]),
                    "end": _hhmm(m[2]),
                }
            )
        else:
            return None
    return windows, []
