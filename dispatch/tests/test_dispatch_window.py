"""The dispatch window (issue 15): a prebooked journey stays confirmed until a lead time
before its pickup, then enters dispatch; no_driver only once that window's tiers are spent."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from bookings.models import BookingStatus
from bookings.policies import dispatch_window_opens_at
from bookings.selectors import dispatch_opens_at
from bookings.services import BookingDraft, PassengerDetails, booking_create, booking_status_url
from core.testing.places import LEEDS, north_of
from dispatch import relay
from dispatch.models import DispatchAttempt, Offer
from dispatch.services import offers
from drivers.models import Driver
from drivers.services import driver_availability_set
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db

# A Wednesday morning in winter (UTC is UK time): the booking is for next Wednesday 10:00.
BOOKED_AT = dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC)
PICKUP = dt.datetime(2026, 11, 25, 10, 0, tzinfo=dt.UTC)
EMAIL = "asha@example.co.uk"


def book_next_week():
    from pricing.services import quote_price

    priced = quote_price(
        pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=PICKUP
    )
    draft = BookingDraft(
        source="api",
        pickup_time=PICKUP,
        passenger=PassengerDetails(name="Asha Khan", email=EMAIL, phone="+447911123456"),
    )
    return booking_create(draft=draft, priced=priced)


def in_process(booking_ids: list[int]) -> None:
    """The broker of the local configuration: each handed-over booking is dispatched now."""
    for booking_id in booking_ids:
        offers.booking_dispatch_next(booking_id=booking_id)


def driver_seen_now(driver: Driver) -> None:
    # The driver's app says they are online where they are (the position index sees it).
    driver_availability_set(driver=driver, online=True, lat=driver.last_lat, lng=driver.last_lng)


def test_the_window_opens_the_lead_plus_the_journey_time_before_pickup(settings):
    settings.DISPATCH_LEAD_MINUTES = 30
    settings.DISPATCH_LEAD_JOURNEY_FACTOR = 1.0
    settings.DISPATCH_LEAD_MAX_MINUTES = 360
    opens = dispatch_window_opens_at
    assert opens(pickup_time=PICKUP, duration_minutes=20) == PICKUP - dt.timedelta(minutes=50)
    assert opens(pickup_time=PICKUP, duration_minutes=None) == PICKUP - dt.timedelta(minutes=30)
    # a long journey opens earlier, up to the cap
    assert opens(pickup_time=PICKUP, duration_minutes=200) == PICKUP - dt.timedelta(minutes=230)
    assert opens(pickup_time=PICKUP, duration_minutes=900) == PICKUP - dt.timedelta(hours=6)


@pytest.mark.parametrize(
    ("factor", "journey", "lead"),
    [
        (1.5, 20, 60),  # 30 + 1.5 x 20
        (0.5, 25, 42.5),  # half minutes count: 30 + 12.5
        (0.0, 200, 30),  # no journey time at all
        (2.0, 165, 360),  # exactly at the cap
        (2.0, 166, 360),  # just past it: capped
    ],
)
def test_the_journey_time_counts_by_the_configured_factor_up_to_the_cap(
    settings, factor, journey, lead
):
    settings.DISPATCH_LEAD_MINUTES = 30
    settings.DISPATCH_LEAD_JOURNEY_FACTOR = factor
    settings.DISPATCH_LEAD_MAX_MINUTES = 360
    opens = dispatch_window_opens_at(pickup_time=PICKUP, duration_minutes=journey)
    assert opens == PICKUP - dt.timedelta(minutes=lead)


@pytest.mark.parametrize("in_process_dispatch", [True, False])
def test_a_booking_a_week_ahead_stays_confirmed_until_its_window_opens(
    settings, tariffs, client, django_capture_on_commit_callbacks, in_process_dispatch
):
    settings.DISPATCH_IN_PROCESS = in_process_dispatch
    with time_machine.travel(BOOKED_AT, tick=False):
        driver = driver_at(north_of(LEEDS, 1))  # online next to the pickup all week
        with django_capture_on_commit_callbacks(execute=True):
            booking = book_next_week()
        opens_at = PICKUP - dt.timedelta(minutes=30 + booking.duration_minutes)
        assert dispatch_opens_at(booking) == opens_at
        # nothing claims it, the sweep does not start it: no offer, no "No Driver"
        assert relay.bookings_dispatch_claim_all(publish=in_process) == 0
        assert offers.bookings_dispatch_overdue() == []
        offers.booking_dispatch_next(booking_id=booking.pk)  # a stray task is a no-op
        booking.refresh_from_db()
        assert booking.status == BookingStatus.CONFIRMED
        assert not Offer.objects.filter(booking=booking).exists()
        assert not DispatchAttempt.objects.filter(booking=booking).exists()
        # the passenger is told when dispatch starts, in the API and on the page
        answer = client.get(f"/api/public/v1/booking/{booking.reference}", {"email": EMAIL}).json()
        assert answer["dispatchStartsAt"] == opens_at.isoformat().replace("+00:00", "Z")
        page = client.get(booking_status_url(booking)).content.decode()
        hhmm = opens_at.strftime("%H:%M")  # November: UK time is UTC
        assert "We start looking for your driver at" in page
        assert hhmm in page

    # a minute before the window: still waiting
    with time_machine.travel(opens_at - dt.timedelta(minutes=1), tick=False):
        driver_seen_now(driver)
        assert relay.bookings_dispatch_claim_all(publish=in_process) == 0
        booking.refresh_from_db()
        assert booking.status == BookingStatus.CONFIRMED

    # the window opens: the dispatcher's next pass hands it over and the driver is offered it
    with time_machine.travel(opens_at + dt.timedelta(seconds=1), tick=False):
        driver_seen_now(driver)
        with django_capture_on_commit_callbacks(execute=True):
            assert relay.bookings_dispatch_claim_all(publish=in_process) == 1
        booking.refresh_from_db()
        assert booking.status == BookingStatus.OFFERED
        assert Offer.objects.get(booking=booking).driver_id == driver.pk
        page = client.get(booking_status_url(booking)).content.decode()
        assert "We start looking for your driver" not in page


def test_no_driver_comes_only_once_the_windows_tiers_are_exhausted(
    settings, tariffs, django_capture_on_commit_callbacks
):
    settings.DISPATCH_IN_PROCESS = False
    with time_machine.travel(BOOKED_AT, tick=False):
        booking = book_next_week()  # nobody is online anywhere
    # the sweep (the safety net when no dispatcher runs) starts it once the window has
    # been open for its grace, and only then does "No Driver" appear
    with time_machine.travel(booking.dispatch_opens_at - dt.timedelta(hours=1), tick=False):
        assert offers.bookings_dispatch_overdue() == []
        booking.refresh_from_db()
        assert booking.status == BookingStatus.CONFIRMED
    grace = dt.timedelta(seconds=settings.DISPATCH_HANDOVER_GRACE_SECONDS + 1)
    with time_machine.travel(booking.dispatch_opens_at + grace, tick=False):
        with django_capture_on_commit_callbacks(execute=True):
            assert offers.bookings_dispatch_overdue() == [booking.pk]
        booking.refresh_from_db()
        assert booking.status == BookingStatus.NO_DRIVER


def test_moving_the_pickup_moves_the_window(tariffs):
    from bookings.services import booking_amend

    with time_machine.travel(BOOKED_AT, tick=False):
        booking = book_next_week()
        later = PICKUP + dt.timedelta(days=1)
        booking = booking_amend(booking=booking, actor="test", changes={"pickup_time": later})
    assert booking.dispatch_opens_at == dispatch_window_opens_at(
        pickup_time=later, duration_minutes=booking.duration_minutes
    )
