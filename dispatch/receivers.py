"""Dispatch listens to the booking engine (connected by bookings.signals)."""

from __future__ import annotations

from django.conf import settings

from bookings import events
from bookings.models import DispatchQueue
from bookings.transitions import TERMINAL


def booking_event_dispatch(sender, event, **kwargs) -> None:
    """A booking that ends (cancelled, completed, no-show, by whatever door) withdraws its
    offer and frees its driver. In the local configuration (``DISPATCH_IN_PROCESS``), a
    new network booking is also dispatched here, in this process; otherwise the
    dispatcher process hands it over (dispatch.relay).

    The signal is sent after commit, so a task never runs before the booking exists.
    Operator-queue bookings go to the operator's own fleet dispatch (seed 4, rule 2).
    """
    from dispatch import tasks

    if event.type == events.CREATED:
        if settings.DISPATCH_IN_PROCESS and event.booking.dispatch_queue == DispatchQueue.NETWORK:
            tasks.booking_dispatch_start.delay(event.booking_id)
    elif event.to_status in TERMINAL:
        tasks.booking_dispatch_stop.delay(event.booking_id)
