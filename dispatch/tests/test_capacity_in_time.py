"""Capacity in time (issue 34): a driver's load for a job counts only the jobs they hold
whose busy span (pickup to estimated end, plus travel to the next pickup) overlaps it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.testing.places import LEEDS
from dispatch.models import DispatchAttempt, Offer, OfferStatus
from dispatch.services import matching, offers
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db


def _assign(driver, **booking_fields):
    booking = BookingFactory(**booking_fields)
    offers.booking_assign_manual(booking_id=booking.pk, driver=driver, actor="desk")
    return booking


def test_a_job_later_today_does_not_block_a_job_now(dispatch_now):
    # Tom (max one job) holds a 12:05 job when a booking for now comes in at 09:05
    tom = driver_at(LEEDS, max_jobs=1)
    _assign(tom, pickup_time=timezone.now() + timedelta(hours=3), duration_minutes=40)
    now_booking = BookingFactory(pickup_time=timezone.now(), duration_minutes=30)
    offer = dispatch_now(offers.booking_dispatch_next, booking_id=now_booking.pk)
    assert offer is not None
    assert offer.driver == tom
    offers.offer_accept(offer_id=offer.pk, driver=tom)
    tom.refresh_from_db()
    assert tom.current_jobs == 2  # two jobs in hand, never two at once


def test_overlapping_jobs_still_count(dispatch_now):
    tom = driver_at(LEEDS, max_jobs=1)
    start = timezone.now() + timedelta(hours=2)
    _assign(tom, pickup_time=start, duration_minutes=60)
    # a pickup inside the held job's span, and one just after its end but within the
    # travel allowance to the next pickup
    travel = settings.DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES
    for pickup in (start + timedelta(minutes=30), start + timedelta(minutes=60 + travel - 5)):
        booking = BookingFactory(pickup_time=pickup, duration_minutes=20)
        dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
        booking.refresh_from_db()
        assert booking.status == BookingStatus.NO_DRIVER
        assert DispatchAttempt.objects.filter(
            booking=booking, driver=tom, reason="at_capacity"
        ).exists()
        with pytest.raises(DomainError) as busy:
            offers.booking_assign_manual(booking_id=booking.pk, driver=tom, actor="desk")
        assert busy.value.code == "driver_busy"
    # a pickup after the span and its travel allowance is free
    after = BookingFactory(pickup_time=start + timedelta(minutes=60 + travel + 1))
    offers.booking_assign_manual(booking_id=after.pk, driver=tom, actor="desk")


def test_the_busy_span_is_pickup_to_estimated_end_plus_travel():
    start = timezone.now()
    assert matching.job_busy_window(start, 45) == (
        start,
        start + timedelta(minutes=45 + settings.DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES),
    )
    unknown = settings.DISPATCH_UNKNOWN_DURATION_MINUTES
    assert matching.job_busy_window(start, None)[1] == start + timedelta(
        minutes=unknown + settings.DISPATCH_TRAVEL_TO_NEXT_PICKUP_MINUTES
    )


def test_an_amended_pickup_moves_the_jobs_busy_span(dispatch_now):
    from bookings.services import booking_amend

    tom = driver_at(LEEDS, max_jobs=1)
    held = _assign(tom, pickup_time=timezone.now() + timedelta(hours=3), duration_minutes=40)
    moved = timezone.now() + timedelta(minutes=5)
    dispatch_now(booking_amend, booking=held, actor="partner", changes={"pickup_time": moved})
    offer = Offer.objects.get(booking=held, status=OfferStatus.ACCEPTED)
    assert offer.busy_from == moved
    # now it overlaps a booking for now: Tom is busy for it
    now_booking = BookingFactory(pickup_time=timezone.now(), duration_minutes=30)
    assert dispatch_now(offers.booking_dispatch_next, booking_id=now_booking.pk) is None
