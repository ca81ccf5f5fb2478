"""A booking made from a street the engine placed keeps the text as typed (issue 40)."""

import pytest
import responses
from rest_framework.test import APIClient

from bookings.models import Booking
from pricing.tests.test_geocoding_online import STREETS, _fresh_cache, quote, replay

__all__ = ["_fresh_cache"]  # the engine's cache, emptied around each test


@pytest.mark.django_db
@responses.activate
def test_the_booking_keeps_the_street_as_typed_and_where_the_engine_placed_it(tariffs):
    replay()
    typed = "10 High Street, Oxford"
    with STREETS:
        quoted = quote(typed, "Oxford station").json()
        response = APIClient().post(
            "/api/public/bookings/create",
            {
                "quote_id": quoted["quote_id"],
                "passenger_name": "Jo Bloggs",
                "passenger_phone_whatsapp": "+447700900123",
                "payment_method": "cash_to_driver",
            },
            format="json",
        )
    assert response.status_code == 200, response.content
    booking = Booking.objects.get()
    assert booking.pickup == typed  # for the driver, as the passenger wrote it
    assert (booking.pickup_lat, booking.pickup_lng) == (51.7525, -1.252)
    assert booking.pickup_place["precision"] == "address"
