"""Job cards: the SMS and WhatsApp message a driver gets with an offer (seed 1.3, 6.1)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from billing.services.usage import sms_usage_record
from bookings.models import Booking
from core.localtime import local_time_format
from dispatch import conf
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


@dataclass(frozen=True)
class JobCard:
    """What a driver is told about a job before answering it: the one source of both the
    SMS/WhatsApp card and the job-card page, so a fact added here shows on both. The
    passenger's name and phone are not in it: they come once the driver has accepted.
    The passenger's notes ("1 child seat") are, because the driver needs them to decide."""

    reference: str
    pickup_time: datetime
    pickup: str
    dropoff: str
    passengers: int
    vehicle_type: str
    fare: Decimal
    payment: str
    dead_miles: Decimal | None
    # "7.2 miles by road to pickup, about 14 min." (routed, with the driver's own maps key
    # when they have one) or the straight-line "6.1 miles to pickup."; empty when unknown.
    to_pickup: str
    flight_number: str
    # Flight, terminal and landing, and where to meet, at an airport pickup (issue 15).
    airport_lines: tuple[str, ...]
    notes: str
    answer_by: datetime


def job_card_get(*, offer: Offer) -> JobCard:
    booking: Booking = offer.booking
    return JobCard(
        reference=booking.reference,
        pickup_time=booking.pickup_time,
        pickup=booking.pickup,
        dropoff=booking.dropoff,
        passengers=booking.passengers,
        vehicle_type=booking.vehicle_type,
        fare=booking.fare,
        payment=PAYMENT_LABELS.get(booking.payment_method, booking.payment_method),
        dead_miles=offer.dead_miles,
        to_pickup=_to_pickup(offer, booking),
        flight_number=booking.flight_number,
        airport_lines=tuple(_airport_lines(booking)),
        notes=booking.notes,
        answer_by=offer.expires_at,
    )


def job_card_body(*, offer: Offer) -> str:
    """The text of the card sent by SMS and WhatsApp (times in UK local time)."""
    card = job_card_get(offer=offer)
    lines = [
        f"New job {card.reference}",
        f"Pickup {local_time_format(card.pickup_time, 'short')}: {card.pickup}",
        f"To: {card.dropoff}",
        f"{card.passengers} pax, {card.vehicle_type}. Fare GBP {card.fare} ({card.payment}).",
    ]
    if card.to_pickup:
        lines.append(card.to_pickup)
    lines.extend(card.airport_lines)
    if card.notes:
        lines.append(f"Notes: {card.notes}")
    lines.append(
        f"Accept or decline by {local_time_format(card.answer_by, 'time')}: "
        f"{offer_link_url(offer.pk)}"
    )
    return "\n".join(lines)


def _to_pickup(offer: Offer, booking: Booking) -> str:
    route = driver_pickup_route(driver=offer.driver, booking=booking) if offer.driver else None
    if route is not None and route.source == DistanceSource.ROAD:
        return (
            f"{route.distance_miles} miles by road to pickup, about {route.duration_minutes} min."
        )
    if offer.dead_miles is not None:
        return f"{offer.dead_miles} miles to pickup."
    return ""


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
    offer = _offer_for_card(offer_id)
    if offer is None:
        return None
    return _card_send(offer, channel)


def job_cards_send(*, offer_id: int) -> list[NotificationLog]:
    """Send the job card of an open driver offer on every channel (SMS, then WhatsApp),
    each once, as :func:`job_card_send` does: the offer is read and the card written once
    for both. Every channel is tried before a refusal is raised (JobCardSendError, for
    the task to retry: a card already sent is not sent again)."""
    offer = _offer_for_card(offer_id)
    if offer is None:
        return []
    body = job_card_body(offer=offer) if offer.status == OfferStatus.OPEN else None
    logs, refused = [], None
    for channel in NotificationChannel.values:
        try:
            log = _card_send(offer, channel, body=body)
        except JobCardSendError as exc:
            refused = refused or exc
            continue
        if log is not None:
            logs.append(log)
    if refused is not None:
        raise refused
    return logs


def _offer_for_card(offer_id: int) -> Offer | None:
    # get, not first: an ORDER BY over the joined rows cost more to build than to run.
    try:
        offer = Offer.objects.select_related("booking", "driver").get(pk=offer_id)
    except Offer.DoesNotExist:
        return None
    return offer if offer.driver is not None else None


def _card_send(offer: Offer, channel: str, *, body: str | None = None) -> NotificationLog | None:
    log = (
        _log_create_claimed(offer, channel, body=body) if offer.status == OfferStatus.OPEN else None
    )
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
    return notification_log_send(log, usage_reference=f"job-card:{log.pk}")


class JobCardSentUnrecorded(Exception):
    """The provider accepted a message but the database went away before its outcome was
    written (PostgreSQL restarted): the message is out, so its log stays ``sending`` and
    no retry sends it again. ``outcome`` is what :func:`notification_log_sent_record`
    needs to write it once the database is back (``dispatch.tasks`` queues that)."""

    def __init__(self, outcome: dict[str, str | int]) -> None:
        super().__init__(f"notification {outcome['log_id']} sent, its outcome not recorded")
        self.outcome = outcome


