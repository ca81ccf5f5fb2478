"""Estimated tables (issue 33, contract 2.1): ``calibrated`` from an authority's published
figures, and the leave-one-out measure of the method's error.

Method (the README's "Estimated fares" states it too):

1. **Reference meter.** Every complete council table loaded (``table`` basis, current or
   historical: a table's shape outlives its prices) is run, distance only, on a weekday at
   11:00 and on a Saturday at 23:30, at 1, 2, 5 and 10 miles. A straight line
   ``fare = a + b * miles`` is fitted to its daytime fares (least squares), and its night
   fares are divided by its daytime ones. The reference is the median over the tables of
   ``a / F(m)`` and ``b / F(m)`` for a figure at ``m`` miles (``F``: the table's own fare
   there), the median night-to-day ratio, the median distance the start charge covers and
   the median price of an hour of waiting per pound a mile.
2. **Fit.** From the authority's own figures (``pricing/data/council_fare_points.json``,
   read by :func:`fare_points_load`): a per-mile price fixes ``b``; two or more fares
   (typical fares, a first mile, a start charge over its distance) fix the line by least
   squares, a typical fare published with its journey time counting the time in traffic
   as the distance the meter's clock would add (:func:`_effective_miles`); a single fare ``F`` at ``m`` miles (the national 2-mile table) gives
   ``a = F * median(a / F(m))`` and ``b = F * median(b / F(m))``.
3. **Meter.** The line becomes a meter the quote engine runs like any table: 20p steps
   every ``0.20 / b`` miles after a start charge of ``a + b * d0`` (less half a step, as
   a meter charges each step as it begins) for the median first distance ``d0``; waiting at the median hourly rate scaled by ``b``. Night (22:00-06:00
   every day, and public holidays) is the day meter times the median night-to-day ratio;
   the hours are not the authority's (it has not published them here) and are marked
   uncertain.
4. **Forward.** A rise the authority published after the figure's date (a percentage)
   multiplies the line from its first day: each rise is a new dated version.

Error: :func:`loo_measure` fits each authority that has a complete table from its 2-mile
daytime fare only (what the national table gives a calibrated authority), with the
reference built without it, and compares with its real table at 1, 2, 5 and 10 miles by
day and by night. ``errorPct`` on a quote is that measure's 90th percentile over day and
night (:attr:`LooResult.error_pct`); ``bench/bench_calibration.py`` prints the table.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

from core.localtime import local_zone
from pricing.catalogue import tariff_compiled_get
from pricing.fares import (
    CompiledBand,
    CompiledTariff,
    FareOptions,
    TariffIncomplete,
    fare_compute,
    windows_compile,
)
from pricing.models import Tariff, TariffBasis, TariffKind, TariffLifecycle
from pricing.uprating import changes_load, uprated_records

DATA_DIR = Path(__file__).resolve().parent / "data"
FARE_POINTS_FILE = DATA_DIR / "council_fare_points.json"
LONDON_POINTS_FILE = DATA_DIR / "london_fare_points.json"
METRES_PER_MILE = Decimal("1609.344")
LOO_MILES = (1, 2, 5, 10)
STEP_GBP = Decimal("0.20")
DAY_START, DAY_END = "06:00", "22:00"
METHOD = (
    "calibrated: the authority's published fares fitted to a reference meter (the median "
    "shape of the complete council tables loaded, scaled to the figures); night and "
    "holidays at the tables' median night-to-day ratio; later published rises applied"
)
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


def _line(points: list[tuple[float, float]]) -> tuple[float, float]:
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

    def fare(self, miles: float) -> float | None:
        value = meter_fare(self.tariff, miles, DAY_PROBE)
        return None if value is None else float(value)


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
    a, b = _line([(m, float(v)) for m, v in zip(LOO_MILES, day, strict=True)])
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


# --- the authority's figures -------------------------------------------------------------


@dataclass
class FigureSet:
    """One authority's published figures and rises (faredata's format, issue 33)."""

    authority: str
    areas_gss: tuple[str, ...]
    points: list[dict] = field(default_factory=list)
    rises: list[dict] = field(default_factory=list)

    @property
    def as_of(self) -> dt.date:
        return max(dt.date.fromisoformat(p["as_of"]) for p in self.points)

    @property
    def superseded_from(self) -> str | None:
        """When every figure is marked superseded (a later table whose figures were not
        found): the day the last of them stopped holding; the estimate ends then."""
        days = [p.get("superseded_from") for p in self.points]
        if not days or any(not d for d in days):
            return None
        return max(days)


def fare_points_load(paths: Iterable[Path] | None = None) -> list:
    """Every authority's figures from the points files (a missing file holds none).

    Amounts stay strings until used (Decimal); a figure whose amount is ``null`` (not
    found) is skipped, never guessed."""
    sets: dict[tuple, FigureSet] = {}
    for path in paths if paths is not None else (FARE_POINTS_FILE, LONDON_POINTS_FILE):
        if not Path(path).exists():
            continue
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        for kind in ("points", "rises"):
            for row in data.get(kind) or []:
                key = (row["authority"], tuple(row.get("areas_gss") or ()))
                figures = sets.setdefault(key, FigureSet(key[0], key[1]))
                if kind == "points" and row.get("amount_gbp") is None:
                    continue
                if kind == "rises" and row.get("percent") is None:
                    continue
                getattr(figures, kind).append(row)
    return [s for s in sets.values() if s.points]


@dataclass(frozen=True)
class Fit:
    a: Decimal
    b: Decimal  # £ a mile
    how: str


def _dec(value: float) -> Decimal:
    return Decimal(str(round(value, 6)))


def _effective_miles(point: dict, reference: Reference) -> float:
    """A fare's distance; for a typical fare published with its journey time
    (``minutes``), plus the miles the meter's clock adds: the minutes beyond moving at
    ``PRICING_METER_CRUISE_MPH`` charged at the reference's waiting rate, which is
    ``waiting_per_pound_mile`` pounds an hour for each pound a mile."""
    from django.conf import settings

    miles = float(Decimal(point["miles"]))
    minutes = point.get("minutes")
    if not minutes:
        return miles
    cruise_mph = float(settings.PRICING_METER_CRUISE_MPH)
    in_traffic = max(0.0, float(minutes) - miles / cruise_mph * 60)
    return miles + in_traffic / 60 * reference.waiting_per_pound_mile


def figures_fit(figures: FigureSet, reference: Reference) -> Fit | None:
    """Step 2 of the method: the line through the authority's Tariff 1 figures."""
    fares: list[tuple[float, float]] = []
    per_mile: list[float] = []
    starts: list[tuple[float | None, float]] = []
    for point in figures.points:
        if point.get("tariff") not in (None, 1, "1"):
            continue
        amount = float(Decimal(point["amount_gbp"]))
        kind = point["figure"]
        if kind == "fare" and point.get("miles") is not None:
            fares.append((_effective_miles(point, reference), amount))
        elif kind == "per_mile":
            per_mile.append(amount)
        elif kind == "start_charge":
            metres = point.get("distance_m")
            starts.append((float(Decimal(str(metres))) / 1609.344 if metres else None, amount))
    if per_mile:
        b = statistics.median(per_mile)
        anchors = fares + [(m, v) for m, v in starts if m is not None]
        if anchors:
            a = statistics.median(v - b * m for m, v in anchors)
        elif starts:
            a = statistics.median(v for _, v in starts) - b * reference.start_m / 1609.344
        else:
            return None
        return Fit(_dec(a), _dec(b), "per-mile price and a fare")
    line_points = fares + [(m, v) for m, v in starts if m is not None]
    if len({m for m, _ in line_points}) >= 2:
        a, b = _line(line_points)
        if b > 0:
            return Fit(_dec(a), _dec(b), f"line through {len(line_points)} published fares")
    if fares:
        # one distance (several zones' fares at it: their median)
        miles = fares[0][0]
        fare = statistics.median(v for _, v in fares)
        alpha, beta = reference.ratios_at(miles)
        return Fit(_dec(fare * alpha), _dec(fare * beta), f"{miles:g}-mile fare x reference shape")
    if starts:
        start = statistics.median(v for _, v in starts)
        b = start * reference.start_to_b
        return Fit(_dec(start - b * reference.start_m / 1609.344), _dec(b), "start charge")
    return None


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


