"""Airport details on the website (issue 34): the booking form takes a flight number and
notes; the status page promises only what was bought (meet and greet) in the contract's
words, and says the pickup follows the flight only when a flight was given."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.links import booking_page_token
from bookings.models import Booking
from pricing.services import quote_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]


def _book(client, *, meet_and_greet: bool, **fields) -> Booking:
    quote = quote_create(
        pickup="Leeds Bradford Airport",
        dropoff="Leeds station",
        passengers=1,
        vehicle_type=None,
        depart_at=timezone.now() + timedelta(hours=5),
        meet_and_greet=meet_and_greet,
    )
    form = {
        "quote_id": str(quote.pk),
        "passenger_name": "Priya Shah",
        "passenger_phone": "+447700900123",
        "passenger_email": "priya.shah@example.co.uk",
        "payment_method": "cash",
        **fields,
    }
    booking_page = client.get(f"/book/?quote={quote.pk}").content.decode()
    assert 'name="flight_number"' in booking_page
    assert 'name="notes"' in booking_page
    page = client.post("/book/", form)
    assert page.status_code == 302, page.content.decode()[:2000]
    return Booking.objects.get(quote=quote)


def _status(client, booking) -> str:
    token = booking_page_token(booking.reference)
    page = client.get(f"/booking/{booking.reference}/{token}/").content.decode()
    return page.split('id="tracking"', 1)[1]  # what the page shows, not its JSON state


def test_the_booking_form_takes_the_flight_and_notes(client):
    booking = _book(client, meet_and_greet=True, flight_number="ba 1234", notes="2 suitcases")
    assert booking.flight_number == "BA1234"
    assert booking.notes == "2 suitcases"
    html = _status(client, booking)
    assert "BA1234" in html
    assert "Your pickup follows your flight" in html
    assert "Booked: " in html
    assert "sign showing your name" in html


def test_without_meet_and_greet_or_flight_the_page_promises_neither(client):
    html = _status(client, _book(client, meet_and_greet=False))
    assert "Not given" not in html
    assert "Your pickup follows your flight" not in html
    assert "sign showing your name" not in html
    assert 'Meet and greet</dt><dd class="meeting-point">Not booked.' in html
