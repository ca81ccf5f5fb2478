"""The reference meter of the calibrated basis (issue 33): steps 1 and 3 of the method that
:mod:`pricing.estimation` states in full.

1. **Reference meter.** Every complete council table loaded is run, distance only, on a
   weekday at 11:00 and on a Saturday at 23:30, at 1, 2, 5 and 10 miles; a straight line
   ``fare = a + b * miles`` is fitted to its daytime fares (:func:`table_shape`). The
   :class:`Reference` is the median over the tables of the shape's ratios.
3. **Meter.** A fitted line becomes a meter the quote engine runs like any table
   (:func:`meter_bands`, :func:`compiled_from_bands` for a meter outside the database).
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from core.localtime import local_zone
from pricing.fares import (
    CompiledBand,
    CompiledTariff,
    FareOptions,
    TariffIncomplete,
    fare_compute,
    windows_compile,
)

if TYPE_CHECKING:
    from pricing.fare_figures import Fit

METRES_PER_MILE = Decimal("1609.344")
LOO_MILES = (1, 2, 5, 10)
STEP_GBP = Decimal("0.20")
DAY_START, DAY_END = "06:00", "22:00"
_CRUISE = Decimal("1000")  # m/s: a probe journey with no time in traffic


def _probe(weekday: int, hour: int, minute: int = 0) -> dt.datetime:
    """A fixed date in 2025 that is no public holiday anywhere in the UK."""
    day = dt.date(2025, 3, 3) + dt.timedelta(days=weekday)  # Monday 3 March 2025
    return dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=local_zone())


DAY_PROBE = _probe(1, 11)  # Tuesday 11:00
NIGHT_PROBE = _probe(5, 23, 30)  # Saturday 23:30


def meter_fare(
    tariff: CompiledTariff, miles: float | Decimal, at: dt.datetime, minutes=None
) -> Decimal | None:
    """What the table's meter shows for ``miles`` at ``at`` with no time in traffic, or
    for a journey of ``minutes`` with the quote's own time model (with any timed surcharge
    then in force); None when the table cannot price it."""
    from django.conf import settings

    distance = Decimal(str(miles)) * METRES_PER_MILE
    options = FareOptions(cruise_mps=_CRUISE)
    if minutes:
        cruise = Decimal(str(settings.PRICING_METER_CRUISE_MPH)) * Decimal("0.44704")
        options = FareOptions(cruise_mps=cruise)
    try:
        result = fare_compute(
            tariff,
            distance_m=distance,
            duration_s=Decimal(str(minutes or 0)) * 60,
            depart_at=at,
            options=options,
        )
    except TariffIncomplete:
        return None
    return result.fare


def percentile(values: list[float], q: float) -> float:
    """The q-quantile, linear between closest ranks (numpy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def least_squares_line(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares ``a + b * x`` through ``points`` (x distinct)."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    slope, intercept = statistics.linear_regression(xs, ys)
    return intercept, slope


@dataclass(frozen=True)
class TableShape:
    authority: str
    reference: str
    a: float  # £
    b: float  # £ a mile
    night_ratio: float
    start_m: float
    waiting_per_hour: float  # £
    tariff: CompiledTariff = field(repr=False, compare=False)
    # Its daytime fares by distance, once each: the fit asks every shape for the same few
    # distances for each authority it fits (ratios_at), and the table never changes.
    _fares: dict[str, float | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def fare(self, miles: float) -> float | None:
        key = str(miles)
        if key not in self._fares:
            value = meter_fare(self.tariff, miles, DAY_PROBE)
            self._fares[key] = None if value is None else float(value)
        return self._fares[key]


def table_shape(tariff: CompiledTariff) -> TableShape | None:
    """The straight-line shape of a complete table, or None when it cannot price every
    probe (a partial table)."""
    day = [meter_fare(tariff, m, DAY_PROBE) for m in LOO_MILES]
    night = [meter_fare(tariff, m, NIGHT_PROBE) for m in LOO_MILES]
    if any(v is None for v in day + night):
        return None
    try:
        band = tariff.band_at(DAY_PROBE)
    except TariffIncomplete:
        return None
    if band.multiplier is not None or not band.is_complete or band.is_tail:
        return None
    a, b = least_squares_line([(m, float(v)) for m, v in zip(LOO_MILES, day, strict=True)])
    ratios = [float(n) / float(d) for n, d in zip(night, day, strict=True)]
    per_hour = float(band.waiting_price) * 3600 / float(band.increment_seconds)
    return TableShape(
        authority=tariff.authority,
        reference=tariff.reference,
        a=a,
        b=b,
        night_ratio=statistics.median(ratios),
        start_m=float(band.flag_fall_distance),
        waiting_per_hour=per_hour,
        tariff=tariff,
    )


@dataclass(frozen=True)
class Reference:
    """The median shape of the complete tables (step 1 of the method)."""

    shapes: tuple[TableShape, ...]

    def ratios_at(self, miles: float) -> tuple[float, float]:
        """median(a / F(m)), median(b / F(m)) over the tables."""
        alphas, betas = [], []
        for shape in self.shapes:
            fare = shape.fare(miles)
            if fare:
                alphas.append(shape.a / fare)
                betas.append(shape.b / fare)
        return statistics.median(alphas), statistics.median(betas)

    @property
    def night_ratio(self) -> float:
        return statistics.median(s.night_ratio for s in self.shapes)

    @property
    def start_m(self) -> float:
        return statistics.median(s.start_m for s in self.shapes)

    @property
    def waiting_per_pound_mile(self) -> float:
        return statistics.median(s.waiting_per_hour / s.b for s in self.shapes)

    @property
    def start_to_b(self) -> float:
        return statistics.median(s.b / (s.a + s.b * s.start_m / 1609.344) for s in self.shapes)

    def without(self, authority: str) -> Reference:
        return Reference(tuple(s for s in self.shapes if s.authority != authority))


def reference_build(tariffs: Iterable[CompiledTariff]) -> Reference:
    shapes = [s for s in (table_shape(t) for t in tariffs) if s is not None]
    return Reference(tuple(shapes))


def _q(value: Decimal, places: str) -> Decimal:
    return value.quantize(Decimal(places), rounding=ROUND_HALF_UP)


def meter_bands(fit: Fit, reference: Reference, factor: Decimal = Decimal(1)) -> list[dict]:
    """Step 3: the day and night bands of a calibrated meter, in the registry's record
    form (``pricing/data/council_tariffs.json``), amounts as strings."""
    a, b = fit.a * factor, fit.b * factor
    start_m = Decimal(str(reference.start_m))
    per_hour = b * Decimal(str(reference.waiting_per_pound_mile))
    night = Decimal(str(reference.night_ratio))
    bands = []
    for name, windows, ratio in (
        (
            "Day (estimated)",
            [{"type": "weekly", "days": _DAYS, "start": DAY_START, "end": DAY_END}],
            Decimal(1),
        ),
        (
            "Night and public holidays (estimated)",
            [
                {"type": "weekly", "days": _DAYS, "start": DAY_END, "end": DAY_START},
                {"type": "public_holiday"},
            ],
            night,
        ),
    ):
        bands.append(
            {
                "name": name,
                "windows": windows,
                "excludes": [{"type": "public_holiday"}] if ratio == 1 else [],
                # less half a step: a meter charges each step as it begins, so over a
                # journey it shows half a step more than the line on average
                "flag_fall_gbp": str(
                    _q((a + b * start_m / METRES_PER_MILE) * ratio - STEP_GBP / 2, "0.01")
                ),
                "flag_fall_distance_m": str(_q(start_m, "0.1")),
                "increment_distance_m": str(_q(STEP_GBP / (b * ratio) * METRES_PER_MILE, "0.1")),
                "increment_price_gbp": str(STEP_GBP),
                "waiting_seconds_per_increment": str(
                    _q(STEP_GBP / (per_hour * ratio) * 3600, "0.1")
                ),
                "uncertain": [
                    "estimated: a reference meter fitted to the authority's published fares; "
                    "the hours are the reference's, not the authority's"
                ],
            }
        )
    return bands


_DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]


def compiled_from_bands(bands: list[dict], authority: str) -> CompiledTariff:
    """A calibrated meter compiled without the database (for the measure)."""

    compiled = tuple(
        CompiledBand(
            name=band["name"],
            position=i,
            windows=windows_compile(band["windows"]),
            excludes=windows_compile(band["excludes"]),
            flag_fall=Decimal(band["flag_fall_gbp"]),
            flag_fall_distance=Decimal(band["flag_fall_distance_m"]),
            increment_distance=Decimal(band["increment_distance_m"]),
            increment_price=Decimal(band["increment_price_gbp"]),
            increment_seconds=Decimal(band["waiting_seconds_per_increment"]),
        )
        for i, band in enumerate(bands)
    )
    return CompiledTariff(
        id=0,
        version="",
        reference="loo",
        kind="council",
        name=authority,
        authority=authority,
        tz=local_zone(),
        time_bands=compiled,
        tail_bands=(),
        extras=(),
        source={},
        basis="calibrated",
    )
