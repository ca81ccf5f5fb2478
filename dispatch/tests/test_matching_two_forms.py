"""The matcher's filters are written twice (dispatch.services.matching): once in the SQL that
finds eligible drivers, once as the rules that give a skipped driver its reason. These
tests hold the two against each other at each filter's limit and just past it: a driver
is either offered the job or skipped with the filter's reason, never both, never neither.
"""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from bookings.tests.factories import BookingFactory
from core.testing.clock import UK, next_summer_midnight
from core.testing.places import LEEDS, north_of
from dispatch import conf
from dispatch.models import Offer, OfferStatus, SkipReason, Tier
from dispatch.services import matching
from dispatch.services.matching import JobRequirements
from dispatch.tests.factories import OperatorLicenceFactory, jobs_held
from drivers.models import APPROVED_STAGES, DriverStage
from drivers.positions import positions_backend
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db


def both_forms(booking, now):
    """(the driver offered the job, {driver: reason} of those skipped), at one instant."""
    job = JobRequirements.for_booking(booking)
    offered = matching.candidate_next(tier=Tier.LOCAL, job=job, now=now)
    skipped = matching.skipped_candidates(tier=Tier.LOCAL, job=job, now=now)
    return offered and offered.driver, {c.driver: c.reason for c in skipped}


def assert_offered(driver, booking, now):
    offered, skipped = both_forms(booking, now)
    assert (offered, skipped) == (driver, {})


def assert_skipped(driver, booking, now, reason):
    offered, skipped = both_forms(booking, now)
    assert (offered, skipped) == (None, {driver: reason})


@pytest.mark.parametrize(("seats", "eligible"), [(5, True), (4, False)])
def test_seats_equal_to_the_party_serve_it_one_fewer_do_not(seats, eligible):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1), vehicle={"vehicle_class": "mpv", "seats": seats})
    booking = BookingFactory(passengers=5, vehicle_type="mpv")
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.TOO_FEW_SEATS)


@pytest.fixture
def pickup_just_after_uk_midnight():
    """A pickup at 00:30 UK time on a summer day, when the UTC date is still the day before:
    'the pickup date' is the UK one."""
    return (next_summer_midnight(timezone.now()) + timedelta(minutes=30)).astimezone(UTC)


@pytest.mark.parametrize(("days_before", "eligible"), [(0, True), (1, False)])
def test_a_plate_expiring_on_the_pickup_date_serves_it_a_day_earlier_does_not(
    pickup_just_after_uk_midnight, days_before, eligible
):
    now = timezone.now()
    pickup_date = pickup_just_after_uk_midnight.astimezone(UK).date()
    expiry = pickup_date - timedelta(days=days_before)
    driver = driver_at(
        north_of(LEEDS, 1), licence_expiry=pickup_date, vehicle={"plate_expiry": expiry}
    )
    booking = BookingFactory(pickup_time=pickup_just_after_uk_midnight)
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.PLATE_EXPIRED)


@pytest.mark.parametrize(("days_before", "eligible"), [(0, True), (1, False)])
def test_a_licence_expiring_on_the_pickup_date_serves_it_a_day_earlier_does_not(
    pickup_just_after_uk_midnight, days_before, eligible
):
    now = timezone.now()
    pickup_date = pickup_just_after_uk_midnight.astimezone(UK).date()
    driver = driver_at(
        north_of(LEEDS, 1),
        licence_expiry=pickup_date - timedelta(days=days_before),
        vehicle={"plate_expiry": pickup_date},
    )
    booking = BookingFactory(pickup_time=pickup_just_after_uk_midnight)
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.LICENCE_EXPIRED)


