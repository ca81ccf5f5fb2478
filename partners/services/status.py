"""Inbound status from the platform or fleet that holds a job (contract 5.2).

The same hook carries a partner fleet's answer to a tier-3 offer (seed 1.3): ``accepted``
takes the job, ``declined`` (a value this hook alone accepts) hands it back to dispatch.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from bookings.models import Booking, BookingStatus, DispatchQueue
from bookings.services import booking_status_change
from bookings.transitions import HOLDER_REPORTS, SENDER_REPORTS
from core.callers import Caller
from core.errors import DomainError
from dispatch.models import Offer, OfferStatus
from dispatch.services.offers import fleet_offer_answer
from guards.ratelimits import limit_enforce
from guards.screening import text_screen
from partners.models import Account
from partners.selectors import booking_get_for_holder, fleet_offer_latest_get

# Not a booking status: a fleet turning down the job it was offered.
FLEET_DECLINED = "declined"
FLEET_ANSWERS = (BookingStatus.ACCEPTED, FLEET_DECLINED)


# Text a holder reports about its driver, screened like any booking text (contract 1.5).
DRIVER_SCREENED_FIELDS = ("name", "licensingAuthority")


@dataclass(frozen=True)
class StatusApplied:
    booking: Booking
    previous_status: str
    changed: bool


@dataclass(frozen=True)
class StatusHookReceipt:
    """What the reporter is told: the booking after the report, and the jobRef only when
    the reporter holds the job (a fleet that declined its offer does not)."""

    booking: Booking
    previous_status: str
    changed: bool
    job_ref: str | None


def booking_status_hook_receive(
    *,
    caller: Caller,
    status: str,
    occurred_at: dt.datetime,
    booking_reference: str | None = None,
    job_ref: str | None = None,
    driver: dict | None = None,
) -> StatusHookReceipt:
    """POST /hooks/booking-status (contract 5.2) for an authenticated partner, operator or
    supplier: rate limit, screening of the reported driver text, then
    :func:`booking_status_report`."""
    account = caller.account
    limit_enforce(caller, "intake")
    if driver:
        text_screen(
            caller,
            {f"driver.{name}": driver.get(name) for name in DRIVER_SCREENED_FIELDS},
            [f"driver.{name}" for name in DRIVER_SCREENED_FIELDS],
        )
    applied = booking_status_report(
        account=account,
        status=status,
        occurred_at=occurred_at,
        booking_reference=booking_reference,
        job_ref=job_ref,
        driver=dict(driver) if driver else None,
    )
    booking = applied.booking
    holds_job = account.pk in (booking.account_id, booking.subcontracted_to_id)
    return StatusHookReceipt(
        booking=booking,
        previous_status=applied.previous_status,
        changed=applied.changed,
        job_ref=(booking.job_ref or None) if holds_job else None,
    )


def booking_status_report(
    *,
    account: Account,
    status: str,
    occurred_at: dt.datetime,
    booking_reference: str | None = None,
    job_ref: str | None = None,
    driver: dict | None = None,
) -> StatusApplied:
    """Apply a status reported by the job's holder, or a fleet's answer to its offer.

    Guarantees: only legal transitions apply (else 409 ``invalid_transition``, raised by
    the guarded UPDATE in bookings.services, so a concurrent change cannot be overwritten);
    a repeat of the current status changes nothing and is not an error; the holder's
    driver details and time are kept in the booking event log.

    A fleet with an open offer of the booking answers it with ``accepted`` or ``declined``
    through dispatch (which locks the booking, so the answer and a timeout cannot both
    win). A fleet that was offered the booking but holds neither the offer nor the job
    gets 409 ``offer_closed``; an account that neither sent, holds nor was offered the
    booking gets 404 as before, so references of other accounts' bookings stay hidden.
    """
    detail = {"occurredAt": occurred_at.isoformat(), "via": "hooks/booking-status"}
    if driver:
        detail["driver"] = driver
    offer = (
        fleet_offer_latest_get(account=account, reference=booking_reference)
        if booking_reference
        else None
    )
    if offer is not None:
        answered = _fleet_offer_report(account=account, offer=offer, status=status, detail=detail)
        if answered is not None:
            return answered
    if status == FLEET_DECLINED:
        raise DomainError(
            "invalid_transition",
            '"declined" answers an open fleet offer; this account holds none for this booking.',
        )
    booking = booking_get_for_holder(account=account, reference=booking_reference, job_ref=job_ref)
    previous = booking.status
    report_require_allowed(account=account, booking=booking, status=status)
    if previous == status:
        return StatusApplied(booking=booking, previous_status=previous, changed=False)
    try:
        booking = booking_status_change(
            booking=booking, to_status=status, actor=f"account:{account.slug}", detail=detail
        )
    except DomainError:
        booking.refresh_from_db()
        if booking.status == status:  # the same report raced itself: a repeat
            return StatusApplied(booking=booking, previous_status=status, changed=False)
        raise
    return StatusApplied(booking=booking, previous_status=previous, changed=True)


def job_holder_is(*, account: Account, booking: Booking) -> bool:
    """Whether ``account`` holds the job and so reports its driver's progress (contract
    5.2): the partner fleet it was handed to (tier 3), or an operator for its own-fleet
    job. The sender of a job the network's own drivers serve does not hold it."""
    if booking.subcontracted_to_id == account.pk:
        return True
    return booking.account_id == account.pk and booking.dispatch_queue == DispatchQueue.OPERATOR


