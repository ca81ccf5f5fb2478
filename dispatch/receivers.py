"""Dispatch listens to the booking engine (connected in DispatchConfig.ready)."""

from __future__ import annotations

from bookings import events
from bookings.models import DispatchQueue
from dispatch.services.offers import RELEASING_STATUSES


def booking_event_dispatch(sender, event, **kwargs) -> None:
    """booking.created on the network queue starts dispatch; a booking that ends (cancelled,
    completed, no-show, by whatever door) withdraws its offer and frees its driver.

    The signal is sent after commit, so a task never runs before the booking exists.
    Operator-queue bookings go to the operator's own fleet dispatch (seed 4, rule 2).
    """
    from dispatch import tasks

    if event.type == events.CREATED:
        if event.booking.dispatch_queue == DispatchQueue.NETWORK:
            tasks.booking_dispatch_start.delay(event.booking_id)
    elif event.to_status in RELEASING_STATUSES:
        tasks.booking_dispatch_stop.delay(event.booking_id)
