"""Creating bookings: the draft a door hands over, its passengers, and the insert (one
booking, many at once, or a quote redeemed once)."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from bookings import events
from bookings.models import (
    Booking,
    Passenger,
    PaymentMethod,
)
from bookings.pickup_codes import pickup_code_issue
from bookings.policies import dispatch_window_opens_at
from bookings.references import reference_generate
from core import fast_paths
from core.errors import DomainError
from core.request_ids import current_request_id
from pricing.vehicles import vehicle_class_needs_wheelchair

# The union of the seed's payment enums (2.5, 2.6, 2.7), stored normalised (contract 3).
PAYMENT_METHOD_ALIASES = {
    "cash_to_driver": PaymentMethod.CASH,
    "cash": PaymentMethod.CASH,
    "card_to_driver": PaymentMethod.CARD,
    "card": PaymentMethod.CARD,
    "account": PaymentMethod.ACCOUNT,
    "pay_driver": PaymentMethod.DIRECT,
    "direct_to_driver": PaymentMethod.DIRECT,
    "bank_transfer": PaymentMethod.BANK_TRANSFER,
}


@dataclass
class PassengerDetails:
    name: str = ""
    email: str = ""
    phone: str = ""  # already E.164


@dataclass
class BookingDraft:
    """Everything a new booking needs besides its price."""

    source: str
    pickup_time: datetime
    passenger: PassengerDetails
    payment_method: str = PaymentMethod.CASH
    account: Any = None
    job_ref: str = ""
    agent: str = ""
    flight_number: str = ""
    notes: str = ""
    dispatch_queue: str = "network"
    # The addresses as the caller wrote them; the geocoder's labels are used when blank.
    pickup: str = ""
    dropoff: str = ""
    meet_and_greet: bool = False


def booking_journey_columns(priced, *, pickup: str = "", dropoff: str = "") -> dict[str, Any]:
    """Booking columns of a priced journey; addresses as the caller wrote them, else the
    geocoder's labels."""
    return {
        "pickup": (pickup or priced.pickup.label)[:300],
        "dropoff": (dropoff or priced.dropoff.label)[:300],
        "pickup_lat": priced.pickup.lat,
        "pickup_lng": priced.pickup.lng,
        "dropoff_lat": priced.dropoff.lat,
        "dropoff_lng": priced.dropoff.lng,
        "pickup_place": priced.pickup.as_json(),
        "dropoff_place": priced.dropoff.as_json(),
        "passengers": priced.passengers,
        "vehicle_type": priced.vehicle_type,
        "wheelchair_access": vehicle_class_needs_wheelchair(priced.vehicle_type),
        "fare": priced.fare,
        "currency": priced.currency,
        "distance_miles": priced.distance_miles,
        "duration_minutes": priced.duration_minutes,
        "distance_source": priced.distance_source,
        "applied_rules": priced.applied_rules,
        **priced.tariff_source_columns(),
    }


def _quote_fields(quote) -> dict[str, Any]:
    return {
        "pickup": quote.pickup[:300],
        "dropoff": quote.dropoff[:300],
        "pickup_lat": quote.pickup_lat,
        "pickup_lng": quote.pickup_lng,
        "dropoff_lat": quote.dropoff_lat,
        "dropoff_lng": quote.dropoff_lng,
        "pickup_place": quote.pickup_place,
        "dropoff_place": quote.dropoff_place,
        "passengers": quote.passengers,
        "vehicle_type": quote.vehicle_type,
        "wheelchair_access": vehicle_class_needs_wheelchair(quote.vehicle_type),
        "meet_and_greet": quote.meet_and_greet,
        "fare": quote.fare,
        "currency": quote.currency,
        "distance_miles": quote.distance_miles,
        "duration_minutes": quote.duration_minutes,
        "distance_source": quote.distance_source,
        "applied_rules": quote.applied_rules,
        # tariffSource: copied by _booking_build (Booking.tariff_source_copy)
    }


