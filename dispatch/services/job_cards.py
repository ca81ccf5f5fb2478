"""Job cards: the SMS and WhatsApp message a driver gets with an offer (seed 1.3, 6.1)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from billing.services.usage import sms_usage_record
from bookings.models import Booking
from core.localtime import local_time_format
from dispatch.airports import airport_pickup_summary
from dispatch.links import offer_link_url
from dispatch.models import (
    NOTIFICATION_COST_GBP,
    NotificationChannel,
    NotificationLog,
    NotificationStatus,
    Offer,
    OfferStatus,
)
from dispatch.notifications import JobCardSendError, job_card_backend
from dispatch.services.pickup_routes import driver_pickup_route
from pricing.routing import DistanceSource

PAYMENT_LABELS = {
    "cash_to_driver": "cash to driver",
    "card_to_driver": "card to driver",
    "account": "on account",
    "bank_transfer": "bank transfer",
    "direct_to_driver": "pay the driver directly",
}


def job_card_body(*, offer: Offer) -> str:
    """The text of the card. The passenger's name and phone are not in it: they are shown
    in the app only once the driver has accepted."""
    booking: Booking = offer.booking
    payment = PAYMENT_LABELS.get(booking.payment_method, booking.payment_method)
    lines = [
        f"New job {booking.reference}",
        f"Pickup {local_time_format(booking.pickup_time, 'short')}: {booking.pickup}",
        f"To: {booking.dropoff}",
        f"{booking.passengers} pax, {booking.vehicle_type}. Fare GBP {booking.fare} ({payment}).",
    ]
    route = driver_pickup_route(driver=offer.driver, booking=booking) if offer.driver else None
    if route is not None and route.source == DistanceSource.ROAD:
        # Routed on the road network, with the driver's own maps key when they have one.
        lines.append(
            f"{route.distance_miles} miles by road to pickup, about {route.duration_minutes} min."
        )
    elif offer.dead_miles is not None:
        lines.append(f"{offer.dead_miles} miles to pickup.")
    lines.extend(_airport_lines(booking))
    lines.append(
        f"Accept or decline by {local_time_format(offer.expires_at, 'time')}: "
        f"{offer_link_url(offer.pk)}"
    )
    return "\n".join(lines)


def _airport_lines(booking: Booking) -> list[str]:
    """Flight, terminal and where to meet at an airport pickup (issue 15)."""
    airport = airport_pickup_summary(booking)
    if airport is None:
        return [f"Flight {booking.flight_number}."] if booking.flight_number else []
    flight = f"Flight {airport['flightNumber']}" if airport["flightNumber"] else "Airport pickup"
    if airport["terminal"]:
        flight += f", terminal {airport['terminal']}"
    if airport["landingAt"]:
        verb = "landed" if airport["landed"] else "lands"
        flight += f", {verb} {local_time_format(airport['landingAt'], 'time')}"
    return [f"{flight}.", f"Meet: {airport['meetingPoint']}"]


def job_card_send(*, offer_id: int, channel: str) -> NotificationLog | None:
    """Send the job card of an open driver offer on one channel, once.

    Guarantees: at most one NotificationLog per (offer, channel) (a unique constraint) and
    at most one successful send: a retry only sends a card that is still pending or
    failed, and a concurrent duplicate loses the guarded claim. Raises JobCardSendError
    when the provider refuses, for the task to retry with backoff.
    """
    offer = Offer.objects.select_related("booking", "driver").filter(pk=offer_id).first()
    if offer is None or offer.driver is None:
        return None
    log = _log_create_claimed(offer, channel) if offer.status == OfferStatus.OPEN else None
    if log is None:
        # A retry, a duplicate task, or an offer no longer open: send only a card that is
        # still pending or failed, and only by winning the guarded claim.
        log = NotificationLog.objects.filter(offer=offer, channel=channel).first()
        if log is None:
            return None  # the offer closed before its card was written: nobody to tell
        claimed = NotificationLog.objects.filter(
            pk=log.pk, status__in=[NotificationStatus.PENDING, NotificationStatus.FAILED]
        ).update(status=NotificationStatus.SENDING, attempts=F("attempts") + 1)
        if not claimed:
            return log  # already sent, or another worker is sending it right now
    try:
        sid = job_card_backend().send(channel=channel, to=log.to, body=log.body)
    except Exception as exc:
        # Whatever went wrong, the card is not out: leave it claimable for the retry.
        NotificationLog.objects.filter(pk=log.pk).update(
            status=NotificationStatus.FAILED, error=str(exc)[:300]
        )
        if isinstance(exc, JobCardSendError):
            raise
        raise JobCardSendError(str(exc)[:300]) from exc
    sent = {
        "status": NotificationStatus.SENT,
        "provider_sid": sid[:64],
        "error": "",
        "cost_gbp": NOTIFICATION_COST_GBP[channel],
        "sent_at": timezone.now(),
    }
    NotificationLog.objects.filter(pk=log.pk).update(**sent)
    for name, value in sent.items():
        setattr(log, name, value)
    if channel == NotificationChannel.SMS and log.driver_id:
        # Seed 8.5: each SMS is passed through to the driver; billing keeps the record.
        sms_usage_record(
            driver_id=log.driver_id, occurred_at=log.created_at, reference=f"job-card:{log.pk}"
        )
    return log


def _log_create_claimed(offer: Offer, channel: str) -> NotificationLog | None:
    """Write the card's log already claimed for sending (the first send of a card: one
    INSERT, no separate claim); None when it exists (the unique (offer, channel))."""
    try:
        with transaction.atomic():
            return NotificationLog.objects.create(
                offer=offer,
                booking=offer.booking,
                driver=offer.driver,
                channel=channel,
                to=offer.driver.phone,
                body=job_card_body(offer=offer),
                status=NotificationStatus.SENDING,
                attempts=1,
            )
    except IntegrityError:
        return None
