"""The TOMP use cases of a taxi Transport Operator, each on the shared services.

- planning: our quote (``pricing.services.quote_create``), kept 24 hours as the option;
- booking: the option held for the MaaS provider with its customer (postponed commit),
  for as long as the quote is valid; nothing is booked or dispatched yet;
- COMMIT: the option becomes a booking through the one batch intake service
  (``partners.services.batches.intake_batch_receive``: who may push, rate, admission,
  daily limit, idempotency on the jobRef, dispatch), all-or-nothing;
- CANCEL: a pending option released, a committed one cancelled through the same service;
- reading: the sender's own job (``partners.selectors.job_get_for_sender``);
- support: a request on a committed booking, kept for staff, who answer it in the back
  office (:func:`tomp_support_answer`); the provider reads its status.

The hold lives in the cache (Redis in production), not the database: a TOMP booking
that is PENDING is an offer the operator keeps for a while, and one whose hold is lost
is answered as expired (410), which the specification provides for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.core.cache import cache
from django.utils import timezone

from bookings.models import Booking
from bookings.selectors import quote_get_or_none
from bookings.services import PassengerDetails
from core.callers import Caller
from core.errors import DomainError, field_error
from guards.ratelimits import limit_enforce
from partners.intake_formats.tomp.payload import (
    TompJourney,
    TompSupportRequest,
    tomp_cancel_batch,
    tomp_commit_batch,
    tomp_job_ref,
)
from partners.models import Account, IntakeFormat, SupportRequest
from partners.selectors import job_get_for_sender
from partners.services.batches import intake_batch_receive, intake_sender_admit
from pricing.models import Quote
from pricing.services import quote_create

SENDER_KIND = Account.Kind.PARTNER
# TOMP's names for the journey's fields in error keys.
PLANNING_NAMES = {
    "pickup": "from",
    "dropoff": "to",
    "departAt": "departureTime",
    "passengers": "nrOfTravelers",
}


@dataclass(frozen=True)
class TompBookingState:
    """A TOMP booking as we hold it: the option (our quote), and once committed our
    booking; ``pending_state`` is the state of an option not committed."""

    option_id: str
    quote: Quote
    booking: Booking | None = None
    pending_state: str = "NEW"


def tomp_sender_admit(caller: Caller) -> None:
    intake_sender_admit(caller=caller, sender_kind=SENDER_KIND, intake_format=IntakeFormat.TOMP)


def tomp_planning_create(*, caller: Caller, journey: TompJourney) -> list[Quote]:
    """Bookable options for the journey: one taxi, the smallest class that seats the
    party, at the fare our tariffs give (a council's or an operator's, with its basis)."""
    tomp_sender_admit(caller)
    quote = quote_create(
        pickup=journey.pickup,
        dropoff=journey.dropoff,
        passengers=journey.passengers,
        vehicle_type=None,
        depart_at=journey.depart_at,
        account=caller.account,
        field_names=PLANNING_NAMES,
    )
    return [quote]


def _hold_key(account: Account, option_id: str) -> str:
    return f"tomp:hold:{account.pk}:{option_id}"


def _option_get(account: Account, option_id: str) -> Quote:
    """The option this account was offered; 404 for anyone else's, as for one never
    offered."""
    quote = quote_get_or_none(option_id)
    if quote is None or quote.account_id != account.pk:
        raise DomainError("booking_not_found", f"No booking {option_id!r} for this provider.")
    return quote


def _booked(account: Account, option_id: str) -> Booking | None:
    try:
        return job_get_for_sender(account=account, job_ref=tomp_job_ref(option_id))
    except DomainError:
        return None


def tomp_booking_hold(
    *, caller: Caller, option_id: str, passenger: PassengerDetails
) -> TompBookingState:
    """Hold an option for the provider's customer (state PENDING) until the quote
    expires; a booking already committed is answered as it stands."""
    tomp_sender_admit(caller)
    account = caller.account
    quote = _option_get(account, option_id)
    booking = _booked(account, option_id)
    if booking is not None:
        return TompBookingState(option_id=option_id, quote=quote, booking=booking)
    remaining = int((quote.expires_at - timezone.now()).total_seconds())
    if remaining <= 0:
        raise DomainError("quote_expired", "This option has expired; plan again.")
    cache.set(
        _hold_key(account, option_id),
        {"state": "PENDING", "passenger": asdict(passenger)},
        timeout=remaining,
    )
    return TompBookingState(option_id=option_id, quote=quote, pending_state="PENDING")


def tomp_booking_event(*, caller: Caller, option_id: str, operation: str) -> TompBookingState:
    """COMMIT books the held option; CANCEL releases or cancels it. Other operations
    (DENY, EXTEND_EXPIRY_TIME) are the operator's to send, not the provider's."""
    account = caller.account
    if operation == "COMMIT":
        intake_batch_receive(
            caller=caller,
            sender_kind=SENDER_KIND,
            body=option_id,
            read=lambda _: _commit_batch(account, option_id),
            intake_format=IntakeFormat.TOMP,
            all_or_nothing=True,
        )
        cache.delete(_hold_key(account, option_id))
        return tomp_booking_get(caller=caller, option_id=option_id, counted=False)
    if operation == "CANCEL":
        if _booked(account, option_id) is None:
            tomp_sender_admit(caller)
            quote = _option_get(account, option_id)
            cache.set(_hold_key(account, option_id), {"state": "CANCELLED"}, timeout=86400)
            return TompBookingState(option_id=option_id, quote=quote, pending_state="CANCELLED")
        intake_batch_receive(
            caller=caller,
            sender_kind=SENDER_KIND,
            body=option_id,
            read=lambda _: tomp_cancel_batch(option_id=option_id),
            intake_format=IntakeFormat.TOMP,
            all_or_nothing=True,
        )
        return tomp_booking_get(caller=caller, option_id=option_id, counted=False)
    raise field_error(
        "invalid_input", "operation", f"{operation} is sent by the transport operator."
    )


def _commit_batch(account: Account, option_id: str):
    """Read after the sender was admitted: the held option and its customer."""
    quote = _option_get(account, option_id)
    if _booked(account, option_id) is not None:
        # A repeated COMMIT: the intake answers ``unchanged`` for the same jobRef.
        return tomp_commit_batch(quote=quote, passenger=PassengerDetails())
    held = cache.get(_hold_key(account, option_id)) or {}
    if held.get("state") != "PENDING":
        raise DomainError(
            "quote_expired", "This option is not held: book it (POST /bookings) first."
        )
    return tomp_commit_batch(quote=quote, passenger=PassengerDetails(**held["passenger"]))


def tomp_booking_get(*, caller: Caller, option_id: str, counted: bool = True) -> TompBookingState:
    """The provider's booking: committed (our booking), held, released, or an option."""
    if counted:
        limit_enforce(caller, "intake")
    account = caller.account
    quote = _option_get(account, option_id)
    booking = _booked(account, option_id)
    if booking is not None:
        return TompBookingState(option_id=option_id, quote=quote, booking=booking)
    held = cache.get(_hold_key(account, option_id)) or {}
    state = held.get("state") or ("EXPIRED" if quote.is_expired() else "NEW")
    return TompBookingState(option_id=option_id, quote=quote, pending_state=state)


