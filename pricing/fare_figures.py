"""An authority's published figures (issue 33): step 2 of the calibration method that
:mod:`pricing.estimation` states in full.

The figures are read from ``pricing/data/council_fare_points.json`` and
``london_fare_points.json`` (faredata's points format, :func:`fare_points_load`) and from
what a partial table still tells (:func:`partial_figures`); :func:`figures_fit` fixes the
line ``a + b * miles`` through them against the :class:`pricing.reference_meter.Reference`.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from pricing.reference_meter import METRES_PER_MILE, least_squares_line

if TYPE_CHECKING:
    from pricing.reference_meter import Reference

DATA_DIR = Path(__file__).resolve().parent / "data"
FARE_POINTS_FILE = DATA_DIR / "council_fare_points.json"
LONDON_POINTS_FILE = DATA_DIR / "london_fare_points.json"


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
        a, b = least_squares_line(line_points)
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
