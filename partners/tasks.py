"""Celery tasks of the partners app: thin, by id, one service each."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings

from partners.services.driver_locations import (
    driver_location_batches,
    driver_locations_claim,
    driver_locations_deliver,
)
from partners.services.signatures import signed_requests_purge
from partners.services.webhooks import webhook_deliveries_due, webhook_delivery_attempt

# Waits up to this long ride on a broker countdown; longer ones wait in the database.
COUNTDOWN_MAX = timedelta(seconds=60)


@shared_task(ignore_result=True, acks_late=True)
def webhook_delivery_send(delivery_id: int) -> None:
    """Attempt one delivery; a short first retry is nudged with a countdown.

    The countdown is only a nudge: the row's ``next_attempt_at`` decides, so an early or
    duplicate run does nothing and the periodic task still finds the row if it is lost.
    """
    outcome = webhook_delivery_attempt(delivery_id=delivery_id)
    if outcome.retry_in is not None and outcome.retry_in <= COUNTDOWN_MAX:
        webhook_delivery_send.apply_async(
            (delivery_id,), countdown=outcome.retry_in.total_seconds() + 0.5
        )


@shared_task(ignore_result=True)
def webhook_deliveries_due_send() -> int:
    """Periodic (Celery beat): enqueue every delivery whose next attempt is due."""
    due = webhook_deliveries_due()
    for delivery_id in due:
        webhook_delivery_send.delay(delivery_id)
    return len(due)


@shared_task(ignore_result=True)
def signed_requests_expired_purge() -> int:
    """Periodic (Celery beat): forget signatures whose window has passed."""
    return signed_requests_purge()


@shared_task(ignore_result=True)
def driver_locations_tick() -> int:
    """Periodic (Celery beat, every DRIVER_LOCATION_TICK_SECONDS): claim the bookings whose
    position event is due and send each account one message per batch."""
    batches = driver_location_batches(driver_locations_claim())
    for account_id, booking_ids in batches:
        # A message that waited a whole interval is stale: dropped, the next claim covers it.
        driver_locations_send.apply_async(
            (account_id, booking_ids), expires=settings.DRIVER_LOCATION_EVENT_INTERVAL_SECONDS
        )
    return len(batches)


@shared_task(ignore_result=True)
def driver_locations_send(account_id: int, booking_ids: list[int]) -> int:
    """Send one account the latest positions of these bookings (not retried)."""
    return driver_locations_deliver(account_id=account_id, booking_ids=booking_ids).sent
