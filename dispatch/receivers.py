"""Dispatch listens to the booking engine, drivers and billing (connected in DispatchConfig.ready)."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from bookings import events
from bookings.models import DispatchQueue
from bookings.transitions import TERMINAL
from dispatch import tasks
from dispatch.models import NotificationChannel


def booking_event_dispatch(sender, event, **kwargs) -> None:
    """A booking that ends (cancelled, completed, no-show, by whatever door) withdraws its
    offer and frees its driver. In the local configuration (``DISPATCH_IN_PROCESS``), a
    new network booking is also dispatched here, in this process; otherwise the
    dispatcher process hands it over (dispatch.relay). A prebooked booking whose dispatch
    window is still closed waits either way: the dispatcher (or the periodic sweep) starts
    it when the window opens.

    The signal is sent after commit, so a task never runs before the booking exists.
    Operator-queue bookings go to the operator's own fleet dispatch (seed 4, rule 2).
    """

    if event.type == events.CREATED:
        booking = event.booking
        if (
            settings.DISPATCH_IN_PROCESS
            and booking.dispatch_queue == DispatchQueue.NETWORK
            and booking.dispatch_opens_at <= timezone.now()
        ):
            tasks.booking_dispatch_start.delay(event.booking_id)
    elif event.to_status in TERMINAL:
        tasks.booking_dispatch_stop.delay(event.booking_id)
    elif event.type == events.AMENDED:
        tasks.offer_busy_window_refresh.delay(event.booking_id)


def driver_available_dispatch(sender, driver_id: int, **kwargs) -> None:
    """A driver became available (``drivers.signals``, after commit): bookings nobody could
    take near them are offered again (``offers.no_driver_bookings_retry``)."""

    tasks.no_driver_bookings_retry.delay(driver_id)


def invoice_payment_failed_tell(sender, invoice, driver, link, text, **kwargs) -> None:
    """Billing failed to charge a driver's weekly invoice (billing.signals, after commit):
    the driver is told on the channels their job cards come on, SMS and WhatsApp (seed
    6.1), besides billing's email."""
    if not driver.phone:
        return
    for channel in NotificationChannel.values:
        tasks.driver_message_send.delay(driver.phone, channel, text)
