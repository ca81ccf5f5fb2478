"""Live positions (issue 27): one interface, the same answers from both backends."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from drivers.models import PositionSample
from drivers.positions import (
    Fix,
    drivers_near,
    position_availability_set,
    position_latest,
    position_record,
    positions_backend,
    positions_latest,
)
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["redis", "database"], autouse=True)
def backend(request, settings):
    if request.param == "redis" and not django_settings.REDIS_URL:
        pytest.skip("the Redis backend needs REDIS_URL")
    settings.POSITIONS_BACKEND = request.param
    positions_backend().flush()
    yield request.param
    positions_backend().flush()


def fix(point, *, seconds_ago: float = 0, **fields) -> Fix:
    return Fix(
        lat=point[0], lng=point[1], at=timezone.now() - timedelta(seconds=seconds_ago), **fields
    )


def record(driver, *fixes, classes=("saloon",)):
    return position_record(driver_id=driver.pk, fixes=list(fixes), vehicle_classes=classes)


def test_the_newest_fix_of_a_report_is_the_latest_position():
    driver = driver_at(LEEDS)
    # given a batch the phone buffered, sent out of order
    record(
        driver,
        fix(north_of(LEEDS, 2), seconds_ago=0, heading=90.0),
        fix(north_of(LEEDS, 1), seconds_ago=10),
    )
    latest = position_latest(driver.pk)
    assert (round(latest.lat, 6), latest.heading) == (round(north_of(LEEDS, 2)[0], 6), 90.0)


def test_a_late_fix_never_moves_the_car_back():
    driver = driver_at(LEEDS)
    record(driver, fix(north_of(LEEDS, 2)))
    outcome = record(driver, fix(north_of(LEEDS, 1), seconds_ago=20))
    assert outcome.latest is None
    assert round(position_latest(driver.pk).lat, 6) == round(north_of(LEEDS, 2)[0], 6)


def test_no_report_no_latest_position():
    driver = driver_at(LEEDS)  # placed by going online, not a report from the device
    assert position_latest(driver.pk) is None
    assert positions_latest([driver.pk]) == {}


def test_drivers_near_are_nearest_first_by_class_and_fresh_only():
    near, far = driver_at(north_of(LEEDS, 1)), driver_at(north_of(LEEDS, 3))
    estate = driver_at(north_of(LEEDS, 2), vehicle={"vehicle_class": "estate"})
    found = drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=6, count=10)
    assert [n.driver_id for n in found] == [near.pk, estate.pk, far.pk]
    assert found[0].distance_km == pytest.approx(1, abs=0.02)

    saloons = drivers_near(
        lat=LEEDS[0], lng=LEEDS[1], radius_km=6, vehicle_classes=["saloon"], count=10
    )
    assert [n.driver_id for n in saloons] == [near.pk, far.pk]
    assert [
        n.driver_id for n in drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=2, count=1)
    ] == [near.pk]


def test_a_report_moves_the_driver_in_the_index():
    driver = driver_at(north_of(LEEDS, 30))
    assert drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=5, count=5) == []
    record(driver, fix(north_of(LEEDS, 1)))
    # the index with the database backend is the row's position, which a report moves too
    (found,) = drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=5, count=5)
    assert found.driver_id == driver.pk


def test_going_offline_leaves_the_index():
    driver = driver_at(LEEDS)
    driver.online = False
    driver.save(update_fields=["online"])
    position_availability_set(
        driver_id=driver.pk,
        online=False,
        lat=None,
        lng=None,
        at=timezone.now(),
        vehicle_classes=["saloon"],
    )
    assert drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=5, count=5) == []


def test_a_driver_silent_too_long_is_not_near_for_the_matcher():
    driver = driver_at(LEEDS)
    record(driver, fix(LEEDS))
    later = timezone.now() + timedelta(seconds=django_settings.DISPATCH_DRIVER_SEEN_WITHIN_SECONDS)
    assert drivers_near(lat=LEEDS[0], lng=LEEDS[1], radius_km=5, seen_after=later, count=5) == []


def test_the_trail_keeps_one_fix_per_driver_per_30_seconds_of_a_live_job():
    driver = driver_at(LEEDS)
    booking = BookingFactory(status=BookingStatus.EN_ROUTE, driver=driver)
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=2)
    slot_start = start - timedelta(seconds=start.timestamp() % 30)
    # a batch of 12 fixes 5 s apart (60 s: two slots), then the same again (a retry)
    fixes = [
        Fix(lat=LEEDS[0] + i / 10000, lng=LEEDS[1], at=slot_start + timedelta(seconds=5 * i))
        for i in range(12)
    ]
    first = record(driver, *fixes)
    record(driver, *fixes)
    samples = list(PositionSample.objects.filter(driver=driver).order_by("at"))
    assert [s.at for s in samples] == [fixes[0].at, fixes[6].at]
    assert {s.booking_id for s in samples} == {booking.pk}
    assert len(first.sampled) == 2


def test_no_trail_without_a_live_job():
    driver = driver_at(LEEDS)
    BookingFactory(status=BookingStatus.COMPLETED, driver=driver)
    record(driver, fix(LEEDS))
    assert not PositionSample.objects.exists()
