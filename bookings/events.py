"""Recording booking events: the append-only log and the after-commit fanout."""

from __future__ import annotations

from django.db import transaction

from bookings.models import Booking, BookingEvent
from bookings.signals import booking_event_committed

CREATED = "booking.created"
STATUS_CHANGED = "booking.status_changed"
CANCELLED = "booking.cancelled"
COMPLETED = "booking.completed"
AMENDED = "booking.amended"


def booking_event_record(
    *,
    booking: Booking,
    type: str,
    actor: str,
    from_status: str = "",
    to_status: str = "",
    detail: dict | None = None,
) -> BookingEvent:
    """Append an event at the booking's current sequence and fan it out after commit.

    The caller holds the transaction in which ``booking.sequence`` was bumped, so the
    (booking, sequence) unique constraint orders events without gaps or duplicates.
    """
    event = BookingEvent.objects.create(
        booking=booking,
        sequence=booking.sequence,
        type=type,
        from_status=from_status,
        to_status=to_status,
        actor=actor[:200],
        detail=detail or {},
    )
    transaction.on_commit(
        lambda: booking_event_committed.send(sender=BookingEvent, event=event), robust=True
    )
    return event
