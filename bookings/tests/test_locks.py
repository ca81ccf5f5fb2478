"""One helper locks a booking row (bookings.locks.booking_lock), and it is the only place
that does (issue 38)."""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from bookings.locks import booking_lock
from bookings.tests.factories import BookingFactory
from core.testing.sources import production_modules
from drivers.tests.factories import DriverFactory

pytestmark = pytest.mark.django_db


def test_booking_lock_reads_the_row_again_under_a_no_key_lock():
    booking = BookingFactory()
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = booking_lock(pk=booking.pk)
    assert locked == booking
    if connection.vendor == "postgresql":
        assert "FOR NO KEY UPDATE" in queries[-1]["sql"]


def test_booking_lock_by_reference_and_driver_finds_only_the_drivers_job():
    driver, other = DriverFactory(), DriverFactory()
    booking = BookingFactory(driver=driver)
    with transaction.atomic():
        assert booking_lock(reference=booking.reference, driver_id=driver.pk) == booking
        assert booking_lock(reference=booking.reference, driver_id=other.pk) is None
        assert booking_lock(pk=booking.pk + 1000) is None


def test_booking_lock_needs_a_key():
    with pytest.raises(ValueError):
        booking_lock(driver_id=1)


# Booking.objects.select_for_update(...), or a booking queryset named after bookings.
BOOKING_ROW_LOCK = re.compile(
    r"Booking\.objects\s*\.\s*select_for_update|bookings?\w*\s*\.\s*select_for_update"
)


def test_no_module_but_bookings_locks_locks_a_booking_row():
    offenders = [
        relative
        for relative, text in production_modules(exclude=("bookings/locks.py",))
        if BOOKING_ROW_LOCK.search(text)
    ]
    assert offenders == []
