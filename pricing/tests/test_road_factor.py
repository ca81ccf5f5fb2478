"""The estimate's road factor against published road distances of real UK journeys
(issue 15; data and source in pricing/tests/data/uk_road_distances.tsv).

The figures the README states are these: median absolute error 4.4 %, 90th percentile
11.1 % of the published distance, over 52 journeys (city pairs, airport runs, urban hops).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from pricing.calibration import (
    band_factor,
    estimate_error,
    journeys_load,
    ratio_percentiles,
    road_factors_fit,
)
from pricing.gazetteer import Place
from pricing.routing import (
    ESTIMATE_RANGE,
    METRES_PER_MILE,
    GreatCircleRouter,
    distance_range_miles,
    great_circle_m,
)

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


# --- issue 22: known detours and the stated range ----------------------------------------


def place(lat: float, lng: float) -> Place:
    return Place(label="p", lat=lat, lng=lng, country="GB", kind="town")


def estimated_miles(a: Place, b: Place) -> float:
    return float(GreatCircleRouter().route(a, b, depart_at=WHEN).distance_miles)


def test_heathrow_to_gatwick_goes_round_the_m25():
    # Published by the route planners at 45 miles (uk_road_distances.tsv); the straight
    # line times the road factor said 30.
    miles = estimated_miles(place(51.4700, -0.4543), place(51.1481, -0.1903))
    assert 40 <= miles <= 48


@pytest.mark.parametrize(
    ("name", "a", "b"),
    [
        ("Humber", (53.7444, -0.3325), (53.5654, -0.0755)),  # Hull - Grimsby
        ("Thames", (51.5459, 0.7077), (51.4416, 0.3710)),  # Southend - Gravesend
        ("Severn", (51.4545, -2.5879), (51.4816, -3.1791)),  # Bristol - Cardiff
    ],
)
def test_an_estuary_is_crossed_at_a_crossing_not_swum(name, a, b):
    straight = great_circle_m(*a, *b) / METRES_PER_MILE * 1.2
    assert estimated_miles(place(*a), place(*b)) > straight * 1.15, name


def test_a_journey_that_crosses_nothing_is_the_straight_line_times_the_factor():
    london, brighton = place(51.5074, -0.1278), place(50.8225, -0.1372)
    straight = great_circle_m(london.lat, london.lng, brighton.lat, brighton.lng)
    assert estimated_miles(london, brighton) == pytest.approx(
        straight * 1.2 / METRES_PER_MILE, abs=0.1
    )


def test_detours_make_the_estimate_better_on_the_real_journeys():
    journeys = journeys_load()
    before = estimate_error(journeys, [j.straight_miles * 1.2 for j in journeys])
    after = estimate_error(journeys, [j.detour_miles * 1.2 for j in journeys])
    assert after.median_pct <= before.median_pct
    assert after.p90_pct < before.p90_pct - 1  # README: 11.1 % -> 8.7 %


def test_the_stated_range_is_the_10th_to_90th_percentile_of_real_journeys(settings):
    low, high = ratio_percentiles(journeys_load(), settings.PRICING_ROAD_FACTOR)
    assert float(ESTIMATE_RANGE[0]) <= low + 0.005
    assert float(ESTIMATE_RANGE[1]) >= high - 0.005
    assert distance_range_miles(Decimal("10.0"), "estimate") == {
        "low": float(10 * ESTIMATE_RANGE[0]),
        "high": float(10 * ESTIMATE_RANGE[1]),
    }
    assert distance_range_miles(Decimal("10.0"), "road") is None
