"""The estimate's road distance against published road distances of real UK journeys.

Run: .venv/bin/python bench/bench_road_factor.py
Prints the median absolute error and its 90th percentile (as % of the published road
distance) of the shipped estimate (straight line through the known detours x
PRICING_ROAD_FACTOR; issue 22), of the straight line x the factor before the detours, of
the former x 1.3 and of distance-banded fits, and the range a quote states, over pricing/tests/data/uk_road_distances.tsv (its
header names the source). No database needed. Target: median < 5 %, p90 < 12 %
(pricing/tests/test_road_factor.py holds the shipped estimate to them).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")


def main() -> int:
    import django

    django.setup()
    from django.conf import settings

    from pricing.calibration import (
        band_factor,
        estimate_error,
        journeys_load,
        ratio_percentiles,
        road_factors_fit,
    )
    from pricing.routing import ESTIMATE_RANGE

    journeys = journeys_load()
    by_kind: dict[str, int] = {}
    for journey in journeys:
        by_kind[journey.kind] = by_kind.get(journey.kind, 0) + 1
    kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(by_kind.items()))
    print(f"{len(journeys)} journeys ({kinds})")
    rows = []
    shipped = settings.PRICING_ROAD_FACTOR
    # Issue 22: the shipped estimate goes through the known detours (pricing.detours).
    after = estimate_error(journeys, [j.detour_miles * shipped for j in journeys])
    low, high = ratio_percentiles(journeys, shipped)
    worst = f"{after.worst.origin} - {after.worst.destination} {after.worst_pct:.0f} %"
    rows.append(
        (
            f"shipped: detours x {shipped}",
            "legs via crossings",
            after.median_pct,
            after.p90_pct,
            worst,
        )
    )
    for label, limits_or_factor in [
        (f"before (issue 15): x {shipped}", shipped),
        ("former: x 1.3", 1.3),
        ("fit: one factor", (None,)),
        ("fit: <= 5 mi, beyond", (5.0, None)),
        ("fit: <= 5, 20, 60 mi, beyond", (5.0, 20.0, 60.0, None)),
    ]:
        if isinstance(limits_or_factor, float):
            bands = ((None, limits_or_factor),)
        else:
            bands = road_factors_fit(journeys, limits_or_factor)
        estimates = [j.straight_miles * band_factor(bands, j.straight_miles) for j in journeys]
        error = estimate_error(journeys, estimates)
        factors = " ".join(f"{'-' if lim is None else lim}:{f}" for lim, f in bands)
        worst = f"{error.worst.origin} - {error.worst.destination} {error.worst_pct:.0f} %"
        rows.append((label, factors, error.median_pct, error.p90_pct, worst))
    print(f"{'estimate':30} {'factors (up to mi: x)':30} {'median':>7} {'p90':>7}  worst")
    for label, factors, median, p90, worst in rows:
        print(f"{label:30} {factors:30} {median:6.1f}% {p90:6.1f}%  {worst}")
    print(
        f"published / shipped estimate: 10th percentile {low:.3f}, 90th {high:.3f} "
        f"(distanceRangeMiles states x {ESTIMATE_RANGE[0]} to x {ESTIMATE_RANGE[1]})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
