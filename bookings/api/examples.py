"""Request examples of the public booking API (issue 40): each one posts as it stands on
``make demo`` ("Try it out" unedited) and in bookings/tests/test_openapi_examples.py.

A ``departAt`` / ``depart_at`` of ``DEPART_TOMORROW`` is replaced, each time the document
is generated, by tomorrow at 10:00 UK time (``api.schema.examples_dated``), so a booking
example never lies in the past.
"""

from __future__ import annotations

from api.schema import DEPART_TOMORROW, example

# A real journey the offline geocoder places on every set-up, priced on Leeds's table.
PICKUP, DROPOFF = "Leeds station", "Leeds Bradford Airport"
PASSENGER_NAME = "Jo Bloggs"
PASSENGER_EMAIL = "jo.bloggs@example.co.uk"
PASSENGER_PHONE = "+447700900123"  # Ofcom's drama range: a valid mobile no one holds

QUOTE_V1 = [
    example(
        "Station to airport",
        {"pickup": PICKUP, "dropoff": DROPOFF, "passengers": 2},
        request_only=True,
    )
]
QUOTE_ESTIMATE = [
    example(
        "Station to airport",
        {"pickup_address": PICKUP, "dropoff_address": DROPOFF, "passenger_count": 2},
        request_only=True,
    )
]
BOOKING_V1 = [
    example(
        "Book a journey",
        {
            "pickup": PICKUP,
            "dropoff": DROPOFF,
            "departAt": DEPART_TOMORROW,
            "passengerName": PASSENGER_NAME,
            "passengerEmail": PASSENGER_EMAIL,
            "passengerPhone": PASSENGER_PHONE,
            "passengers": 2,
            "paymentMethod": "cash",
        },
        request_only=True,
    )
]
BOOKING_INSTANT = [
    example(
        "Book a journey",
        {
            "pickup_address": PICKUP,
            "dropoff_address": DROPOFF,
            "depart_at": DEPART_TOMORROW,
            "passenger_name": PASSENGER_NAME,
            "passenger_email": PASSENGER_EMAIL,
            "passenger_phone_whatsapp": PASSENGER_PHONE,
            "passenger_count": 2,
        },
        request_only=True,
    )
]
# quote_id: the quote_id of a quote just made (POST /quotes/estimate answers one).
BOOKING_REDEEM = [
    example(
        "Redeem a quote",
        {
            "quote_id": "00000000-0000-0000-0000-000000000000",
            "passenger_name": PASSENGER_NAME,
            "passenger_email": PASSENGER_EMAIL,
            "passenger_phone_whatsapp": PASSENGER_PHONE,
            "payment_method": "cash_to_driver",
        },
        request_only=True,
        description="Put the quote_id of a quote you just made (POST /quotes/estimate).",
    )
]
PASSENGER_VERIFY = [example("A passenger's email", {"email": PASSENGER_EMAIL}, request_only=True)]

# Cancelling the booking made above: its reference goes in the path, and the passenger's
# email proves the caller holds it.
BOOKING_CANCEL = [
    example(
        "Cancel",
        {"action": "cancel", "email": PASSENGER_EMAIL, "reason": "Plans changed"},
        summary="Cancel with the passenger's email",
        request_only=True,
    )
]
