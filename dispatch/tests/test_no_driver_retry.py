"""A booking nobody could take (no_driver) is offered again when a driver near its pickup
becomes available: goes online, comes back after not being seen, or finishes a trip."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, LONDON, north_of
from dispatch.models import Offer, OfferStatus
from dispatch.services import jobs, offers
from drivers.services import driver_availability_set
from drivers.tests.factories import driver_at, position_report

pytestmark = pytest.mark.django_db


def no_driver_booking(dispatch_now, **fields):
    booking = BookingFactory(**fields)
    dispatch_now(offers.booking_dispatch_next, booking_id=booking.pk)
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    return booking


def test_a_driver_going_online_near_the_pickup_is_offered_the_waiting_booking(dispatch_now):
    # given a booking that found nobody, and a driver near it who is offline
    driver = driver_at(north_of(LEEDS, 2), online=False)
    booking = no_driver_booking(dispatch_now)
    # when the driver goes online in the app
    dispatch_now(
        driver_availability_set, driver=driver, online=True, lat=north_of(LEEDS, 2)[0], lng=LEEDS[1]
    )
    # then the booking is offered again, to that driver
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    assert Offer.objects.get(booking=booking, status=OfferStatus.OPEN).driver == driver


def test_a_driver_coming_online_far_away_leaves_the_booking_for_the_desk(dispatch_now):
    driver = driver_at(LONDON, online=False)
    booking = no_driver_booking(dispatch_now)
    dispatch_now(driver_availability_set, driver=driver, online=True, lat=LONDON[0], lng=LONDON[1])
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER
    # not even a new round that would alert the admins again
    assert booking.dispatch_attempts.filter(outcome="exhausted").count() == 1


def test_a_driver_already_online_and_seen_does_not_restart_rounds(dispatch_now):
    driver = driver_at(LONDON)  # online and seen just now
    booking = no_driver_booking(dispatch_now)
    dispatch_now(driver_availability_set, driver=driver, online=True, lat=LEEDS[0], lng=LEEDS[1])
    # Moving while online is not becoming available: the booking waits.
    booking.refresh_from_db()
    assert booking.status == BookingStatus.NO_DRIVER


def test_a_driver_finishing_a_trip_is_offered_the_waiting_booking(dispatch_now):
    # given a driver at their maximum load with a job on board, and a booking nobody took
    driver = driver_at(north_of(LEEDS, 1), max_jobs=1)
    held = BookingFactory()
    dispatch_now(offers.booking_dispatch_next, booking_id=held.pk)
    offers.offer_accept(offer_id=Offer.objects.get(booking=held).pk, driver=driver)
    waiting = no_driver_booking(dispatch_now, pickup_time=timezone.now() + timedelta(minutes=20))
    # arriving is judged against the driver's own latest position report (contract 6)
    position_report(driver, lat=held.pickup_lat, lng=held.pickup_lng)
    driver.refresh_from_db()
    for status in ("en_route", "arrived", "on_board"):
        jobs.driver_job_status_change(driver=driver, reference=held.reference, to_status=status)
    # when the driver completes the trip
    dispatch_now(
        jobs.driver_job_status_change,
        driver=driver,
        reference=held.reference,
        to_status="completed",
    )
    # then the waiting booking is offered to them
    waiting.refresh_from_db()
    assert waiting.status == BookingStatus.OFFERED
    assert Offer.objects.get(booking=waiting, status=OfferStatus.OPEN).driver == driver