def passenger_get_or_create(*, email: str, name: str = "", phone: str = "") -> Passenger | None:
    if not email:
        return None
    person = PassengerDetails(name=name, email=email, phone=phone)
    return passengers_get_or_create(people=[person])[email.lower()]


def passengers_get_or_create(*, people: list[PassengerDetails]) -> dict[str, Passenger]:
    """The passenger records of these people (by lower-cased email), created when missing.

    Three queries at most, whatever the number: read, insert the missing ones in email
    order (a concurrent insert of the same email is ignored, not an error), read those.
    """
    wanted: dict[str, PassengerDetails] = {}
    for person in people:
        if person.email:
            wanted.setdefault(person.email.lower(), person)
    found = {p.email: p for p in Passenger.objects.filter(email__in=wanted)}
    missing = sorted(set(wanted) - set(found))
    if missing:
        Passenger.objects.bulk_create(
            [
                Passenger(email=email, name=wanted[email].name[:200], phone=wanted[email].phone)
                for email in missing
            ],
            ignore_conflicts=True,
        )
        found.update({p.email: p for p in Passenger.objects.filter(email__in=missing)})
    return found


def _insert_booking(*, draft: BookingDraft, journey: dict[str, Any], quote=None) -> Booking:
    """INSERT one booking and its ``booking.created`` event, written whole or not at all.

    The reference is random (40 bits); on the rare clash with an existing one the insert
    is retried with a fresh reference. Any other IntegrityError (the quote or the sender's
    job reference already used) propagates to the caller, which decides what the
    duplicate means. A booking with no quote to mark and no passenger record to create
    costs one statement outside a transaction (see ``events.booking_insert_created``);
    otherwise those writes share its transaction, and inside an outer transaction a
    savepoint keeps a failure local.
    """
    one_statement = (
        quote is None
        and not draft.passenger.email
        and not transaction.get_connection().in_atomic_block
    )
    for _ in range(5):
        booking = _booking_build(draft=draft, journey=journey, quote=quote)
        try:
            if one_statement:
                _insert_created(booking, draft)
            else:
                with transaction.atomic():
                    booking.passenger = passenger_get_or_create(
                        email=draft.passenger.email,
                        name=draft.passenger.name,
                        phone=draft.passenger.phone,
                    )
                    _insert_created(booking, draft)
                    if quote is not None:
                        type(quote).objects.filter(pk=quote.pk).update(redeemed_at=timezone.now())
            return booking
        except IntegrityError as exc:
            if _is_reference_clash(exc):
                continue
            raise
    raise DomainError("server_error", "Could not allocate a booking reference; retry.")


def _booking_build(*, draft: BookingDraft, journey: dict[str, Any], quote=None) -> Booking:
    opens_at = dispatch_window_opens_at(
        pickup_time=draft.pickup_time, duration_minutes=journey.get("duration_minutes")
    )
    # fast_paths.instance_new is Booking(**columns) without the keyword form's per-field
    # look-ups: 31 -> 19 us of each new booking (issue 41).
    booking = fast_paths.instance_new(
        Booking,
        {
            "dispatch_opens_at": opens_at,
            "reference": reference_generate(),
            "pickup_code": pickup_code_issue(account=draft.account),
            "source": draft.source,
            "account": draft.account,
            "job_ref": draft.job_ref,
            "quote": quote,
            "agent": draft.agent[:100],
            "dispatch_queue": draft.dispatch_queue,
            "passenger_name": draft.passenger.name[:200],
            "passenger_email": draft.passenger.email.lower(),
            "passenger_phone": draft.passenger.phone,
            "pickup_time": draft.pickup_time,
            "flight_number": draft.flight_number[:20],
            "notes": draft.notes,
            "payment_method": draft.payment_method,
            "request_id": current_request_id() or "",
            **journey,
        },
    )
    if quote is not None:
        booking.tariff_source_copy(quote)  # shown as the quote shows it
    return booking


