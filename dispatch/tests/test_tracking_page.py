"""The passenger's tracking page (statusUrl) and its live JSON: the booking in plain words
with dispatch's live state (dispatch.selectors.booking_tracking_state)."""

from __future__ import annotations

import datetime as dt
import re
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.services import booking_status_change, booking_status_url
from bookings.tests.factories import BookingFactory
from dispatch.selectors import STATUS_WORDS, booking_tracking_state
from drivers.tests.factories import DriverFactory, VehicleFactory
from pricing.services import quote_create

pytestmark = pytest.mark.django_db

SUMMER = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)  # BST in force, a Monday
WINTER = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)  # GMT in force, a Monday


def _path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def _accept(booking) -> None:
    driver = DriverFactory(name="Asha Khan")
    vehicle = VehicleFactory(driver=driver, registration="AB12 CDE")
    booking_status_change(
        booking=booking, to_status="accepted", actor="test", driver=driver, vehicle=vehicle
    )


def _booked_on_the_website(client) -> Booking:
    quote = quote_create(
        pickup="Leeds station",
        dropoff="York",
        passengers=2,
        vehicle_type=None,
        depart_at=timezone.now() + timedelta(hours=3),
    )
    form = {
        "quote_id": str(quote.pk),
        "passenger_name": "Priya Shah",
        "passenger_phone": "+447700900123",
        "passenger_email": "priya.shah@example.co.uk",
        "payment_method": "cash",
    }
    client.post("/book/", form)
    return Booking.objects.get()


def test_tracking_page_tells_the_history_in_plain_words(client, tariffs):
    booking = _booked_on_the_website(client)
    _accept(booking)
    html = client.get(booking_status_url(booking)).content.decode()
    timeline = html.split('id="timeline"')[1]
    assert "Booked" in timeline
    assert "Driver accepted" in timeline
    assert "booking.status_changed" not in html
    assert "booking.created" not in html
    assert "(accepted)" not in html


def test_tracking_json_is_the_state_the_page_is_rendered_from(client, tariffs):
    booking = _booked_on_the_website(client)
    url = _path(booking_status_url(booking)) + "live/"
    first = client.get(url)
    assert first.status_code == 200
    assert "no-cache" in first["Cache-Control"]
    assert first.json() == booking_tracking_state(booking)
    assert first.json()["driver"] is None
    assert first.json()["map"]["pickup"] == [booking.pickup_lat, booking.pickup_lng]
    _accept(booking)
    later = client.get(url).json()
    assert later["version"] > first.json()["version"]
    assert later["statusWords"] == "Driver accepted"
    assert later["driver"]["name"] == "Asha K."
    assert [step["words"] for step in later["timeline"]] == ["Booked", "Driver accepted"]


def test_tracking_json_needs_the_token(client):
    booking = BookingFactory()
    assert client.get(f"/booking/{booking.reference}/nottoken/live/").status_code == 404


@pytest.mark.parametrize(
    ("now", "pickup", "shown"),
    [
        (
            SUMMER,
            dt.datetime(2026, 6, 3, 13, 30, tzinfo=dt.UTC),
            "Wed 3 June 2026, 14:30 UK time (BST)",
        ),
        (
            WINTER,
            dt.datetime(2026, 11, 4, 14, 30, tzinfo=dt.UTC),
            "Wed 4 November 2026, 14:30 UK time (GMT)",
        ),
    ],
)
def test_tracking_page_times_are_uk_local_and_labelled(client, now, pickup, shown):
    with time_machine.travel(now, tick=False):
        booking = BookingFactory(pickup_time=pickup)
        html = client.get(booking_status_url(booking)).content.decode()
    assert shown in html


def test_every_status_has_words_for_the_passenger():
    assert set(STATUS_WORDS) == set(BookingStatus.values)


def test_a_driver_dropping_out_reads_as_looking_for_another(client, tariffs):
    booking = _booked_on_the_website(client)
    booking = booking_status_change(booking=booking, to_status="offered", actor="test")
    booking_status_change(booking=booking, to_status="confirmed", actor="test")
    steps = [step["words"] for step in booking_tracking_state(booking)["timeline"]]
    assert steps == ["Booked", "Offered to a driver", "Looking for another driver"]
