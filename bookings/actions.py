"""The use cases of the public quote and booking API, one function per thing a caller can do.

Every door calls these: the HTTP views (``bookings.api.views``, ``bookings.api.quotes``),
the website's booking page, and the MCP tools. Each action takes typed keyword arguments
and the :class:`core.callers.Caller`, admits the request through
``bookings.admission.booking_request_admit`` (rate limits, who may book, who may price,
screening, email and phone rules, blocked passengers, per-email limits, pickup time: the
one admission every door shares), and returns domain objects. A refusal is a
:class:`core.errors.DomainError` whose ``code`` the edge maps to a status
(``api.problems.STATUS_BY_CODE``); field errors name the fields as the caller's request
form names them (:class:`BookingForm`).

| use case | function |
|---|---|
| price a journey (v1 quote / alias estimate) | :func:`quote_request` / :func:`quote_estimate` |
| book a journey priced on the spot (v1 current form, instant alias) | :func:`booking_place` |
| book a quote (v1 quote form, create alias, website page) | :func:`booking_place_from_quote` |
| look a booking up (reference + email) | :func:`booking_lookup` |
| cancel as the passenger | :func:`booking_cancel_for_passenger` (API, MCP); :func:`booking_cancel_from_page` (tracking page, email link) |
| check a passenger email, send a confirmation link | :func:`passenger_email_check` |
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal

from django.utils import timezone

from bookings import admission, policies
from bookings.admission import BookingRequest, booking_request_admit
from bookings.models import Booking
from bookings.selectors import booking_get_for_passenger
from bookings.services import (
    PassengerDetails,
    PassengerEmailCheck,
    booking_cancel,
    booking_create,
    booking_redeem_quote,
    email_confirmation_send,
    passenger_get_or_create,
    passenger_verify,
)
from core.callers import Caller
from guards.ratelimits import limit_enforce
from guards.screening import text_screen
from pricing.models import Quote
from pricing.selectors import quote_get_for_redemption
from pricing.services import quote_create, quote_price

__all__ = [
    "ALIAS_FORM",
    "CURRENT_FORM",
    "QUOTE_FORM",
    "BookingForm",
    "PassengerDetails",
    "PassengerEmailCheck",
    "booking_cancel_for_passenger",
    "booking_cancel_from_page",
    "booking_lookup",
    "booking_place",
    "booking_place_from_quote",
    "passenger_email_check",
    "quote_estimate",
    "quote_request",
]


# The request forms and their names live with the admission; re-exported for the doors.
BookingForm = admission.BookingForm
ALIAS_NAMES = admission.ALIAS_NAMES
CURRENT_FORM = admission.CURRENT_FORM
QUOTE_FORM = admission.QUOTE_FORM
ALIAS_FORM = admission.ALIAS_FORM


# --- quotes ----------------------------------------------------------------------------


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
    """Price a journey and keep the quote 24 hours (seed 2.1, contract 2.1).

    Policies: 30 quotes an hour per caller (the website's per browser session and per
    address: ``policies.quote_limits_enforce``), screening of the addresses, the departure
    neither in the past nor beyond the horizon. Errors name the v1 fields, renamed
    through ``field_names``. Raises what ``pricing.services.quote_create`` raises.
    """
    return _quote(
        caller=caller,
        limit_scope="quote_v1",
        source=Quote.Source.V1,
        names=field_names or {},
        pickup=pickup,
        dropoff=dropoff,
        depart_at=depart_at,
        passengers=passengers,
        vehicle_type=vehicle_type,
        meet_and_greet=meet_and_greet,
        worldwide=worldwide,
    )


def quote_estimate(
    *,
    caller: Caller,
    pickup: str,
    dropoff: str,
    passengers: int,
    depart_at: dt.datetime | None = None,
    vehicle_type: str | None = None,
) -> Quote:
    """The alias estimate (seed 2.2): :func:`quote_request` under the alias's own limit,
    with errors named in snake_case."""
    return _quote(
        caller=caller,
        limit_scope="quote_alias",
        source=Quote.Source.ALIAS,
        names=ALIAS_NAMES,
        pickup=pickup,
        dropoff=dropoff,
        depart_at=depart_at,
        passengers=passengers,
        vehicle_type=vehicle_type,
    )


def _quote(
    *,
    caller: Caller,
    limit_scope: str,
    source: str,
    names: Mapping[str, str],
    depart_at: dt.datetime | None,
    **journey,
) -> Quote:
    policies.quote_limits_enforce(caller, limit_scope)
    text_screen(
        caller,
        {
            names.get("pickup", "pickup"): journey["pickup"],
            names.get("dropoff", "dropoff"): journey["dropoff"],
        },
    )
    if depart_at is not None:
        depart_at = policies.pickup_require_future(
            depart_at, field=names.get("departAt", "departAt")
        )
    return quote_create(
        **journey,
        depart_at=depart_at,
        account=caller.account,
        source=source,
        field_names=names,
    )


# --- placing bookings ------------------------------------------------------------------


def booking_place(
    *,
    caller: Caller,
    pickup: str,
    dropoff: str,
    depart_at: dt.datetime | None,
    passenger: PassengerDetails,
    payment_method: str,
    passengers: int = 1,
    vehicle_type: str | None = None,
    flight_number: str = "",
    notes: str = "",
    fare: Decimal | None = None,
    meet_and_greet: bool = False,
    form: BookingForm = CURRENT_FORM,
) -> Booking:
    """Price a journey on the spot and book it (v1 current form seed 2.7; instant alias
    seed 2.6 with ``form=ALIAS_FORM``, where ``depart_at`` None means now).

    ``fare`` is a sender's own price, honoured only from accounts that may price (403
    ``fare_not_allowed`` otherwise). ``payment_method`` is any of the seed's spellings;
    it is stored normalised. Guarantees: one booking row with its ``booking.created``
    event, or nothing written; dispatch starts after commit; on the current form a
    confirmation link is emailed to the passenger.
    """
    request = BookingRequest(
        passenger=passenger,
        payment_method=payment_method,
        flight_number=flight_number,
        notes=notes,
        pickup=pickup,
        dropoff=dropoff,
        depart_at=depart_at or timezone.now(),
        passengers=passengers,
        vehicle_type=vehicle_type,
        meet_and_greet=meet_and_greet,
        fare=fare,
    )
    admitted = booking_request_admit(caller=caller, request=request, form=form)
    journey = admitted.request
    priced = quote_price(
        pickup=pickup,
        dropoff=dropoff,
        passengers=passengers,
        vehicle_type=vehicle_type,
        depart_at=journey.depart_at,
        meet_and_greet=meet_and_greet,
        account=caller.account,
        fare_override=journey.fare,
        field_names=form.names,
    )
    draft = admitted.draft(caller, pickup_time=journey.depart_at)
    draft = replace(draft, pickup=pickup, dropoff=dropoff, meet_and_greet=meet_and_greet)
    booking = booking_create(draft=draft, priced=priced)
    if form.current_rules:
        _confirmation_send(booking, admitted.passenger_record)
    return booking


def booking_place_from_quote(
    *,
    caller: Caller,
    quote_id,
    passenger: PassengerDetails,
    payment_method: str,
    flight_number: str = "",
    notes: str = "",
    form: BookingForm = QUOTE_FORM,
) -> tuple[Booking, bool]:
    """Redeem a quote into a booking at the quoted fare (seed 2.4, 2.5, 2.7; the website).

    Returns (booking, created). A quote is redeemed once: a retry with the same passenger
    phone and email returns the same booking (created False); anyone else gets 409
    ``quote_already_redeemed``. 404 ``quote_not_found``, 410 ``quote_expired``. An "as
    soon as possible" quote books a pickup now; a quote whose pickup time has passed is
    400 ``pickup_in_past`` (``policies.quote_pickup_time``).
    Guarantees as :func:`booking_place`; the confirmation email goes out once, on creation.
    """
    request = BookingRequest(
        passenger=passenger,
        payment_method=payment_method,
        flight_number=flight_number,
        notes=notes,
        quote_id=str(quote_id),
    )
    admitted = booking_request_admit(caller=caller, request=request, form=form)
    quote = quote_get_for_redemption(quote_id)
    pickup_time = quote.depart_at
    if quote.redeemed_at is None:  # a retry of a redeemed quote gets its booking back
        pickup_time = policies.quote_pickup_time(
            depart_at=quote.depart_at, asap=quote.asap, field=form.name("quoteId")
        )
    draft = admitted.draft(caller, pickup_time=pickup_time)
    booking, created = booking_redeem_quote(quote=quote, draft=draft)
    if created and form.current_rules:
        _confirmation_send(booking, admitted.passenger_record)
    return booking, created


def _confirmation_send(booking: Booking, record) -> None:
    passenger = (
        booking.passenger or record or passenger_get_or_create(email=booking.passenger_email)
    )
    if passenger is not None:
        email_confirmation_send(passenger=passenger, booking=booking)


# --- after booking ---------------------------------------------------------------------


def booking_lookup(*, caller: Caller, reference: str, email: str) -> Booking:
    """The booking, its driver, vehicle and payment records loaded, for the passenger whose
    email matches (case-insensitive; contract 3.2). 404 ``booking_not_found``, 403
    ``email_mismatch``."""
    limit_enforce(caller, "lookup")
    return booking_get_for_passenger(reference=reference, email=email)


def booking_cancel_for_passenger(
    *, caller: Caller, reference: str, email: str, reason: str = ""
) -> Booking:
    """Cancel as the passenger (seed 2.9, contract 3.3): idempotent; 409
    ``not_cancellable`` from ``on_board`` on; the reason is screened (contract 1.5)."""
    limit_enforce(caller, "lookup")
    text_screen(caller, {"reason": reason}, ("reason",))
    booking = booking_get_for_passenger(reference=reference, email=email)
    return booking_cancel(
        booking=booking, actor=f"passenger:{email.strip().lower()}", reason=reason
    )


def booking_cancel_from_page(*, caller: Caller, booking: Booking, reason: str = "") -> Booking:
    """Cancel as the holder of the booking's page link (the tracking page, the email's
    cancel link), with the API's rules (contract 3.3): idempotent; 409 ``not_cancellable``
    from ``on_board`` on; the reason screened. The link's token was checked by the page."""
    limit_enforce(caller, "lookup")
    text_screen(caller, {"reason": reason}, ("reason",))
    return booking_cancel(booking=booking, actor="passenger:page-link", reason=reason)


def passenger_email_check(*, caller: Caller, email: str) -> PassengerEmailCheck:
    """Judge an address; email a one-time confirmation link when it is acceptable and not
    yet verified (contract 3.4). Limited per caller (``verify``)."""
    limit_enforce(caller, "verify")
    return passenger_verify(email=email)