@pytest.mark.parametrize("backend", ["database", "redis"])
@pytest.mark.parametrize(
    ("earlier", "eligible"), [(timedelta(0), True), (timedelta(microseconds=1), False)]
)
def test_a_driver_seen_exactly_at_the_limit_is_recent_a_moment_before_is_not(
    earlier, eligible, backend, settings
):
    # Both position stores judge by the fix's own time, to the microsecond: the driver's
    # row (database), the index's scores (redis), which outlive the limit so that their
    # expiry never decides (POSITIONS_TTL_SECONDS).
    if backend == "redis" and not settings.REDIS_URL:
        pytest.skip("the Redis backend needs REDIS_URL")
    settings.POSITIONS_BACKEND = backend
    positions_backend().flush()
    now = timezone.now()
    seen_limit = now - timedelta(seconds=conf.driver_seen_within_seconds())
    driver = driver_at(north_of(LEEDS, 1), last_seen_at=seen_limit - earlier)
    booking = BookingFactory()
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.NOT_SEEN_RECENTLY)


@pytest.mark.parametrize(("current_jobs", "eligible"), [(2, True), (3, False)])
def test_one_job_below_the_maximum_is_free_at_the_maximum_is_not(current_jobs, eligible):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1), max_jobs=3)
    jobs_held(driver, current_jobs)
    booking = BookingFactory()
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.AT_CAPACITY)


@pytest.mark.parametrize(
    ("vehicle_class", "requested", "eligible"),
    [("estate", "saloon", True), ("saloon", "estate", False), ("mpv", "7seater", True)],
)
def test_a_class_that_may_serve_the_booking_does_and_another_does_not(
    vehicle_class, requested, eligible
):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1), vehicle={"vehicle_class": vehicle_class, "seats": 8})
    booking = BookingFactory(vehicle_type=requested, passengers=1)
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.WRONG_CLASS)


@pytest.mark.parametrize("accessible", [True, False])
def test_a_wheelchair_booking_needs_an_accessible_vehicle(accessible):
    now = timezone.now()
    driver = driver_at(
        north_of(LEEDS, 1),
        vehicle={"vehicle_class": "wav", "wheelchair_accessible": accessible},
    )
    booking = BookingFactory(vehicle_type="wav", wheelchair_access=True)
    if accessible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.NO_WHEELCHAIR_ACCESS)


@pytest.mark.parametrize(
    ("stage", "eligible"),
    [*[(stage, True) for stage in APPROVED_STAGES], (DriverStage.SUSPENDED, False)],
)
def test_approved_stages_are_offered_others_are_not(stage, eligible):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1), stage=stage)
    booking = BookingFactory()
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.NOT_APPROVED)


@pytest.mark.parametrize(
    ("operator_authority", "vehicle_authority", "eligible"),
    [
        ("Leeds City Council", "Leeds City Council", True),
        ("Bradford Council", "Leeds City Council", False),
        ("Leeds City Council", "Bradford Council", False),
    ],
)
def test_driver_vehicle_and_operator_of_one_authority_serve_others_do_not(
    operator_authority, vehicle_authority, eligible
):
    now = timezone.now()
    operator = OperatorLicenceFactory(licensing_authority=operator_authority).account
    driver = driver_at(
        north_of(LEEDS, 1),
        approved_by=operator,
        licensing_authority="Leeds City Council",
        vehicle={"licensing_authority": vehicle_authority},
    )
    booking = BookingFactory()
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.LICENSING_MISMATCH)


@pytest.mark.parametrize(("status", "eligible"), [("declined", True), ("open", False)])
def test_only_an_open_job_card_holds_a_driver_back(status, eligible):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1))
    Offer.objects.create(
        booking=BookingFactory(),
        tier=Tier.LOCAL,
        driver=driver,
        status=OfferStatus(status),
        expires_at=now + timedelta(seconds=60),
    )
    booking = BookingFactory()
    if eligible:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.OFFER_PENDING)


@pytest.mark.parametrize("online", [True, False])
def test_an_offline_driver_is_skipped_as_offline(online):
    now = timezone.now()
    driver = driver_at(north_of(LEEDS, 1), online=online)
    booking = BookingFactory()
    if online:
        assert_offered(driver, booking, now)
    else:
        assert_skipped(driver, booking, now, SkipReason.OFFLINE)
