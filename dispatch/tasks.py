"""Dispatch tasks: each takes ids and calls one service (enqueued after commit)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from celery import shared_task
from django.db import InterfaceError, OperationalError
from django.utils import timezone

from dispatch.models import Offer
from dispatch.notifications import JobCardSendError, job_card_backend
from dispatch.services import cancellations, flights, job_cards, offers, redispatch


@shared_task
def booking_dispatch_start(booking_id: int) -> None:
    """A new network booking enters dispatch (published by the dispatcher, dispatch.relay)."""
    offers.booking_dispatch_next(booking_id=booking_id)


@shared_task
def booking_dispatch_next(booking_id: int) -> None:
    """After a decline or timeout: offer the booking to the next candidate."""
    offers.booking_dispatch_next(booking_id=booking_id)


@shared_task
def booking_dispatch_stop(booking_id: int) -> None:
    """A booking was cancelled: withdraw its offer, free its driver."""
    offers.booking_dispatch_stop(booking_id=booking_id)


@shared_task(bind=True)
def offer_expire(self, offer_id: int) -> None:
    """Time out an offer. Enqueued with the timeout as countdown; a worker that picks it up
    early puts it back for the rest of the wait (the periodic sweep is the safety net)."""
    if offers.offer_expire(offer_id=offer_id) or self.request.is_eager:
        return
    expires_at = (
        Offer.objects.filter(pk=offer_id, status="open")
        .values_list("expires_at", flat=True)
        .first()
    )
    if expires_at is not None:
        wait = (expires_at - timezone.now()).total_seconds()
        offer_expire.apply_async((offer_id,), countdown=max(1, int(wait) + 1))


@shared_task
def offers_expire_overdue() -> int:
    """Periodic (beat) sweep for offers whose countdown task was lost."""
    return offers.offers_expire_overdue()


@shared_task
def bookings_dispatch_overdue() -> int:
    """Periodic (beat) sweep for bookings claimed by the dispatcher whose task was lost."""
    return len(offers.bookings_dispatch_overdue())


# A message on a job-card channel that must reach the driver soon (a job card, a
# cancellation) is retried with backoff when the provider fails, and when the database
# went away (PostgreSQL restarted) before it was sent: a retry sends only a message still
# pending or failed, never one left ``sending`` (it may be out), so retrying is safe.
DATABASE_DOWN = (OperationalError, InterfaceError)
JOB_CARD_RETRIES = {
    "autoretry_for": (JobCardSendError, job_cards.JobCardSentUnrecorded, *DATABASE_DOWN),
    "retry_backoff": 2,
    "retry_backoff_max": 120,
    "retry_jitter": True,
    "max_retries": 6,
}


@contextmanager
def _sent_outcome_kept() -> Iterator[None]:
    """A message the provider accepted while the database went away: its outcome is
    queued to be written once the database is back (the task itself then retries, for
    what it had not sent yet)."""
    try:
        yield
    except job_cards.JobCardSentUnrecorded as unrecorded:
        notification_sent_record.delay(**unrecorded.outcome)
        raise


@shared_task(**JOB_CARD_RETRIES)
def job_card_send(offer_id: int, channel: str) -> None:
    """Send one job card (SMS or WhatsApp); retried with backoff when the provider fails."""
    with _sent_outcome_kept():
        job_cards.job_card_send(offer_id=offer_id, channel=channel)


@shared_task(**JOB_CARD_RETRIES)
def job_cards_send(offer_id: int) -> None:
    """Send a new offer's job card on every channel (one task, not one per channel: the
    offer is read and the card written once); a retry sends only what is not out yet."""
    with _sent_outcome_kept():
        job_cards.job_cards_send(offer_id=offer_id)


@shared_task(**JOB_CARD_RETRIES)
def cancellation_notice_send(booking_id: int, driver_id: int, channel: str) -> None:
    """Tell a driver a job they held or were offered is cancelled (SMS or WhatsApp)."""
    with _sent_outcome_kept():
        cancellations.cancellation_notice_send(
            booking_id=booking_id, driver_id=driver_id, channel=channel
        )


@shared_task(
    autoretry_for=DATABASE_DOWN,
    retry_backoff=2,
    retry_backoff_max=120,
    retry_jitter=True,
    max_retries=12,
)
def notification_sent_record(
    log_id: int, provider_sid: str, sent_at: str, usage_reference: str
) -> None:
    """Write the outcome of a message sent while the database was away, once it is back."""
    job_cards.notification_log_sent_record(
        log_id=log_id, provider_sid=provider_sid, sent_at=sent_at, usage_reference=usage_reference
    )


@shared_task
def job_cards_send_overdue() -> int:
    """Periodic (beat) sweep for job cards whose send task was lost."""
    enqueued = 0
    for offer_id, channel in job_cards.job_cards_overdue():
        job_card_send.delay(offer_id, channel)  # at once: a card written is never swept again
        enqueued += 1
    return enqueued


@shared_task
def no_driver_alert(booking_id: int) -> None:
    offers.no_driver_alert_send(booking_id=booking_id)


@shared_task
def flights_poll() -> int:
    """Beat: ask the flight status provider about upcoming airport pickups (issue 15)."""
    return flights.flights_poll()


@shared_task
def pickup_moved_notify(booking_id: int) -> None:
    """Tell the driver and the passenger that a flight moved the pickup."""
    flights.pickup_moved_notify(booking_id=booking_id)


@shared_task
def no_driver_bookings_retry(driver_id: int) -> None:
    """A driver became available: offer the no_driver bookings near them again."""
    offers.no_driver_bookings_retry(driver_id=driver_id)


@shared_task
def bookings_redispatch() -> int:
    """Beat (``dispatch-redispatch``): offer bookings without a driver again while their
    window is open; hand over those whose window closed. Returns how many were offered."""
    return redispatch.bookings_redispatch().offered


@shared_task
def unassigned_passenger_notify(booking_id: int) -> None:
    """Tell the passenger no driver was found before the window closed."""
    redispatch.unassigned_passenger_notify(booking_id=booking_id)


@shared_task
def offer_busy_window_refresh(booking_id: int) -> None:
    """An amended booking's accepted job keeps its driver busy where it now is."""
    offers.offer_busy_window_refresh(booking_id=booking_id)


@shared_task(
    autoretry_for=(JobCardSendError,),
    retry_backoff=30,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=6,
)
def driver_message_send(to: str, channel: str, body: str) -> str:
    """A message to a driver on a job-card channel (a failed subscription payment, issue
    36), through the same notification backend; not a job card, so not billed as one."""
    return job_card_backend().send(channel=channel, to=to, body=body)