def _insert_created(booking: Booking, draft: BookingDraft) -> None:
    events.booking_insert_created(
        booking=booking, actor=_actor(draft), detail={"source": draft.source}
    )


def _is_reference_clash(exc: IntegrityError) -> bool:
    message = str(exc).lower()
    # PostgreSQL names the unique index (bookings_booking_reference_key); SQLite the column.
    return "reference_key" in message or "bookings_booking.reference" in message


def _actor(draft: BookingDraft) -> str:
    if draft.account is not None:
        return f"account:{draft.account.slug}"
    if draft.agent:
        return f"agent:{draft.agent}"
    return f"{draft.source}:passenger"


def booking_create(*, draft: BookingDraft, priced) -> Booking:
    """Create a live booking from a journey priced on the spot (instant and v1 forms).

    Guarantees: one row, one ``booking.created`` event, dispatch starts after commit.
    """
    journey = booking_journey_columns(priced, pickup=draft.pickup, dropoff=draft.dropoff)
    journey["meet_and_greet"] = draft.meet_and_greet
    return _insert_booking(draft=draft, journey=journey)


def bookings_create_many(*, drafts: list[tuple[BookingDraft, Any]]) -> list[Booking]:
    """Create many live bookings, each priced on the spot, all or none (partner batches).

    ``drafts`` pairs each draft with its priced journey; every draft must have the same
    source and sender. Guarantees: one row and one ``booking.created`` event per draft,
    written together in one statement on PostgreSQL (with the passenger records, when
    any, in one transaction); dispatch starts after commit. Any IntegrityError (a job
    reference or booking reference already taken) writes nothing and propagates: the
    caller then creates them one by one with :func:`booking_create`, which tells the
    cases apart.
    """
    if not drafts:
        return []
    first = drafts[0][0]
    bookings = []
    for draft, priced in drafts:
        journey = booking_journey_columns(priced, pickup=draft.pickup, dropoff=draft.dropoff)
        journey["meet_and_greet"] = draft.meet_and_greet
        bookings.append(_booking_build(draft=draft, journey=journey))
    with_passengers = any(draft.passenger.email for draft, _ in drafts)
    in_transaction = with_passengers or transaction.get_connection().in_atomic_block
    with transaction.atomic() if in_transaction else contextlib.nullcontext():
        if with_passengers:
            # Passengers first, then the bookings in jobRef order: two batches racing over
            # the same rows take their locks in the same order, so one waits for the
            # other instead of deadlocking.
            passengers = passengers_get_or_create(people=[d.passenger for d, _ in drafts])
            for booking in bookings:
                booking.passenger = passengers.get(booking.passenger_email)
        events.bookings_insert_created(
            bookings=sorted(bookings, key=lambda b: b.job_ref),
            actor=_actor(first),
            detail={"source": first.source},
        )
    return bookings


def booking_redeem_quote(*, quote, draft: BookingDraft) -> tuple[Booking, bool]:
    """Redeem ``quote`` once into a booking; returns (booking, created).

    A quote is redeemable once (seed 2.4), enforced by the unique one-to-one from booking
    to quote: concurrent redemptions race on that constraint, exactly one INSERT wins.
    A retry with the same passenger phone and email gets the same booking back; anyone
    else gets 409 ``quote_already_redeemed`` (contract 2.3).
    """
    if getattr(quote, "booking", None) is None:
        try:
            return _insert_booking(draft=draft, journey=_quote_fields(quote), quote=quote), True
        except IntegrityError:
            pass  # lost the race on the quote's one-to-one: the winner's booking exists
    booking = Booking.objects.get(quote_id=quote.pk)
    same_passenger = (
        booking.passenger_phone == draft.passenger.phone
        and booking.passenger_email.lower() == draft.passenger.email.lower()
    )
    if not same_passenger:
        raise DomainError(
            "quote_already_redeemed",
            f"Quote {quote.pk} has already been redeemed by another booking.",
        )
    return booking, False
