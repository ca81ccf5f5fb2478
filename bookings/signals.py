"""Signals the booking engine sends once a transaction has committed, and their subscribers.

Receivers run after commit, so they never see a booking that could still roll back. The
subscribers are named here, where the signal is defined, so that a reader sees the whole
fan-out in one place; they are connected by path when the apps are ready
(``BookingsConfig.ready``), because bookings sits below dispatch and partners and does
not import them. A test checks that nothing else is connected.
"""

from django.dispatch import Signal
from django.utils.module_loading import import_string

# Sent with ``event`` (a BookingEvent) after the transaction that recorded it commits.
booking_event_committed = Signal()

BOOKING_EVENT_SUBSCRIBERS: tuple[str, ...] = (
    # booking.created on the network queue starts dispatch; a booking that ends
    # (completed, cancelled, no-show) withdraws its offer and frees its driver.
    "dispatch.receivers.booking_event_dispatch",
    # Every event goes to the webhook of the account that sent the booking (contract 5.1).
    "partners.receivers.booking_event_webhook_enqueue",
)


def booking_event_subscribers_connect() -> None:
    for path in BOOKING_EVENT_SUBSCRIBERS:
        booking_event_committed.connect(import_string(path), dispatch_uid=path)