def report_require_allowed(*, account: Account, booking: Booking, status: str) -> None:
    """The holder rule of contract 5.2, before anything changes.

    The sender of a job the network's drivers serve may report ``cancelled`` and nothing
    else (403 ``not_job_holder``): otherwise any partner key could move its jobs back to
    ``confirmed`` under an accepted driver, or record ``no_show`` without them. A holder
    reports forward moves only (``HOLDER_REPORTS``, else 409 ``invalid_transition``).
    """
    if not job_holder_is(account=account, booking=booking):
        if status not in SENDER_REPORTS:
            raise DomainError(
                "not_job_holder",
                f"Booking {booking.reference} is served by the network's drivers: its sender "
                "may report cancelled only; drivers report their own progress.",
            )
        return
    if status not in HOLDER_REPORTS:
        raise DomainError(
            "invalid_transition",
            f"{status} is dispatch's own move; a status report never moves a job backwards.",
        )


def _fleet_offer_report(
    *, account: Account, offer: Offer, status: str, detail: dict
) -> StatusApplied | None:
    """Answer the fleet's offer, refuse the report, or None to treat it as a holder's."""
    booking = offer.booking
    holds_job = account.pk in (booking.account_id, booking.subcontracted_to_id)
    if offer.status == OfferStatus.OPEN and status in FLEET_ANSWERS:
        # fleet_offer_answer re-checks under the booking lock: 409 offer_closed if the
        # offer timed out or was withdrawn meanwhile.
        previous = booking.status
        fleet_offer_answer(
            account=account,
            booking=booking,
            accept=status == BookingStatus.ACCEPTED,
            detail=detail,
        )
        booking.refresh_from_db()
        return StatusApplied(booking=booking, previous_status=previous, changed=True)
    if holds_job:
        return None  # the sender or the subcontracted fleet reporting progress
    if status == FLEET_DECLINED and offer.status == OfferStatus.DECLINED:
        return StatusApplied(booking=booking, previous_status=booking.status, changed=False)
    if offer.status == OfferStatus.OPEN:
        raise DomainError(
            "invalid_transition",
            f"Booking {booking.reference} is offered to this fleet: answer accepted or "
            "declined first.",
        )
    raise DomainError(
        "offer_closed",
        f"The offer of {booking.reference} to this fleet is no longer open ({offer.status}).",
    )
