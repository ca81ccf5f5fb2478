"""The matcher (seed 1.3): tiers, filters, ordering and skip reasons."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, LONDON, north_of
from dispatch.models import Offer, OfferStatus, SkipReason, Tier
from dispatch.services import matching
from dispatch.services.matching import JobRequirements, candidates
from dispatch.tests.factories import OperatorLicenceFactory, PartnerFleetFactory, jobs_held
from drivers.models import DriverStage, NetworkTier
from drivers.positions import Fix, position_record
from drivers.tests.factories import CorridorFactory, DriverFactory, VehicleFactory, driver_at

pytestmark = pytest.mark.django_db


def best(booking, tier=Tier.LOCAL, **kwargs):
    job = JobRequirements.for_booking(booking)
    return matching.candidate_next(tier=tier, job=job, now=timezone.now(), **kwargs)


def skipped_reasons(booking, tier=Tier.LOCAL):
    job = JobRequirements.for_booking(booking)
    return {
        c.driver.pk if c.driver else c.fleet.pk: c.reason
        for c in matching.skipped_candidates(tier=tier, job=job, now=timezone.now())
    }


# --- tier 1: local drivers ------------------------------------------------------------


def test_local_tier_offers_the_nearest_driver():
    # given two local drivers, 4 km and 1 km from the pickup
    far = driver_at(north_of(LEEDS, 4))
    near = driver_at(north_of(LEEDS, 1))
    booking = BookingFactory()
    # when the matcher picks
    candidate = best(booking)
    # then the nearer one wins, with dead mileage measured to the pickup
    assert candidate.driver == near
    assert candidate.driver != far
    assert float(candidate.dead_miles) == pytest.approx(0.6, abs=0.1)
    assert candidate.subcontracted_to is None


def test_the_matcher_reads_the_drivers_live_position():
    # given a driver who went online 40 km north and has since reported from 1 km away
    driver = driver_at(north_of(LEEDS, 40))
    position_record(
        driver_id=driver.pk,
        fixes=[Fix(*north_of(LEEDS, 1), at=timezone.now())],
        vehicle_classes=["saloon"],
    )
    # then the matcher finds them where they are now, with the dead mileage from there
    candidate = best(BookingFactory())
    assert candidate.driver == driver
    assert float(candidate.dead_miles) == pytest.approx(0.6, abs=0.1)


def test_equal_dead_mileage_goes_to_the_less_loaded_driver():
    busy = driver_at(north_of(LEEDS, 2), current_jobs=1, max_jobs=3)
    idle = driver_at(north_of(LEEDS, 2), current_jobs=0, max_jobs=3)
    assert best(BookingFactory()).driver == idle
    assert busy.current_jobs == 1


def test_local_driver_whose_radius_does_not_cover_the_pickup_is_not_local():
    # given a driver standing at the pickup but based 60 km away with a 25 km radius
    driver_at(LEEDS, base_lat=LEEDS[0] + 0.55, base_lng=LEEDS[1], operating_radius_km=25)
    assert best(BookingFactory()) is None


def test_search_grows_beyond_the_first_ring():
    far = driver_at(north_of(LEEDS, 12))
    assert best(BookingFactory()).driver == far


def test_excluded_drivers_are_passed_over():
    first = driver_at(north_of(LEEDS, 1))
    second = driver_at(north_of(LEEDS, 3))
    assert best(BookingFactory(), exclude_driver_ids=[first.pk]).driver == second


# --- filters (each one skips with its reason) -------------------------------------------


@pytest.mark.parametrize(
    ("driver_fields", "vehicle_fields", "booking_fields", "reason"),
    [
        ({"online": False}, {}, {}, SkipReason.OFFLINE),
        (
            {"last_seen_at": timezone.now() - timedelta(hours=1)},
            {},
            {},
            SkipReason.NOT_SEEN_RECENTLY,
        ),
        ({"max_jobs": 1, "held": 1}, {}, {}, SkipReason.AT_CAPACITY),
        ({}, {"seats": 4}, {"passengers": 5, "vehicle_type": "mpv"}, SkipReason.TOO_FEW_SEATS),
        ({}, {"vehicle_class": "estate"}, {"vehicle_type": "executive"}, SkipReason.WRONG_CLASS),
        (
            {},
            {"vehicle_class": "wav"},
            {"vehicle_type": "wav", "wheelchair_access": True},
            SkipReason.NO_WHEELCHAIR_ACCESS,
        ),
        (
            {"licence_expiry": timezone.localdate() - timedelta(days=1)},
            {},
            {},
            SkipReason.LICENCE_EXPIRED,
        ),
        (
            {},
            {"plate_expiry": timezone.localdate() - timedelta(days=1)},
            {},
            SkipReason.PLATE_EXPIRED,
        ),
        ({"stage": DriverStage.SIGNED_UP, "approved_at": None}, {}, {}, SkipReason.NOT_APPROVED),
        ({"stage": DriverStage.SUSPENDED}, {}, {}, SkipReason.NOT_APPROVED),
        ({}, {"licensing_authority": "Bradford Council"}, {}, SkipReason.LICENSING_MISMATCH),
    ],
)
def test_each_filter_skips_the_driver_with_its_reason(
    driver_fields, vehicle_fields, booking_fields, reason
):
    # given one driver near the pickup who fails exactly one filter
    driver_fields = dict(driver_fields)
    held = driver_fields.pop("held", 0)
    driver = driver_at(north_of(LEEDS, 1), vehicle=vehicle_fields, **driver_fields)
    jobs_held(driver, held)
    booking = BookingFactory(**booking_fields)
    # then nobody is offered the job, and the trail says why the driver was skipped
    assert best(booking) is None
    assert skipped_reasons(booking) == {driver.pk: reason}


def test_licence_expiring_before_a_later_pickup_is_skipped():
    # given a licence valid today but expiring before the pickup date
    driver_at(LEEDS, licence_expiry=timezone.localdate() + timedelta(days=2))
    booking = BookingFactory(pickup_time=timezone.now() + timedelta(days=5))
    assert best(booking) is None
    assert set(skipped_reasons(booking).values()) == {SkipReason.LICENCE_EXPIRED}


def test_a_passing_driver_next_to_a_failing_one_gets_the_job():
    expired = driver_at(LEEDS, licence_expiry=timezone.localdate() - timedelta(days=1))
    valid = driver_at(north_of(LEEDS, 3))
    booking = BookingFactory()
    assert best(booking).driver == valid
    assert skipped_reasons(booking) == {expired.pk: SkipReason.LICENCE_EXPIRED}


def test_bigger_class_with_enough_seats_serves_a_saloon_booking():
    mpv = driver_at(LEEDS, vehicle={"vehicle_class": "mpv", "seats": 8})
    estate = driver_at(LEEDS, vehicle={"vehicle_class": "estate"})
    booking = BookingFactory(vehicle_type="saloon")
    assert best(booking).driver == estate  # estate serves a saloon booking
    assert skipped_reasons(booking) == {mpv.pk: SkipReason.WRONG_CLASS}


def test_wheelchair_booking_goes_to_an_accessible_vehicle():
    driver_at(LEEDS, vehicle={"vehicle_class": "wav", "wheelchair_accessible": False})
    accessible = driver_at(
        north_of(LEEDS, 2), vehicle={"vehicle_class": "wav", "wheelchair_accessible": True}
    )
    assert best(BookingFactory(vehicle_type="wav", wheelchair_access=True)).driver == accessible


def test_driver_with_a_pending_job_card_is_skipped():
    driver = driver_at(LEEDS)
    other = BookingFactory()
    Offer.objects.create(
        booking=other,
        tier=Tier.LOCAL,
        driver=driver,
        status=OfferStatus.OPEN,
        expires_at=timezone.now() + timedelta(seconds=60),
    )
    booking = BookingFactory()
    assert best(booking) is None
    assert skipped_reasons(booking) == {driver.pk: SkipReason.OFFER_PENDING}


def test_operator_licensed_by_another_authority_cannot_take_the_job():
    # given a driver approved by an operator licensed in Bradford
    operator = OperatorLicenceFactory(licensing_authority="Bradford Council").account
    driver = driver_at(LEEDS, approved_by=operator)
    booking = BookingFactory()
    assert best(booking) is None
    assert skipped_reasons(booking) == {driver.pk: SkipReason.LICENSING_MISMATCH}


def test_operator_licensed_by_the_same_authority_can_take_the_job():
    operator = OperatorLicenceFactory(licensing_authority="Leeds City Council").account
    driver = driver_at(LEEDS, approved_by=operator)
    assert best(BookingFactory()).driver == driver


# --- tier 2: national network -----------------------------------------------------------


def test_national_driver_covering_the_corridor_is_offered_with_s55a_operator():
    # given a national driver near Leeds on a Leeds-London corridor, approved by an operator
    operator = OperatorLicenceFactory().account
    driver = driver_at(north_of(LEEDS, 5), network=NetworkTier.NATIONAL, approved_by=operator)
    CorridorFactory(driver=driver)
    booking = BookingFactory(dropoff="London", dropoff_lat=LONDON[0], dropoff_lng=LONDON[1])
    # when tier 2 is searched
    candidate = best(booking, tier=Tier.NATIONAL)
    # then the national driver is the candidate and the job is subcontracted to their operator
    assert candidate.driver == driver
    assert candidate.subcontracted_to == operator
    # and the local tier never sees a national driver
    assert best(booking, tier=Tier.LOCAL) is None


def test_corridor_works_in_the_reverse_direction():
    driver = driver_at(
        north_of(LONDON, 3), network=NetworkTier.NATIONAL, base_lat=LONDON[0], base_lng=LONDON[1]
    )
    CorridorFactory(driver=driver)  # Leeds -> London
    booking = BookingFactory(
        pickup_lat=LONDON[0], pickup_lng=LONDON[1], dropoff_lat=LEEDS[0], dropoff_lng=LEEDS[1]
    )
    assert best(booking, tier=Tier.NATIONAL).driver == driver


def test_national_driver_off_the_corridor_is_not_a_candidate():
    driver = driver_at(LEEDS, network=NetworkTier.NATIONAL)
    CorridorFactory(driver=driver)  # Leeds -> London, but the job goes to York
    assert best(BookingFactory(), tier=Tier.NATIONAL) is None


def test_national_driver_with_expired_licence_is_skipped():
    driver = driver_at(
        LEEDS, network=NetworkTier.NATIONAL, licence_expiry=timezone.localdate() - timedelta(days=3)
    )
    CorridorFactory(driver=driver)
    booking = BookingFactory(dropoff_lat=LONDON[0], dropoff_lng=LONDON[1])
    assert best(booking, tier=Tier.NATIONAL) is None
    assert skipped_reasons(booking, tier=Tier.NATIONAL) == {driver.pk: SkipReason.LICENCE_EXPIRED}


# --- tier 3: partner fleets -------------------------------------------------------------


def test_approved_fleet_with_webhook_is_a_candidate_and_the_subcontracted_operator():
    fleet = PartnerFleetFactory()
    candidate = best(BookingFactory(), tier=Tier.FLEET)
    assert candidate.fleet == fleet
    assert candidate.subcontracted_to == fleet.account


@pytest.mark.parametrize(
    ("account_fields", "fleet_fields", "reason"),
    [
        ({"approved": False}, {}, SkipReason.NOT_APPROVED),
        ({"kind": "operator"}, {}, SkipReason.NOT_APPROVED),
        ({"webhook_url": ""}, {}, SkipReason.NO_WEBHOOK),
        ({}, {"vehicle_classes": ["mpv"]}, SkipReason.WRONG_CLASS),
        ({}, {"max_passengers": 0}, SkipReason.TOO_FEW_SEATS),
        (
            {},
            {"coverage_lat": LONDON[0], "coverage_lng": LONDON[1], "coverage_radius_km": 40},
            SkipReason.OUTSIDE_COVERAGE,
        ),
    ],
)
def test_fleet_filters(account_fields, fleet_fields, reason):
    fleet = PartnerFleetFactory(
        account__webhook_url=account_fields.pop("webhook_url", "https://fleet.example/hook"),
        **{f"account__{k}": v for k, v in account_fields.items()},
        **fleet_fields,
    )
    booking = BookingFactory()
    assert best(booking, tier=Tier.FLEET) is None
    assert skipped_reasons(booking, tier=Tier.FLEET) == {fleet.pk: reason}


def test_fleet_based_near_the_pickup_comes_before_a_nationwide_fleet():
    nationwide = PartnerFleetFactory()
    local = PartnerFleetFactory(coverage_lat=LEEDS[0], coverage_lng=LEEDS[1], coverage_radius_km=30)
    assert best(BookingFactory(), tier=Tier.FLEET).fleet == local
    assert best(BookingFactory(), tier=Tier.FLEET, exclude_fleet_ids=[local.pk]).fleet == nationwide


def test_vehicle_factory_matches_driver_authority():
    # guard for the factories the other tests rely on
    driver = DriverFactory(licensing_authority="York Council")
    assert VehicleFactory(driver=driver).licensing_authority == "York Council"


# --- the candidate search (one SQL statement per ring) ----------------------------------


def test_a_driver_with_two_vehicles_is_one_candidate_with_the_first_that_fits():
    # given a driver with an estate and a saloon, and another driver further away
    driver = driver_at(north_of(LEEDS, 1), vehicle={"vehicle_class": "mpv", "seats": 8})
    first_fit = VehicleFactory(driver=driver, vehicle_class="estate")
    VehicleFactory(driver=driver, vehicle_class="saloon")
    other = driver_at(north_of(LEEDS, 3))
    job = JobRequirements.for_booking(BookingFactory(vehicle_type="saloon"))
    # when two candidates are asked for
    found = matching.driver_candidates(tier=Tier.LOCAL, job=job, now=timezone.now(), limit=2)
    # then each driver appears once, the first with its lowest-id vehicle that serves a saloon
    assert [c.driver for c in found] == [driver, other]
    assert found[0].vehicle == first_fit


def test_candidate_loads_the_rest_of_the_driver_on_use():
    driver = driver_at(north_of(LEEDS, 1), name="Sam Driver")
    candidate = best(BookingFactory())
    assert candidate.driver.name == "Sam Driver"
    assert candidate.vehicle.driver_id == driver.pk


def test_a_busy_driver_near_the_pickup_does_not_stop_the_search():
    # given an at-capacity driver 200 m away (inside the innermost ring) and a free one at 1 km
    jobs_held(driver_at(north_of(LEEDS, 0.2), max_jobs=1), 1)
    free = driver_at(north_of(LEEDS, 1))
    # then the search goes on to the next ring and finds the free driver
    assert best(BookingFactory()).driver == free


def test_national_tier_without_a_dropoff_has_no_candidates():
    driver = driver_at(LEEDS, network=NetworkTier.NATIONAL)
    CorridorFactory(driver=driver)
    booking = BookingFactory(dropoff_lat=None, dropoff_lng=None)
    assert best(booking, tier=Tier.NATIONAL) is None


def near_driver_ids(sql: str) -> list[int]:
    """The driver ids a matcher statement was sent: its VALUES rows (SQLite), or the first
    array it unnests, in its scalar subquery (PostgreSQL)."""
    arrays = re.findall(r"unnest\(\(SELECT '\{([\d,]*)\}'", sql)
    if arrays:
        return [int(driver_id) for driver_id in arrays[0].split(",") if driver_id]
    number = r"-?[\d.]+(?:e[+-]?\d+)?"  # SQLite writes floats with an exponent
    return [int(d) for d in re.findall(rf"\((\d+),\s*{number},\s*{number}\)", sql)]


def test_a_driver_turned_down_in_one_ring_is_not_looked_at_again_in_the_next():
    # given three at-capacity drivers within 300 m (inside every ring) and a free one 10 km
    # away (in the third ring only)
    taken = [driver_at(north_of(LEEDS, 0.1 * n), max_jobs=1) for n in (1, 2, 3)]
    for driver in taken:
        jobs_held(driver, 1)
    free = driver_at(north_of(LEEDS, 10))
    booking = BookingFactory()
    # when the matcher searches ring after ring
    with CaptureQueriesContext(connection) as statements:
        candidate = best(booking)
    # then the free driver is found, and each driver went through the tier's filters once:
    # the taken ones are not sent again with every wider ring
    assert candidate.driver == free
    sent = [
        driver_id
        for statement in statements.captured_queries
        if statement["sql"].lstrip().startswith("WITH near") and "d.network" in statement["sql"]
        for driver_id in near_driver_ids(statement["sql"])
    ]
    assert sorted(sent) == sorted(set(sent))
    assert {driver.pk for driver in taken} <= set(sent)
    assert free.pk in sent


def test_a_widened_search_cut_short_asks_the_index_again_for_the_rings_it_does_not_cover(
    monkeypatch,
):
    # given four at-capacity drivers within 400 m and a free one 10 km away, and a widened
    # search that keeps only the three nearest drivers
    monkeypatch.setattr(candidates, "WIDE_MAX", 3)
    for n in (1, 2, 3, 4):
        jobs_held(driver_at(north_of(LEEDS, 0.1 * n), max_jobs=1), 1)
    free = driver_at(north_of(LEEDS, 10))
    asks = []
    drivers_near = candidates.drivers_near
    monkeypatch.setattr(
        candidates, "drivers_near", lambda **kwargs: asks.append(kwargs) or drivers_near(**kwargs)
    )
    # when the matcher searches ring after ring
    found = best(BookingFactory())
    # then the rings beyond the third driver go to the index again, and find the free one
    assert found.driver == free
    counts = [ask["count"] for ask in asks]
    assert counts[:3] == [matching.NEAR_FIRST, matching.NEAR_FIRST, 3]
    assert len(counts) > 3
