"""Changing a booking: its status (the one path every status move takes), a
cancellation, the record of dispatch finding no driver, and an amendment."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from bookings import events
from bookings.models import (
    Booking,
    BookingStatus,
)
from bookings.policies import dispatch_window_opens_at
from bookings.transitions import CANCELLABLE, TERMINAL, statuses_that_may_become
from core.errors import DomainError

STATUS_EVENT_TYPES = {
    BookingStatus.CANCELLED: events.CANCELLED,
    BookingStatus.COMPLETED: events.COMPLETED,
}


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
    # No savepoint: the UPDATE and its event commit or fail together with the caller's
    # transaction (a failed INSERT marks it for rollback), and a refused transition writes
    # nothing, so the caller may catch its DomainError and go on (issue 41: two
    # statements fewer per dispatch step).
    with transaction.atomic(savepoint=False):
        allowed_from = statuses_that_may_become(to_status)
        updated = Booking.objects.filter(pk=booking.pk, status__in=allowed_from).update(
            status=to_status, sequence=F("sequence") + 1, updated_at=timezone.now(), **changes
        )
        if updated:
            from_status = booking.status
            # Only what the UPDATE wrote (the sequence is the database's), not the whole row.
            written = {Booking._meta.get_field(name).name for name in changes}
            booking.refresh_from_db(fields=["status", "sequence", "updated_at", *written])
            events.booking_event_record(
                booking=booking,
                type=STATUS_EVENT_TYPES.get(to_status, events.STATUS_CHANGED),
                actor=actor,
                from_status=from_status,
                to_status=to_status,
                detail=detail,
            )
    if not updated:
        current = Booking.objects.filter(pk=booking.pk).values_list("status", flat=True).first()
        raise DomainError(
            "invalid_transition",
            f"Booking {booking.reference} cannot go from {current} to {to_status}.",
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


_SHOWN_AS = {"tariff_source_own": "tariff_source", "tariff_snapshot_id": "tariff_source"}


def booking_amend(
    *, booking: Booking, actor: str, changes: dict[str, Any], detail: dict | None = None
) -> Booking:
    """Change journey details of a booking that has not finished; records booking.amended
    (its detail names the changed fields, plus ``detail`` when given: why it changed).

    Guarantees: the UPDATE itself checks the status, so an amendment racing a cancellation
    (or completion) never lands on the finished booking, whatever the caller last read.
    """
    # What the caller changed (the window follows from it), as the booking shows it: its
    # tariffSource is stored in two columns (pricing.models.FrozenTariffSource).
    changed_fields = sorted({_SHOWN_AS.get(name, name) for name in changes})
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
