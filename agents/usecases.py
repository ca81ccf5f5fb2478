"""The booking use cases the MCP tools call, and the HTTP bodies they answer with.

TEMPORARY adapter until ``bookings.actions`` (the shared use-case layer) is merged: the
signatures are those of ``bookings.actions``; each function calls the same services and
policies the HTTP views call today.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from django.utils import timezone

from api.ratelimits import limit_enforce
from api.screening import text_screen
from bookings import policies
from bookings.api.views import lookup_body
from bookings.models import Booking
from bookings.passengers import phone_to_e164
from bookings.selectors import booking_get_for_passenger
from bookings.services import (
    PAYMENT_METHOD_ALIASES,
    BookingDraft,
    PassengerDetails,
    booking_cancel,
    booking_pay_driver_url,
    booking_redeem_quote,
    booking_status_url,
    email_confirmation_send,
    passenger_get_or_create,
)
from core.callers import Caller
from core.errors import field_error
from pricing.api.views import quote_v1_body
from pricing.models import Quote
from pricing.selectors import quote_get_for_redemption
from pricing.services import quote_create

__all__ = [
    "PassengerDetails",
    "booking_body",
    "booking_cancel_for_passenger",
    "booking_lookup",
    "booking_place_from_quote",
    "cancel_body",
    "lookup_body",
    "passenger_admit",
    "quote_body",
    "quote_request",
]


def quote_request(
    *,
    caller: Caller,
    pickup: str,
    dropoff: str,
    depart_at: dt.datetime | None = None,
    passengers: int = 1,
    vehicle_type: str | None = None,
    meet_and_greet: bool = False,
    worldwide: bool = False,
    field_names: Mapping[str, str] | None = None,
) -> Quote:
    limit_enforce(caller, "quote_v1")
    text_screen(caller, {"pickup": pickup, "dropoff": dropoff})
    if depart_at is not None and depart_at < timezone.now() - dt.timedelta(minutes=5):
        raise field_error("pickup_in_past", "departAt", "Must not be in the past.")
    return quote_create(
        pickup=pickup,
        dropoff=dropoff,
        passengers=passengers,
        vehicle_type=vehicle_type,
        depart_at=depart_at,
        meet_and_greet=meet_and_greet,
        worldwide=worldwide,
        account=caller.account,
        source=Quote.Source.V1,
        field_names=field_names,
    )


def passenger_admit(*, caller: Caller, passenger: PassengerDetails, flight_number: str, notes: str):
    """The passenger's details normalised, every contact rule and the screening applied."""
    texts = {
        "notes": notes,
        "passengerName": passenger.name,
        "flightNumber": flight_number,
        "agent": caller.agent,
    }
    text_screen(caller, texts, texts.keys())
    email = policies.email_require_genuine(passenger.email, field="passengerEmail")
    phone = phone_to_e164(passenger.phone)
    if phone is None:
        raise field_error("invalid_input", "passengerPhone", "Enter a valid phone number.")
    policies.passenger_require_not_blocked(email)
    return PassengerDetails(name=passenger.name, email=email, phone=phone)


def booking_place_from_quote(
    *,
    caller: Caller,
    quote_id,
    passenger: PassengerDetails,
    payment_method: str,
    flight_number: str = "",
    notes: str = "",
) -> tuple[Booking, bool]:
    limit_enforce(caller, "booking")
    passenger = passenger_admit(
        caller=caller, passenger=passenger, flight_number=flight_number, notes=notes
    )
    if payment_method not in PAYMENT_METHOD_ALIASES:
        raise field_error("invalid_input", "paymentMethod", "Unknown payment method.")
    quote = quote_get_for_redemption(quote_id)
    draft = BookingDraft(
        source=caller.source,
        account=caller.account,
        agent=caller.agent,
        pickup_time=quote.depart_at,
        passenger=passenger,
        payment_method=PAYMENT_METHOD_ALIASES[payment_method],
        flight_number=flight_number,
        notes=notes,
    )
    booking, created = booking_redeem_quote(quote=quote, draft=draft)
    if created:
        record = booking.passenger or passenger_get_or_create(email=booking.passenger_email)
        if record is not None:
            email_confirmation_send(passenger=record, booking=booking)
    return booking, created


def booking_lookup(*, caller: Caller, reference: str, email: str) -> Booking:
    limit_enforce(caller, "lookup")
    return booking_get_for_passenger(reference=reference, email=email)


def booking_cancel_for_passenger(
    *, caller: Caller, reference: str, email: str, reason: str = ""
) -> Booking:
    limit_enforce(caller, "lookup")
    text_screen(caller, {"reason": reason}, ("reason",))
    booking = booking_get_for_passenger(reference=reference, email=email)
    return booking_cancel(
        booking=booking, actor=f"passenger:{email.strip().lower()}", reason=reason
    )


def quote_body(quote: Quote) -> dict:
    """The 200 body of POST /v1/quote (contract 2.1)."""
    return quote_v1_body(quote)


def booking_body(booking: Booking) -> dict:
    """The 201 body of POST /v1/booking (contract 3)."""
    return {
        "bookingReference": booking.reference,
        "status": booking.status,
        "statusUrl": booking_status_url(booking),
        "payDriverUrl": booking_pay_driver_url(booking),
        "fareGBP": float(booking.fare),
        "currency": booking.currency,
        "pickupTime": booking.pickup_time.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def cancel_body(booking: Booking) -> dict:
    """The 200 body of the cancel (contract 3.3)."""
    return {"bookingReference": booking.reference, "status": booking.status}
