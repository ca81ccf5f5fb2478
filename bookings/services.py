"""The booking engine. Every entry point (website, public API, agents, partner, operator
and supplier intake) creates and changes bookings through these functions only.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import quote

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import F
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils import timezone
from django.utils.http import RFC3986_SUBDELIMS

from bookings import events
from bookings.links import booking_page_token
from bookings.models import (
    Booking,
    BookingStatus,
    EmailConfirmation,
    Passenger,
    PaymentMethod,
    PaymentRecord,
)
from bookings.passengers import email_assess
from bookings.pickup_codes import pickup_code_issue
from bookings.policies import dispatch_window_opens_at
from bookings.references import reference_generate
from bookings.transitions import CANCELLABLE, TERMINAL, statuses_that_may_become
from core.errors import DomainError
from core.localtime import local_time_format
from core.mail import privacy_line
from core.request_ids import current_request_id
from pricing.vehicles import vehicle_class_needs_wheelchair

logger = logging.getLogger(__name__)

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

STATUS_EVENT_TYPES = {
    BookingStatus.CANCELLED: events.CANCELLED,
    BookingStatus.COMPLETED: events.COMPLETED,
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


def booking_status_url(booking: Booking) -> str:
    return _booking_page_url("booking-status-page", booking.reference)


def booking_cancel_url(booking: Booking) -> str:
    """The passenger's cancel page (the booking email's link; the tracking page's button)."""
    return _booking_page_url("booking-cancel-page", booking.reference)


def booking_pay_driver_url(booking: Booking) -> str:
    return _booking_page_url("booking-pay-driver-page", booking.reference)


# (page, URLconf, script prefix) -> its path with marks for the reference and the token.
# Every booking response carries these URLs; resolving the same pattern for each one cost
# more than building the rest of the body.
_page_paths: dict[tuple[str, str, str], str] = {}
_REFERENCE_MARK = "REFERENCE"
_TOKEN_MARK = "TOKEN"


def _booking_page_url(name: str, reference: str) -> str:
    key = (name, str(get_urlconf() or settings.ROOT_URLCONF), get_script_prefix())
    path = _page_paths.get(key)
    if path is None:
        path = _page_paths[key] = reverse(name, args=[_REFERENCE_MARK, _TOKEN_MARK])
    # Quoted as reverse() quotes a path argument.
    token = quote(booking_page_token(reference), safe=RFC3986_SUBDELIMS + "/~:@")
    reference = quote(reference, safe=RFC3986_SUBDELIMS + "/~:@")
    path = path.replace(_REFERENCE_MARK, reference).replace(_TOKEN_MARK, token)
    return settings.SITE_URL + path


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
        "tariff_source": priced.tariff_source,
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
        "tariff_source": quote.tariff_source,
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
    return Booking(
        dispatch_opens_at=opens_at,
        reference=reference_generate(),
        pickup_code=pickup_code_issue(account=draft.account),
        source=draft.source,
        account=draft.account,
        job_ref=draft.job_ref,
        quote=quote,
        agent=draft.agent[:100],
        dispatch_queue=draft.dispatch_queue,
        passenger_name=draft.passenger.name[:200],
        passenger_email=draft.passenger.email.lower(),
        passenger_phone=draft.passenger.phone,
        pickup_time=draft.pickup_time,
        flight_number=draft.flight_number[:20],
        notes=draft.notes,
        payment_method=draft.payment_method,
        request_id=current_request_id() or "",
        **journey,
    )


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


def booking_status_change(
    *,
    booking: Booking,
    to_status: str,
    actor: str,
    detail: dict | None = None,
    **changes: Any,
) -> Booking:
    """Move a booking along the state machine (contract 3.1).

    The UPDATE is guarded by the current status, so two concurrent changes cannot both
    apply (no lost update): the loser gets 409 ``invalid_transition``. ``changes`` are
    extra columns written in the same UPDATE (driver, vehicle, ...).
    """
    with transaction.atomic():
        allowed_from = statuses_that_may_become(to_status)
        updated = Booking.objects.filter(pk=booking.pk, status__in=allowed_from).update(
            status=to_status, sequence=F("sequence") + 1, updated_at=timezone.now(), **changes
        )
        if not updated:
            current = Booking.objects.filter(pk=booking.pk).values_list("status", flat=True).first()
            raise DomainError(
                "invalid_transition",
                f"Booking {booking.reference} cannot go from {current} to {to_status}.",
            )
        from_status = booking.status
        booking.refresh_from_db()
        events.booking_event_record(
            booking=booking,
            type=STATUS_EVENT_TYPES.get(to_status, events.STATUS_CHANGED),
            actor=actor,
            from_status=from_status,
            to_status=to_status,
            detail=detail,
        )
    return booking


