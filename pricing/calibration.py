"""Calibrating the estimate's road factor against published road distances (issue 15).

Pure functions over a table of real journeys (``pricing/tests/data/uk_road_distances.tsv``):
load it, measure how far the estimate is from each published distance, and fit one road
factor per band of straight-line distance. The test (``pricing/tests/test_road_factor.py``)
holds the estimate to its stated error; ``bench/bench_road_factor.py`` prints the figures.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from pricing.routing import METRES_PER_MILE, estimate_path_m, great_circle_m

JOURNEYS_TSV = Path(__file__).resolve().parent / "tests" / "data" / "uk_road_distances.tsv"


@dataclass(frozen=True, slots=True)
class Journey:
    kind: str  # city, airport, urban
    origin: str
    destination: str
    straight_miles: float
    road_miles: float  # as published
    detour_miles: float = 0.0  # the straight line leg by leg through the known detours


@dataclass(frozen=True, slots=True)
class EstimateError:
    journeys: int
    median_pct: float  # median absolute error, % of the published road distance
    p90_pct: float  # 90th percentile of the same
    worst: Journey
    worst_pct: float


def journeys_load(path: Path = JOURNEYS_TSV) -> list[Journey]:
    journeys = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, origin, olat, olng, destination, dlat, dlng, road = line.split("\t")
        a = SimpleNamespace(lat=float(olat), lng=float(olng))
        b = SimpleNamespace(lat=float(dlat), lng=float(dlng))
        journeys.append(
            Journey(
                kind,
                origin,
                destination,
                great_circle_m(a.lat, a.lng, b.lat, b.lng) / METRES_PER_MILE,
                float(road),
                estimate_path_m(a, b) / METRES_PER_MILE,
            )
        )
    return journeys


def ratio_percentiles(journeys: list[Journey], factor: float, qs=(0.1, 0.9)) -> tuple:
    """The ``qs`` percentiles of published / estimated distance (the estimate through the
    detours times ``factor``): the range a quote states (``routing.ESTIMATE_RANGE``)."""
    ratios = [j.road_miles / (j.detour_miles * factor) for j in journeys]
    return tuple(_percentile(ratios, q) for q in qs)


def _percentile(values: list[float], q: float) -> float:
    """The q-quantile, linear between closest ranks (numpy's default)."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def band_factor(bands: tuple, straight_miles: float) -> float:
    """The factor of the first band (up to this many straight-line miles) that holds it."""
    for limit, factor in bands:
        if limit is None or straight_miles <= limit:
            return factor
    raise ValueError("The last band must have no limit (None).")


def estimate_error(journeys: list[Journey], estimates: list[float]) -> EstimateError:
    """How far ``estimates`` (road miles, one per journey) land from the published ones."""
    errors = [
        (abs(estimate - journey.road_miles) / journey.road_miles * 100, journey)
        for journey, estimate in zip(journeys, estimates, strict=True)
    ]
    worst_pct, worst = max(errors, key=lambda pair: pair[0])
    values = [pct for pct, _ in errors]
    return EstimateError(
        journeys=len(journeys),
        median_pct=statistics.median(values),
        p90_pct=_percentile(values, 0.9),
        worst=worst,
        worst_pct=worst_pct,
    )


def road_factors_fit(journeys: list[Journey], limits: tuple[float | None, ...]) -> tuple:
    """One factor per band of straight-line miles (``limits`` ascending, the last None):
    the median ratio of road to straight-line distance of the band's journeys (close to
    what minimises the band's median absolute percentage error), to two decimals. One
    band, ``(None,)``, fits a flat factor."""
    bands = []
    lower = 0.0
    for limit in limits:
        ratios = [
            j.road_miles / j.straight_miles
            for j in journeys
            if j.straight_miles > lower and (limit is None or j.straight_miles <= limit)
        ]
        bands.append((limit, round(statistics.median(ratios), 2)))
        lower = limit or lower
    return tuple(bands)


# --- the time-in-traffic speed model (issue 21) ------------------------------------------

# TfL's "typical fares and journey times" (pricing/data/council_tariffs.json,
# reference_fares): for each distance, the approximate journey time range in minutes.
TFL_TYPICAL_MINUTES = {1: (6, 13), 2: (10, 20), 4: (16, 30), 6: (28, 40)}


@dataclass(frozen=True, slots=True)
class TimeModelError:
    cruise_mph: float
    points: int
    median_pct: float  # |fare - published bound| / published bound, median
    p90_pct: float


def time_model_error(price, rows: list[dict], cruise_mph: float) -> TimeModelError:
    """How far the meter lands from TfL's typical fares when the time in traffic is the
    part of TfL's journey time not explained by moving at ``cruise_mph``.

    ``price(miles, band, minutes, cruise_mph) -> float`` prices one journey on TfL's
    table; each published range gives two points: the shortest journey time against the
    lowest fare, the longest against the highest."""
    errors = []
    for row in rows:
        fastest, slowest = TFL_TYPICAL_MINUTES[row["miles"]]
        for band in ("t1", "t2", "t3"):
            low, high = row[band]
            for minutes, published in ((fastest, low), (slowest, high)):
                fare = price(row["miles"], band, minutes, cruise_mph)
                errors.append(abs(fare - published) / published * 100)
    return TimeModelError(
        cruise_mph=cruise_mph,
        points=len(errors),
        median_pct=statistics.median(errors),
        p90_pct=_percentile(errors, 0.9),
    )