# --- leave-one-out -----------------------------------------------------------------------


@dataclass(frozen=True)
class LooRow:
    authority: str
    reference: str
    when: str  # day or night
    miles: int
    real: float
    estimate: float

    @property
    def error_pct(self) -> float:
        return abs(self.estimate - self.real) / self.real * 100


@dataclass(frozen=True)
class LooResult:
    rows: tuple[LooRow, ...]

    def _values(self, when: str | None) -> list[float]:
        return [r.error_pct for r in self.rows if when is None or r.when == when]

    def median(self, when: str | None = None) -> float:
        return round(statistics.median(self._values(when)), 1)

    def p90(self, when: str | None = None) -> float:
        return round(percentile(self._values(when), 0.9), 1)

    @property
    def error_pct(self) -> float:
        """The figure a calibrated quote carries: the 90th percentile of the error over
        day and night, 1-10 miles."""
        return self.p90()

    @property
    def authorities(self) -> int:
        return len({r.authority for r in self.rows})


def loo_measure(reference: Reference) -> LooResult:
    """Fit each authority with a complete table from its 2-mile daytime fare only, with
    the reference built without it, and compare with its own table (step 5)."""
    rows: list[LooRow] = []
    for shape in reference.shapes:
        others = reference.without(shape.authority)
        if not others.shapes:
            continue
        two_miles = meter_fare(shape.tariff, 2, DAY_PROBE)
        figures = FigureSet(
            shape.authority,
            (),
            points=[{"figure": "fare", "tariff": 1, "miles": "2", "amount_gbp": str(two_miles)}],
        )
        fit = figures_fit(figures, others)
        bands = meter_bands(fit, others)
        estimated = compiled_from_bands(bands, shape.authority)
        for when, at in (("day", DAY_PROBE), ("night", NIGHT_PROBE)):
            for miles in LOO_MILES:
                real = meter_fare(shape.tariff, miles, at)
                guess = meter_fare(estimated, miles, at)
                rows.append(
                    LooRow(shape.authority, shape.reference, when, miles, float(real), float(guess))
                )
    return LooResult(tuple(rows))


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