def notification_log_send(log: NotificationLog, *, usage_reference: str) -> NotificationLog:
    """Send a message whose log the caller has claimed (status ``sending``) through the
    job-card backend (console, or the real Twilio client), and record the outcome: sent
    with the provider's id and cost, and an SMS passed through to billing (seed 8.5); or
    failed, claimable again, raising JobCardSendError for the task to retry. Sent but not
    recorded (the database went away meanwhile): JobCardSentUnrecorded, with the outcome."""
    channel = log.channel
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
    sent_at = timezone.now()
    try:
        _log_sent_record(log, provider_sid=sid, sent_at=sent_at, usage_reference=usage_reference)
    except (OperationalError, InterfaceError) as exc:
        outcome = {"log_id": log.pk, "provider_sid": sid, "sent_at": sent_at.isoformat()}
        raise JobCardSentUnrecorded({**outcome, "usage_reference": usage_reference}) from exc
    return log


def notification_log_sent_record(
    *, log_id: int, provider_sid: str, sent_at: str, usage_reference: str
) -> None:
    """Write the outcome of a message the provider accepted while the database was away
    (JobCardSentUnrecorded). Guarantees: only a log still ``sending`` becomes ``sent``
    and the SMS is billed once (per ``usage_reference``), however often this runs."""
    log = NotificationLog.objects.filter(pk=log_id).first()
    if log is not None:
        _log_sent_record(
            log,
            provider_sid=provider_sid,
            sent_at=datetime.fromisoformat(sent_at),
            usage_reference=usage_reference,
        )


def _log_sent_record(
    log: NotificationLog, *, provider_sid: str, sent_at: datetime, usage_reference: str
) -> None:
    sent = {
        "status": NotificationStatus.SENT,
        "provider_sid": provider_sid[:64],
        "error": "",
        "cost_gbp": NOTIFICATION_COST_GBP[log.channel],
        "sent_at": sent_at,
    }
    NotificationLog.objects.filter(pk=log.pk, status=NotificationStatus.SENDING).update(**sent)
    for name, value in sent.items():
        setattr(log, name, value)
    if log.channel == NotificationChannel.SMS and log.driver_id:
        # Seed 8.5: each SMS is passed through to the driver; billing keeps the record.
        sms_usage_record(
            driver_id=log.driver_id, occurred_at=log.created_at, reference=usage_reference
        )


def job_cards_overdue(
    *, now: datetime | None = None, limit: int = 500
) -> Iterator[tuple[int, str]]:
    """(offer id, channel) of the job cards of open driver offers that were never written:
    the send task's message was lost between the offer's commit and a worker (a worker
    killed, a broker restarted while it was published). Each such card is written here,
    pending, so that a later sweep does not pick it again however deep the queue is; the
    send task the sweep enqueues (or the original one, if it was only late) claims it and
    sends it once. Each is yielded as soon as it is written, for the caller to enqueue at
    once: a card written pending and never enqueued (the database gone before the sweep
    ended) would wait for ever, since no sweep picks a written card again."""
    now = now or timezone.now()
    older_than = now - timedelta(seconds=conf.job_card_grace_seconds())
    for channel in NotificationChannel.values:
        offers = (
            Offer.objects.filter(
                status=OfferStatus.OPEN, driver__isnull=False, created_at__lte=older_than
            )
            .exclude(Exists(NotificationLog.objects.filter(offer=OuterRef("pk"), channel=channel)))
            .select_related("booking", "driver")[:limit]
        )
        for offer in offers:
            if _log_create(offer, channel, status=NotificationStatus.PENDING) is not None:
                yield offer.pk, channel


def _log_create_claimed(
    offer: Offer, channel: str, *, body: str | None = None
) -> NotificationLog | None:
    """Write the card's log already claimed for sending (the first send of a card: one
    INSERT, no separate claim); None when it exists (the unique (offer, channel))."""
    return _log_create(offer, channel, status=NotificationStatus.SENDING, body=body)


def _log_create(
    offer: Offer, channel: str, *, status: str, body: str | None = None
) -> NotificationLog | None:
    try:
        # In a worker's task (autocommit) the INSERT commits alone, and a duplicate fails
        # alone: BEGIN and COMMIT around it were two statements per card (issue 41). In a
        # caller's transaction, a savepoint keeps that transaction usable after a duplicate.
        with transaction.atomic() if connection.in_atomic_block else nullcontext():
            return NotificationLog.objects.create(
                offer=offer,
                booking=offer.booking,
                driver=offer.driver,
                channel=channel,
                to=offer.driver.phone,
                body=body if body is not None else job_card_body(offer=offer),
                status=status,
                attempts=int(status == NotificationStatus.SENDING),
            )
    except IntegrityError:
        return None
