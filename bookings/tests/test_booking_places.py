"""Bookings carry the places their fare was measured between (contract 2.1; issue 15)."""

from datetime import timedelta

import pytest
from django.contrib.admin.sites import site
from django.utils import timezone

from bookings import actions
from bookings.admin import BookingAdmin
from bookings.models import Booking
from core.callers import Caller
from core.errors import DomainError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]

PASSENGER = {
    "passengerName": "Grace Hopper",
    "passengerEmail": "grace.hopper@example.co.uk",
    "passengerPhone": "+447700900321",
}


def when():
    return (timezone.now() + timedelta(days=1)).replace(microsecond=0).isoformat()


def test_a_booking_priced_on_the_spot_stores_and_shows_its_places(api_client):
    response = api_client.post(
        "/api/public/v1/booking",
        {"pickup": "Leeds station", "dropoff": "Harrogate", "departAt": when(), **PASSENGER},
        format="json",
    )
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["pickupPlace"]["label"] == "Leeds station"
    assert answer["pickupPlace"]["precision"] == "station"
    assert answer["dropoffPlace"]["precision"] == "town"
    booking = Booking.objects.get(reference=answer["bookingReference"])
    assert booking.pickup_place == answer["pickupPlace"]
    assert booking.dropoff_place == answer["dropoffPlace"]

    lookup = api_client.get(
        f"/api/public/v1/booking/{booking.reference}", {"email": PASSENGER["passengerEmail"]}
    ).json()
    assert lookup["pickupPlace"] == answer["pickupPlace"]
    assert lookup["dropoffPlace"] == answer["dropoffPlace"]


def test_a_redeemed_quote_hands_its_places_to_the_booking(api_client, quote_factory):
    quote = quote_factory(pickup="Glasgow Airport", dropoff="Glasgow Central")
    response = api_client.post(
        "/api/public/v1/booking",
        {
            "quote_id": str(quote.pk),
            "passenger_name": "Ada Lovelace",
            "passenger_email": "ada.lovelace@example.co.uk",
            "passenger_phone": "+447700900111",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["pickupPlace"] == quote.pickup_place
    assert quote.pickup_place["label"] == "Glasgow International Airport (GLA)"
    booking = Booking.objects.get(reference=response.json()["bookingReference"])
    assert booking.dropoff_place == quote.dropoff_place


def test_a_booking_made_before_places_were_kept_shows_null(api_client, booking_factory):
    booking = booking_factory(passenger_email="old@example.co.uk")
    lookup = api_client.get(
        f"/api/public/v1/booking/{booking.reference}", {"email": "old@example.co.uk"}
    ).json()
    assert lookup["pickupPlace"] is None
    assert lookup["dropoffPlace"] is None


def test_meet_and_greet_on_a_booking_away_from_an_airport_is_refused():
    # The v1 booking form has no meetAndGreet; the MCP start_booking tool books through
    # this action with it, and the one rule in pricing answers the same way.
    with pytest.raises(DomainError) as caught:
        actions.booking_place(
            caller=Caller(ip="203.0.113.9", source="agent", agent="Test Assistant"),
            pickup="Leeds station",
            dropoff="York",
            depart_at=timezone.now() + timedelta(days=1),
            passenger=actions.PassengerDetails(
                name="Grace Hopper", email="grace.hopper@example.co.uk", phone="+447700900321"
            ),
            payment_method="cash",
            meet_and_greet=True,
        )
    assert caught.value.code == "invalid_input"
    assert "meetAndGreet" in caught.value.errors
    assert not Booking.objects.exists()


def test_the_back_office_shows_where_each_end_resolved(quote_factory):
    quote = quote_factory(pickup="Leeds station", dropoff="York")
    booking = Booking(pickup_place=quote.pickup_place, dropoff_place={})
    admin = BookingAdmin(Booking, site)
    assert admin.pickup_resolved(booking).startswith("Leeds station (station, gazetteer) at 53.")
    assert admin.dropoff_resolved(booking) == "-"