def rises_after(figures: FigureSet) -> list[dict]:
    """The authority's published percentage rises after its figures' date, in order."""
    as_of = figures.as_of
    rises = [r for r in figures.rises if dt.date.fromisoformat(r["effective_from"]) > as_of]
    return sorted(rises, key=lambda r: r["effective_from"])


def group_by_authority(rows: Iterable) -> dict[str, list]:
    groups: dict[str, list] = defaultdict(list)
    for row in rows:
        groups[row.authority].append(row)
    return groups


# --- building the estimated tables -------------------------------------------------------


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50]


def _estimate_source(source: dict) -> dict:
    return {
        "url": source.get("url") or source.get("address"),
        "publisher": source.get("publisher") or source.get("title", ""),
        "date": source.get("date") or source.get("read") or "",
        "secondary": bool(source.get("secondary")),
    }


def partial_figures(record: dict) -> FigureSet | None:
    """What a partial table still tells (issue 33: one missing figure no longer throws
    away what is known): its first tariff's start charge over its distance, and its price
    a mile from its step, as figures for calibration."""
    status = (record.get("status") or "").lower()
    if "partial" not in status or "historical" in status or "superseded" in status:
        return None
    if not record.get("bands"):
        return None
    band = record["bands"][0]
    source = (record.get("source") or [{}])[0]
    as_of = (record.get("effective_date") or "")[:10]
    try:
        dt.date.fromisoformat(as_of)
    except ValueError:
        as_of = max((s.get("read", "") for s in record.get("source") or []), default="")
    if not as_of:
        return None
    common = {
        "tariff": 1,
        "as_of": as_of,
        "source": {
            "url": source.get("address"),
            "publisher": source.get("title", ""),
            "date": as_of,
            "secondary": bool(source.get("secondary")),
        },
        "notes": f"from the partial table {record['id']}",
    }
    points = []
    if band.get("flag_fall_gbp") is not None:
        points.append(
            {
                **common,
                "id": f"{record['id']}-start",
                "figure": "start_charge",
                "amount_gbp": str(band["flag_fall_gbp"]),
                "distance_m": band.get("flag_fall_distance_m"),
            }
        )
    price, distance = band.get("increment_price_gbp"), band.get("increment_distance_m")
    if price is not None and distance:
        per_mile = Decimal(str(price)) / Decimal(str(distance)) * METRES_PER_MILE
        points.append(
            {
                **common,
                "id": f"{record['id']}-per-mile",
                "figure": "per_mile",
                "amount_gbp": str(per_mile.quantize(Decimal("0.0001"))),
            }
        )
    if not any(p["figure"] == "per_mile" for p in points) and not any(
        p["figure"] == "start_charge" and p.get("distance_m") for p in points
    ):
        return None  # a start charge alone says too little to fit a meter
    authority = record.get("council") or record["authority"]
    return FigureSet(authority, tuple(record.get("areas_gss") or ()), points=points)


def _checks(figures: FigureSet, compiled: CompiledTariff) -> list[str]:
    lines = []
    for point in figures.points:
        if point["figure"] != "fare" or point.get("tariff") not in (None, 1, "1"):
            continue
        published = Decimal(point["amount_gbp"])
        minutes = point.get("minutes")
        ours = meter_fare(compiled, Decimal(point["miles"]), DAY_PROBE, minutes)
        gap = (ours - published) / published * 100
        publisher = (point.get("source") or {}).get("publisher", "")
        journey = f"{point['miles']}-mile" + (f", {minutes}-minute" if minutes else "")
        line = (
            f"{journey} fare published £{published} ({publisher}, {point['as_of']}): "
            f"this meter £{ours} ({gap:+.1f} %)"
        )
        if line not in lines:
            lines.append(line)
    return lines


