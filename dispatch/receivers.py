"""Dispatch listens to the booking engine (connected by bookings.signals)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bookings import events
from bookings.models import DispatchQueue
from bookings.transitions import TERMINAL
from dispatch.handover import handover_get

# Booking ids created inside dispatch_handover_batched() on this thread, else None.
_batch = threading.local()


@contextmanager
def dispatch_handover_batched() -> Iterator[None]:
    """Hand the bookings created inside the block to dispatch in one broker message.

    A partner batch creates up to 100 bookings, each committed on its own; publishing one
    task per booking was a quarter of the batch's time. Inside the block the receiver
    collects the ids, and at the end (even after an error: those bookings committed) one
    task fans them out to per-booking dispatch tasks on the workers.
    """
    outer = getattr(_batch, "ids", None)
    _batch.ids = [] if outer is None else outer
    try:
        yield
    finally:
        if outer is None:
            ids, _batch.ids = _batch.ids, None
            if ids:
                handover_get().publish_now(ids)


def booking_event_dispatch(sender, event, **kwargs) -> None:
    """booking.created on the network queue starts dispatch; a booking that ends (cancelled,
    completed, no-show, by whatever door) withdraws its offer and frees its driver.

    The signal is sent after commit, so a task never runs before the booking exists.
    Operator-queue bookings go to the operator's own fleet dispatch (seed 4, rule 2).
    """
    from dispatch import tasks

    if event.type == events.CREATED:
        if event.booking.dispatch_queue == DispatchQueue.NETWORK:
            batched = getattr(_batch, "ids", None)
            if batched is not None:
                batched.append(event.booking_id)
            else:
                handover_get().submit(event.booking_id)
    elif event.to_status in TERMINAL:
        tasks.booking_dispatch_stop.delay(event.booking_id)
