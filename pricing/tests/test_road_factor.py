"""The estimate's road factor against published road distances of real UK journeys
(issue 15; data and source in pricing/tests/data/uk_road_distances.tsv).

The figures the README states are these: median absolute error 4.4 %, 90th percentile
11.1 % of the published distance, over 52 journeys (city pairs, airport runs, urban hops).
"""

from __future__ import annotations

import datetime as dt

from pricing.calibration import (
    band_factor,
    estimate_error,
    journeys_load,
    road_factors_fit,
)
from pricing.gazetteer import Place
from pricing.routing import METRES_PER_MILE, GreatCircleRouter

MEDIAN_BOUND_PCT = 5.0
P90_BOUND_PCT = 12.0
WHEN = dt.datetime(2030, 6, 5, 12, 0, tzinfo=dt.UTC)


def shipped_estimates(journeys) -> list[float]:
    """Road miles as the shipped estimate (the default router, its settings) gives them."""
    router = GreatCircleRouter()
    estimates = []
    for journey in journeys:
        # Two points exactly the journey's straight-line distance apart, due north.
        metres = journey.straight_miles * METRES_PER_MILE
        origin = Place(label="a", lat=52.0, lng=-1.0, country="GB", kind="place")
        north = Place(
            label="b", lat=52.0 + metres / 111_194.93, lng=-1.0, country="GB", kind="place"
        )
        estimates.append(
            float(router.route(origin, north, depart_at=WHEN).distance_m) / METRES_PER_MILE
        )
    return estimates


def test_the_set_holds_at_least_30_real_journeys_of_every_kind():
    journeys = journeys_load()
    assert len(journeys) >= 30
    kinds = {j.kind for j in journeys}
    assert kinds == {"city", "airport", "urban"}
    # every published distance is a road distance: never shorter than the straight line
    assert all(j.road_miles >= j.straight_miles for j in journeys)


def test_the_shipped_estimate_is_within_its_stated_error():
    journeys = journeys_load()
    error = estimate_error(journeys, shipped_estimates(journeys))
    assert error.median_pct < MEDIAN_BOUND_PCT, error
    assert error.p90_pct < P90_BOUND_PCT, error


def test_the_shipped_factor_is_the_fitted_one_and_beats_the_old_guess(settings):
    journeys = journeys_load()
    [(_, fitted)] = road_factors_fit(journeys, (None,))
    assert fitted == settings.PRICING_ROAD_FACTOR
    old = estimate_error(journeys, [j.straight_miles * 1.3 for j in journeys])
    assert old.median_pct > MEDIAN_BOUND_PCT  # the former straight line x 1.3: 8.5 %


def test_distance_bands_fitted_the_same_way_do_no_better():
    journeys = journeys_load()
    flat = estimate_error(journeys, shipped_estimates(journeys))
    for limits in [(5.0, None), (5.0, 20.0, 60.0, None)]:
        bands = road_factors_fit(journeys, limits)
        banded = [j.straight_miles * band_factor(bands, j.straight_miles) for j in journeys]
        error = estimate_error(journeys, banded)
        assert error.p90_pct >= flat.p90_pct - 0.5
        assert error.median_pct >= flat.median_pct - 0.5