def calibrated_records(figures: FigureSet, reference: Reference, loo: LooResult) -> list[dict]:
    """The dated versions of one authority's calibrated table (steps 2-4)."""
    fit = figures_fit(figures, reference)
    if fit is None or fit.b <= 0:
        return []
    base_id = f"calibrated-{_slug(figures.authority)}"
    if figures.areas_gss:
        base_id += f"-{figures.areas_gss[0].lower()}"
    sources: list[dict] = []
    for point in figures.points:
        source = _estimate_source(point.get("source") or {})
        if source["url"] and source not in sources:
            sources.append(source)
    bands = meter_bands(fit, reference)
    day, night = bands[0]["name"], bands[1]["name"]
    steps: list[tuple[str | None, Decimal, dict | None]] = [(None, Decimal(1), None)]
    factor = Decimal(1)
    for rise in rises_after(figures):
        factor *= 1 + Decimal(rise["percent"]) / 100
        steps.append((rise["effective_from"], factor, rise))
    records = []
    for index, (day_from, scale, rise) in enumerate(steps):
        if rise is not None:
            source = _estimate_source(rise.get("source") or {})
            if source["url"] and source not in sources:
                sources.append(source)
        version_bands = meter_bands(fit, reference, scale)
        compiled = compiled_from_bands(version_bands, figures.authority)
        record = {
            "id": base_id if day_from is None else f"{base_id}-{day_from}",
            "council": figures.authority,
            "name": f"{figures.authority}: estimated from its published fares",
            "status": "current (calibrated estimate)",
            "effective_date": day_from,
            "areas_gss": list(figures.areas_gss),
            "source": [
                {"title": s["publisher"], "address": s["url"], "secondary": s["secondary"]}
                for s in sources
            ],
            "uncertain": [
                f"estimated ({fit.how}); the authority's meter may differ",
                "night hours 22:00-06:00 are the reference meter's, not the authority's",
            ],
            "bands": version_bands,
            "extras": [],
            "basis": "calibrated",
            "estimate": {
                "method": f"{METHOD}; fitted from the {fit.how}",
                "errorPct": loo.p90("day"),
                "errorPctByBand": {day: loo.p90("day"), night: loo.p90("night")},
                "sources": list(sources),
                "checks": _checks(figures, compiled),
                "figuresAsOf": figures.as_of.isoformat(),
            },
        }
        if index + 1 < len(steps):
            record["effective_to"] = steps[index + 1][0]
        elif figures.superseded_from:
            record["effective_to"] = figures.superseded_from
            record["uncertain"].append(
                f"superseded from {figures.superseded_from} by a table whose figures were not found"
            )
        records.append(record)
    return records


def reference_from_database() -> Reference:
    """The reference meter of the complete council tables loaded (step 1)."""

    tables = Tariff.objects.filter(
        kind=TariffKind.COUNCIL,
        basis=TariffBasis.TABLE,
        lifecycle__in=[TariffLifecycle.CURRENT, TariffLifecycle.HISTORICAL],
        is_active=True,
    ).prefetch_related("bands", "extras")
    return reference_build(tariff_compiled_get(t) for t in tables)


def estimation_build(tables: list[dict], *, uprating_error: float | None) -> list[dict]:
    """Every estimated table's records: uprated where a chain of changes is complete (and
    the uprating error could be measured), calibrated for every authority with published
    figures (partial tables included)."""

    reference = reference_from_database()
    if len(reference.shapes) < 3:
        return []  # too few complete tables to say what a meter looks like
    loo = loo_measure(reference)
    by_id = {t["id"]: t for t in tables}
    records: list[dict] = []
    for changes in changes_load():
        base = by_id.get(changes.base)
        if base is not None and uprating_error is not None:
            records += uprated_records(changes, base, uprating_error)
    sets = fare_points_load()
    by_area = {s.areas_gss or (s.authority,): s for s in sets}
    for table in tables:
        figures = partial_figures(table)
        if figures is None:
            continue
        same = by_area.get(figures.areas_gss or (figures.authority,))
        if same is None:
            sets.append(figures)
        else:  # the partial table's figures join the published ones for that area
            same.points.extend(figures.points)
    for figures in sets:
        records += calibrated_records(figures, reference, loo)
    return records
