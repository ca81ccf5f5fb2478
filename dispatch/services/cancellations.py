"""Telling drivers that a job was cancelled (contract 3.1, issue 34).

A cancellation from any door (API, website, MCP, partner, operator, admin) goes through
``bookings.services.booking_cancel``; its committed event reaches
``dispatch.receivers.booking_event_dispatch``, whose ``booking_dispatch_stop`` withdraws
the open offer, frees the assigned driver, and names here the drivers to tell: the one
who held the job and the one whose offer was open. Each is told at once on the job
card's channels (SMS and WhatsApp, through the same backend: the real Twilio client, or
the console in the demo), once per channel (a unique constraint), and the driver app
shows the job as cancelled (``dispatch.selectors.driver_jobs_cancelled``).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F

from bookings.models import Booking, BookingStatus
from core.localtime import local_time_format
from core.task_queue import task_enqueue_on_commit
from dispatch.models import (
    NotificationChannel,
    NotificationKind,
    NotificationLog,
    NotificationStatus,
)
from dispatch.services.job_cards import notification_log_send
from drivers.models import Driver


def cancellation_notices_enqueue(*, booking_id: int, driver_ids: set[int]) -> None:
    """After the caller's transaction commits, send each driver the cancellation on every
    job-card channel."""
    for driver_id in sorted(driver_ids):
        for channel in NotificationChannel.values:
            task_enqueue_on_commit(
                "dispatch.tasks.cancellation_notice_send",
                booking_id,
                driver_id,
                channel,
                robust=True,
            )


def cancellation_notice_body(booking: Booking) -> str:
    reason = f" Reason: {booking.cancel_reason}" if booking.cancel_reason else ""
    return (
        f"CANCELLED: job {booking.reference}, pickup "
        f"{local_time_format(booking.pickup_time, 'short')} at {booking.pickup}. "
        f"Do not go to the pickup; the job is off your list.{reason}"
    )


def cancellation_notice_send(
    *, booking_id: int, driver_id: int, channel: str
) -> NotificationLog | None:
    """Send one driver the cancellation of a booking on one channel, once.

    Guarantees: at most one log per (booking, driver, channel) of this kind and one
    successful send; a retry sends only a notice still pending or failed. Raises
    JobCardSendError when the provider refuses, for the task to retry with backoff.
    """
    booking = Booking.objects.filter(pk=booking_id, status=BookingStatus.CANCELLED).first()
    driver = Driver.objects.filter(pk=driver_id).only("pk", "phone").first()
    if booking is None or driver is None or not driver.phone:
        return None
    try:
        with transaction.atomic():
            log = NotificationLog.objects.create(
                booking=booking,
                driver=driver,
                channel=channel,
                kind=NotificationKind.CANCELLATION,
                to=driver.phone,
                body=cancellation_notice_body(booking),
                status=NotificationStatus.SENDING,
                attempts=1,
            )
    except IntegrityError:
        log = NotificationLog.objects.get(
            booking=booking, driver=driver, channel=channel, kind=NotificationKind.CANCELLATION
        )
        claimed = NotificationLog.objects.filter(
            pk=log.pk, status__in=[NotificationStatus.PENDING, NotificationStatus.FAILED]
        ).update(status=NotificationStatus.SENDING, attempts=F("attempts") + 1)
        if not claimed:
            return log  # already sent, or being sent by another worker
    return notification_log_send(log, usage_reference=f"cancellation:{log.pk}")