def booking_cancel(*, booking: Booking, actor: str, reason: str = "") -> Booking:
    """Cancel before ``on_board`` (contract 3.3); cancelling twice is a no-op."""
    if booking.status == BookingStatus.CANCELLED:
        return booking
    if booking.status not in CANCELLABLE:
        raise DomainError(
            "not_cancellable",
            f"Booking {booking.reference} is {booking.status} and can no longer be cancelled.",
        )
    try:
        return booking_status_change(
            booking=booking,
            to_status=BookingStatus.CANCELLED,
            actor=actor,
            detail={"reason": reason[:500]} if reason else None,
            cancel_reason=reason[:500],
        )
    except DomainError:
        booking.refresh_from_db()
        if booking.status == BookingStatus.CANCELLED:
            return booking
        raise


def booking_unassigned_record(
    *, booking: Booking, actor: str, detail: dict, now: datetime | None = None
) -> bool:
    """Mark a ``no_driver`` booking whose dispatch window closed (issue 34): it waits for a
    human, and ``booking.unassigned`` (contract 5.1, ``detail`` carrying dispatch's
    reasons) fans out to the sender. True when it did; a booking no longer ``no_driver``
    or already marked is left alone (the UPDATE is guarded), so a retry records once."""
    now = now or timezone.now()
    with transaction.atomic():
        marked = Booking.objects.filter(
            pk=booking.pk, status=BookingStatus.NO_DRIVER, unassigned_at__isnull=True
        ).update(unassigned_at=now, sequence=F("sequence") + 1, updated_at=now)
        if not marked:
            return False
        booking.refresh_from_db()
        events.booking_event_record(
            booking=booking,
            type=events.UNASSIGNED,
            actor=actor,
            from_status=booking.status,
            to_status=booking.status,
            detail=detail,
        )
    return True


def booking_amend(
    *, booking: Booking, actor: str, changes: dict[str, Any], detail: dict | None = None
) -> Booking:
    """Change journey details of a booking that has not finished; records booking.amended
    (its detail names the changed fields, plus ``detail`` when given: why it changed).

    Guarantees: the UPDATE itself checks the status, so an amendment racing a cancellation
    (or completion) never lands on the finished booking, whatever the caller last read.
    """
    changed_fields = sorted(changes)  # what the caller changed; the window follows from it
    if "pickup_time" in changes or "duration_minutes" in changes:
        changes = {
            **changes,
            "dispatch_opens_at": dispatch_window_opens_at(
                pickup_time=changes.get("pickup_time", booking.pickup_time),
                duration_minutes=changes.get("duration_minutes", booking.duration_minutes),
            ),
        }
    with transaction.atomic():
        amended = (
            Booking.objects.filter(pk=booking.pk)
            .exclude(status__in=TERMINAL)
            .update(sequence=F("sequence") + 1, updated_at=timezone.now(), **changes)
        )
        booking.refresh_from_db()
        if not amended:
            raise DomainError(
                "not_cancellable", f"Booking {booking.reference} is {booking.status}."
            )
        events.booking_event_record(
            booking=booking,
            type=events.AMENDED,
            actor=actor,
            from_status=booking.status,
            to_status=booking.status,
            detail={"fields": changed_fields, **(detail or {})},
        )
    return booking


def payment_record_append(
    *,
    booking: Booking,
    amount: Decimal,
    method: str,
    kind: str = PaymentRecord.Kind.PAYMENT,
    reference: str = "",
    processor_fee: Decimal = Decimal("0.00"),
    driver=None,
    occurred_at: datetime | None = None,
) -> PaymentRecord:
    """Append a settlement event to the booking's immutable payment record (seed 6.3)."""
    return PaymentRecord.objects.create(
        booking=booking,
        kind=kind,
        amount=amount,
        method=method[:20],
        reference=reference[:100],
        processor_fee=processor_fee,
        driver=driver or booking.driver,
        occurred_at=occurred_at or timezone.now(),
    )


