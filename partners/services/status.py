"""Inbound status from the platform or fleet that holds a job (contract 5.2)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from api.problems import Problem
from bookings.models import Booking
from bookings.services import booking_status_change
from partners.models import Account
from partners.selectors import booking_get_for_holder


@dataclass(frozen=True)
class StatusApplied:
    booking: Booking
    previous_status: str
    changed: bool


def booking_status_report(
    *,
    account: Account,
    status: str,
    occurred_at: dt.datetime,
    booking_reference: str | None = None,
    job_ref: str | None = None,
    driver: dict | None = None,
) -> StatusApplied:
    """Apply a status reported by the job's holder, through the booking state machine.

    Guarantees: only legal transitions apply (else 409 ``invalid_transition``, raised by
    the guarded UPDATE in bookings.services, so a concurrent change cannot be overwritten);
    a repeat of the current status changes nothing and is not an error; the holder's
    driver details and time are kept in the booking event log.
    """
    booking = booking_get_for_holder(account=account, reference=booking_reference, job_ref=job_ref)
    previous = booking.status
    if previous == status:
        return StatusApplied(booking=booking, previous_status=previous, changed=False)
    detail = {"occurredAt": occurred_at.isoformat(), "via": "hooks/booking-status"}
    if driver:
        detail["driver"] = driver
    try:
        booking = booking_status_change(
            booking=booking, to_status=status, actor=f"account:{account.slug}", detail=detail
        )
    except Problem:
        booking.refresh_from_db()
        if booking.status == status:  # the same report raced itself: a repeat
            return StatusApplied(booking=booking, previous_status=status, changed=False)
        raise
    return StatusApplied(booking=booking, previous_status=previous, changed=True)
