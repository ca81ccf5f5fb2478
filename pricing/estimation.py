"""Estimated tables (issue 33, contract 2.1): ``calibrated`` from an authority's published
figures, and the leave-one-out measure of the method's error.

Method (the README's "Estimated fares" states it too). Steps 1 and 3 live in
:mod:`pricing.reference_meter`, step 2 in :mod:`pricing.fare_figures`; this module measures
the error and builds the dated records.

1. **Reference meter.** Every complete council table loaded (``table`` basis, current or
   historical: a table's shape outlives its prices) is run, distance only, on a weekday at
   11:00 and on a Saturday at 23:30, at 1, 2, 5 and 10 miles. A straight line
   ``fare = a + b * miles`` is fitted to its daytime fares (least squares), and its night
   fares are divided by its daytime ones. The reference is the median over the tables of
   ``a / F(m)`` and ``b / F(m)`` for a figure at ``m`` miles (``F``: the table's own fare
   there), the median night-to-day ratio, the median distance the start charge covers and
   the median price of an hour of waiting per pound a mile.
2. **Fit.** From the authority's own figures (``pricing/data/council_fare_points.json``,
   read by :func:`pricing.fare_figures.fare_points_load`): a per-mile price fixes ``b``
   (with a fare or a start charge; alone it fits nothing: fitted from the price a mile
   alone, the complete tables are off by a p90 of 20 % by day, ``bench/bench_calibration.py``);
   two or more fares
   (typical fares, a first mile, a start charge over its distance) fix the line by least
   squares, a typical fare published with its journey time counting the time in traffic
   as the distance the meter's clock would add (:func:`pricing.fare_figures._effective_miles`); a single fare ``F`` at ``m`` miles (the national 2-mile table) gives
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

import re
import statistics
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

from pricing.catalogue import tariff_compiled_get
from pricing.fare_figures import (
    FigureSet,
    fare_points_load,
    figures_fit,
    partial_figures,
    rises_after,
)
from pricing.fares import CompiledTariff
from pricing.models import Tariff, TariffBasis, TariffKind, TariffLifecycle
from pricing.reference_meter import (
    DAY_PROBE,
    LOO_MILES,
    NIGHT_PROBE,
    Reference,
    compiled_from_bands,
    meter_bands,
    meter_fare,
    percentile,
    reference_build,
)
from pricing.uprating import changes_load, uprated_records

METHOD = (
    "calibrated: the authority's published fares fitted to a reference meter (the median "
    "shape of the complete council tables loaded, scaled to the figures); night and "
    "holidays at the tables' median night-to-day ratio; later published rises applied"
)


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
        return self._p90s[when]

    @cached_property
    def _p90s(self) -> dict[str | None, float]:
        # Every calibrated record carries these: worked out once, not once per record.
        return {
            when: round(percentile(self._values(when), 0.9), 1) for when in (None, "day", "night")
        }

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


# --- building the estimated tables -------------------------------------------------------


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:50]


def _estimate_source(source: dict) -> dict:
    return {
        "url": source.get("url") or source.get("address"),
        "publisher": source.get("publisher") or source.get("title", ""),
        "date": source.get("date") or source.get("read") or "",
        "secondary": bool(source.get("secondary")),
    }


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
