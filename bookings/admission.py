"""Admitting a booking request: every rule a request must pass before anything is priced
or booked, in one function that every door calls.

| door | form | counted |
|---|---|---|
| ``bookings.actions.booking_place`` (v1 current form, instant alias) | ``CURRENT_FORM`` / ``ALIAS_FORM`` | yes |
| ``bookings.actions.booking_place_from_quote`` (v1 quote form, create alias, website) | ``QUOTE_FORM`` / ``ALIAS_FORM`` | yes |
| ``agents.confirmations.booking_preview`` (MCP ``start_booking`` before the passenger's yes) | ``CURRENT_FORM`` | no: the confirmation books through the actions, and counts then |
| ``partners.services.batches.intake_job_admit`` (a pushed job, any intake format) | ``INTAKE_FORM`` | no: the batch counts once (``intake``) |

The rules, in order (each rule's own home is ``bookings.policies`` or ``guards``):
1. the caller's booking rate (``booking``), when counted;
2. who may book (an account the back office stopped or paused), on the public forms;
3. screening of the free text (contract 1.5), logged with the caller;
4. a pickup time that can be booked, when one is given; a fare only from a sender that
   may price, within range;
5. a known payment method, when one is asked; a flight number in its one format;
6. the passenger: on the current form a name and a mobile, a genuine email; on the alias
   form any valid number and an optional email; never a blocked passenger; a pushed
   job's passenger is the sender's own record, taken as its format sent it;
7. the per-email limits (seed 7, 8), when counted.
A refusal is a ``core.errors.DomainError`` whose field errors use the form's names.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from bookings import policies
from bookings.services import PAYMENT_METHOD_ALIASES, BookingDraft, PassengerDetails
from core.callers import Caller
from core.errors import DomainError, field_error
from guards.ratelimits import limit_enforce
from guards.screening import text_screen


@dataclass(frozen=True)
class BookingForm:
    """A request form: what it demands of the passenger, and its names.

    ``current_rules``: the current booking flow's rules (contract 3, 1.4): the email is
    required and genuine (not disposable, not a role address), the phone is a mobile,
    an unconfirmed email gets 8 requests an hour, and a confirmation link is emailed.
    The alias forms of seed 2.5 and 2.6 take an optional email and any valid number.
    ``pushed``: a job pushed by a partner, operator or supplier, whose passenger is the
    sender's own customer (``can_book`` and the contact rules are the public endpoints').
    ``names`` maps the v1 field names to this form's, for error keys and screening.
    """

    current_rules: bool
    names: Mapping[str, str] = field(default_factory=dict)
    pushed: bool = False

    def name(self, v1_name: str) -> str:
        return self.names.get(v1_name, v1_name)


ALIAS_NAMES = {
    "pickup": "pickup_address",
    "dropoff": "dropoff_address",
    "vehicleType": "vehicle_type",
    "passengers": "passenger_count",
    "departAt": "depart_at",
    "passengerName": "passenger_name",
    "passengerEmail": "passenger_email",
    "passengerPhone": "passenger_phone_whatsapp",
    "flightNumber": "flight_number",
    "paymentMethod": "payment_method",
}
QUOTE_NAMES = {
    "passengerName": "passenger_name",
    "passengerEmail": "passenger_email",
    "passengerPhone": "passenger_phone",
    "flightNumber": "flight_number",
    "paymentMethod": "payment_method",
    "quoteId": "quote_id",
}
INTAKE_NAMES = {"departAt": "pickupTime", "fareGBP": "fare"}

# POST /v1/booking(s), camelCase (seed 2.7): also what MCP tools name their arguments.
CURRENT_FORM = BookingForm(current_rules=True)
# The quote-redeeming form of /v1/booking(s) and the website's booking page.
QUOTE_FORM = BookingForm(current_rules=True, names=QUOTE_NAMES)
# POST /bookings/instant and /bookings/create, snake_case (seed 2.5, 2.6).
ALIAS_FORM = BookingForm(current_rules=False, names=ALIAS_NAMES)
# A pushed job in the intake request (PartnerJob names, seed 2.10), whatever its format.
INTAKE_FORM = BookingForm(current_rules=False, names=INTAKE_NAMES, pushed=True)


@dataclass(frozen=True)
class BookingRequest:
    """What a door asks to book, before any rule: the one input of the admission.

    Empty text and None mean "not given": a quote's redemption gives no journey, a
    pushed amendment only the fields it changes. ``payment_method`` is any of the seed's
    spellings (``PAYMENT_METHOD_ALIASES``), or None where the form asks for none.
    """

    passenger: PassengerDetails = field(default_factory=PassengerDetails)
    payment_method: str | None = None
    flight_number: str = ""
    notes: str = ""
    pickup: str = ""
    dropoff: str = ""
    depart_at: dt.datetime | None = None
    passengers: int = 1
    vehicle_type: str | None = None
    meet_and_greet: bool = False
    fare: Decimal | None = None
    quote_id: str = ""


@dataclass(frozen=True)
class AdmittedBooking:
    """A request that passed every rule: passenger, flight number, pickup time and fare
    as they will be stored; the payment method as asked and as stored."""

    request: BookingRequest
    payment_method: str
    passenger_record: Any = None  # bookings.models.Passenger, when one is on record

    def draft(self, caller: Caller, *, pickup_time: dt.datetime) -> BookingDraft:
        """What ``bookings.services`` needs to book it, besides the price."""
        return BookingDraft(
            source=caller.source,
            account=caller.account,
            agent=caller.agent,
            pickup_time=pickup_time,
            passenger=self.request.passenger,
            payment_method=self.payment_method,
            flight_number=self.request.flight_number,
            notes=self.request.notes,
        )


def booking_request_admit(
    *, caller: Caller, request: BookingRequest, form: BookingForm, counted: bool = True
) -> AdmittedBooking:
    """Apply every admission rule of the module docstring to ``request``, in that order.

    Guarantees: nothing is written but the rate-limit counts (when ``counted``) and a
    screening rejection's log row; the returned request is what the booking will store.
    """
    names = form.name
    if counted:
        limit_enforce(caller, "booking")
    if not form.pushed:
        policies.account_require_can_book(caller.account)
    _screen(caller, form, request)
    depart_at = request.depart_at
    if depart_at is not None:
        depart_at = policies.pickup_require_future(depart_at, field=names("departAt"))
    fare = request.fare
    if fare is not None:
        fare = policies.fare_require_allowed(caller.account, fare, field=names("fareGBP"))
    payment_method = ""
    if request.payment_method is not None:
        payment_method = _payment_method(request.payment_method, field=names("paymentMethod"))
    flight_number = policies.flight_number_normalise(
        request.flight_number, field=names("flightNumber")
    )
    passenger, record = request.passenger, None
    if not form.pushed:
        passenger, record = _passenger_admit(form, passenger)
    if counted and not form.pushed:
        policies.email_limits_enforce(
            caller, email=passenger.email, passenger=record, unconfirmed=form.current_rules
        )
    admitted = replace(
        request,
        passenger=passenger,
        depart_at=depart_at,
        fare=fare,
        flight_number=flight_number,
    )
    return AdmittedBooking(request=admitted, payment_method=payment_method, passenger_record=record)


def _screen(caller: Caller, form: BookingForm, request: BookingRequest) -> None:
    """Free text is screened before any booking logic runs (contract 1.5)."""
    texts = {
        form.name("notes"): request.notes,
        form.name("passengerName"): request.passenger.name,
        form.name("flightNumber"): request.flight_number,
        form.name("pickup"): request.pickup,
        form.name("dropoff"): request.dropoff,
        "agent": caller.agent,
    }
    text_screen(caller, texts, texts.keys())


def _payment_method(asked: str, *, field: str) -> str:
    if asked not in PAYMENT_METHOD_ALIASES:
        raise field_error(
            "invalid_input",
            field,
            f"Unknown payment method {asked!r:.40}; choose one of: "
            f"{', '.join(sorted(PAYMENT_METHOD_ALIASES))}.",
        )
    return PAYMENT_METHOD_ALIASES[asked]


def _passenger_admit(form: BookingForm, passenger: PassengerDetails):
    """The passenger's details normalised, and their record; every contact rule applied."""
    if form.current_rules:
        missing = {
            form.name(v1): ["This field is required."]
            for v1, value in (
                ("passengerName", passenger.name),
                ("passengerPhone", passenger.phone),
            )
            if not value.strip()
        }
        if missing:
            raise DomainError(
                "invalid_input", "The passenger's name and mobile are needed.", errors=missing
            )
    email, email_field = passenger.email.strip(), form.name("passengerEmail")
    if form.current_rules:
        email = policies.email_require_genuine(email, field=email_field)
    elif email:  # optional on the alias forms, but an address when given
        email = policies.email_require_valid(email, field=email_field)
    phone = policies.phone_require_valid(
        passenger.phone, field=form.name("passengerPhone"), mobile=form.current_rules
    )
    record = policies.passenger_require_not_blocked(email)
    return PassengerDetails(name=passenger.name.strip(), email=email, phone=phone), record