def payment_state(records: list[PaymentRecord], fare: Decimal) -> str:
    """unpaid, part_paid, paid or refunded, derived from the records (contract 3.2)."""
    paid = sum((r.amount for r in records if r.kind == PaymentRecord.Kind.PAYMENT), Decimal(0))
    refunded = sum((r.amount for r in records if r.kind == PaymentRecord.Kind.REFUND), Decimal(0))
    if refunded > 0 and refunded >= paid:
        return "refunded"
    net = paid - refunded
    if net <= 0:
        return "unpaid"
    return "paid" if net >= fare else "part_paid"


# --- passenger email verification (contract 3.4) --------------------------------------


def email_confirmation_send(*, passenger: Passenger, booking: Booking | None = None) -> str:
    """Email a one-time confirmation link; returns the link."""
    token = secrets.token_urlsafe(32)
    EmailConfirmation.objects.create(passenger=passenger, token=token, booking=booking)
    link = settings.SITE_URL + reverse("passenger-confirm-email", args=[token])
    subject = "Confirm your email"
    lines = [f"Please confirm your email address: {link}"]
    if booking is not None:
        subject = f"Your taxi booking {booking.reference}"
        lines = [
            f"Booking {booking.reference}: {booking.pickup} to {booking.dropoff}",
            f"Pickup: {local_time_format(booking.pickup_time)} (UK time)",
            f"Fare: {booking.fare} {booking.currency}, paid to your driver directly.",
            *(
                [f"Pickup code: {booking.pickup_code} (tell it to your driver to start the trip)"]
                if booking.pickup_code
                else []
            ),
            f"Track it: {booking_status_url(booking)}",
            f"Cancel it (free, before you are on board): {booking_cancel_url(booking)}",
            f"Confirm your email: {link}",
        ]
    lines.append(privacy_line())
    transaction.on_commit(
        lambda: send_mail(subject, "\n".join(lines), None, [passenger.email], fail_silently=True)
    )
    return link


def email_confirmation_redeem(*, token: str) -> Passenger | None:
    """Mark the passenger's email verified; a link works once."""
    with transaction.atomic():
        confirmation = (
            EmailConfirmation.objects.select_for_update()
            .select_related("passenger")
            .filter(token=token, used_at__isnull=True)
            .first()
        )
        if confirmation is None:
            return None
        now = timezone.now()
        if confirmation.created_at < now - timedelta(days=7):
            return None
        confirmation.used_at = now
        confirmation.save(update_fields=["used_at"])
        passenger = confirmation.passenger
        if passenger.email_verified_at is None:
            passenger.email_verified_at = now
            passenger.save(update_fields=["email_verified_at"])
        return passenger


@dataclass(frozen=True)
class PassengerEmailCheck:
    """The verdict on a passenger email (contract 3.4): ``valid`` means acceptable for a
    booking, so it is false for disposable and role addresses as for bad syntax."""

    email: str
    valid: bool
    disposable: bool
    role: bool
    verified: bool = False
    verification_sent: bool = False


def passenger_verify(*, email: str) -> PassengerEmailCheck:
    """Judge an email; send a confirmation link when acceptable and not yet verified."""
    verdict = email_assess(email)
    check = PassengerEmailCheck(
        email=verdict.email,
        valid=verdict.acceptable,
        disposable=verdict.disposable,
        role=verdict.role,
    )
    if not verdict.acceptable:
        return check
    with transaction.atomic():
        passenger = passenger_get_or_create(email=verdict.email)
        verified = passenger.email_verified_at is not None
        send = not verified and not passenger.blocked
        if send:
            email_confirmation_send(passenger=passenger)
    return replace(check, verified=verified, verification_sent=send)


def passenger_block(*, email: str, reason: str = "") -> Passenger:
    passenger = passenger_get_or_create(email=email)
    passenger.blocked = True
    passenger.blocked_reason = reason[:200]
    passenger.save(update_fields=["blocked", "blocked_reason"])
    return passenger


def passenger_unblock(*, passenger: Passenger) -> Passenger:
    """Let a blocked passenger book again; the reason goes with the block."""
    passenger.blocked = False
    passenger.blocked_reason = ""
    passenger.save(update_fields=["blocked", "blocked_reason"])
    return passenger
