"""The matcher's hand-written statements on PostgreSQL: a dispatch step runs them on every
ring, so a connection plans each once and then runs its prepared statement's generic plan
(issue 41: while the planner could count the drivers sent, a plan for a ring's few drivers
looked cheaper than the generic one, which assumes 10, and PostgreSQL planned the ring
search again on every call: 0.6 ms of planning for 0.1 ms of running)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, LONDON, north_of
from dispatch.models import SkipReason, Tier
from dispatch.services import matching
from dispatch.services.matching import JobRequirements
from drivers.models import Driver, Vehicle
from drivers.tests.factories import DriverFactory, VehicleFactory, driver_at

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

RUNS = 12  # psycopg prepares on the 6th run; PostgreSQL tries a generic plan after 5 more


@pytest.fixture(autouse=True)
def many_drivers_analysed():
    """A few hundred drivers online elsewhere (built, so in no index) and fresh statistics,
    as in a town: on near-empty tables every plan is cheap and the generic one wins
    whatever it assumes."""
    away = {"base_lat": LONDON[0], "base_lng": LONDON[1]}
    drivers = Driver.objects.bulk_create(DriverFactory.build_batch(400, **away))
    Vehicle.objects.bulk_create(VehicleFactory.build(driver=driver) for driver in drivers)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE drivers_driver, drivers_vehicle, dispatch_offer")


def plans_of(fragment: str) -> list[tuple[int, int]]:
    """(generic plans, custom plans) of this connection's prepared statements holding
    ``fragment``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s",
            [f"%{fragment}%"],
        )
        return cursor.fetchall()


def test_the_ring_search_is_planned_once_then_runs_its_generic_plan():
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1))
    job = JobRequirements.for_booking(BookingFactory())

    found = [matching.candidate_next(tier=Tier.LOCAL, job=job, now=now) for _ in range(RUNS)]

    assert {candidate.driver for candidate in found} == {driver}
    [(generic, custom)] = plans_of("ORDER BY dead_sq, current_jobs, driver_id")
    assert generic > 0
    assert custom <= 5


def test_the_trails_skip_reasons_are_planned_once_then_run_their_generic_plan():
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1))  # four seats: in the index, too small for five
    job = JobRequirements.for_booking(BookingFactory(passengers=5))

    skipped = [matching.skipped_candidates(tier=Tier.LOCAL, job=job, now=now) for _ in range(RUNS)]

    assert {tuple((c.driver, c.reason) for c in found) for found in skipped} == {
        ((driver, SkipReason.TOO_FEW_SEATS),)
    }
    [(generic, custom)] = plans_of("ORDER BY dead_sq, driver_id, vehicle_id")
    assert generic > 0
    assert custom <= 5