def _committed(account: Account, option_id: str) -> Booking:
    _option_get(account, option_id)
    booking = _booked(account, option_id)
    if booking is None:
        raise DomainError(
            "booking_not_found", f"Booking {option_id!r} is not committed: nothing to support."
        )
    return booking


def tomp_support_request_create(*, caller: Caller, support: TompSupportRequest) -> SupportRequest:
    """Keep the provider's request for support on its committed booking, PROCESSING,
    for staff to answer (the back office lists them)."""
    tomp_sender_admit(caller)
    booking = _committed(caller.account, support.option_id)
    return SupportRequest.objects.create(
        account=caller.account,
        booking=booking,
        support_type=support.support_type,
        priority=support.priority,
        comment=support.comment,
        request=support.request,
    )


def tomp_support_list(*, caller: Caller, option_id: str) -> list[SupportRequest]:
    """The provider's support requests on its booking, oldest first."""
    tomp_sender_admit(caller)
    booking = _committed(caller.account, option_id)
    return list(
        SupportRequest.objects.filter(account=caller.account, booking=booking).order_by("pk")
    )


def tomp_support_answer(*, support: SupportRequest, status: str, reply: str) -> SupportRequest:
    """Staff's answer: a new status or reply is one more step (``order``), which the
    provider reads on ``GET /support/{id}/status``; the same answer again is no step."""
    if (status, reply) == (support.status, support.reply):
        return support
    support.status, support.reply = status, reply
    support.order += 1
    support.updated_at = timezone.now()
    support.save(update_fields=["status", "reply", "order", "updated_at"])
    return support
