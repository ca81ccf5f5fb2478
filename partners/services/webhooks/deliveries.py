"""Creating webhook deliveries: the bodies of booking events and tier-3 offers, and one
:class:`WebhookDelivery` row per (account, event) or (account, offer) that freezes the body
and the ``webhook-id`` (contract 5.1).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC

from django.db import IntegrityError, transaction
from django.utils import timezone

from bookings import events as booking_events
from bookings.models import Booking, BookingEvent, BookingStatus
from bookings.selectors import driver_public_summary
from dispatch.models import Offer, OfferStatus
from partners.models import Account, IntakeFormat, WebhookDelivery
from partners.services.webhooks.transport import webhook_delivery_url

# A job offered to a partner fleet (tier 3): sent to the fleet, never to the booking's
# sender, and not a booking event (bookings.events holds those).
OFFERED = "booking.offered"


def _iso_utc(moment) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def webhook_payload_build(*, event: BookingEvent, booking: Booking) -> dict:
    """The event body of contract 5.1; ``sequence`` lets a receiver keep the latest state.
    ``booking.unassigned`` also carries the reasons dispatch recorded (issue 34)."""
    data = {
        "bookingReference": booking.reference,
        "jobRef": booking.job_ref or None,
        "status": event.to_status or booking.status,
        "previousStatus": event.from_status or None,
        "driver": driver_public_summary(booking.driver, booking.vehicle),
        "sequence": event.sequence,
    }
    if event.type == booking_events.UNASSIGNED:
        data["reasons"] = event.detail.get("reasons", [])
    return {"type": event.type, "timestamp": _iso_utc(event.created_at), "data": data}


def webhook_delivery_create(*, event: BookingEvent) -> WebhookDelivery | None:
    """Create the delivery of ``event`` to the sender of its booking, if it has a webhook.

    Guarantees: at most one delivery per (account, event), even when called twice; None
    when the booking has no sender, the sender has no URL, or its endpoint is disabled,
    or the sender's format speaks a protocol of its own (TOMP-API: its messages are
    :func:`format_message_delivery_create`'s). Call after the event's transaction
    committed (the booking_event_committed signal).
    """
    booking = event.booking
    if booking.account_id is None:
        return None
    # The common case (a sender with no webhook URL) is decided without a query when the
    # booking was loaded with its account; an unloaded one is not fetched just for this.
    if Booking.account.is_cached(booking) and not booking.account.webhook_url:
        return None
    # Read afresh: the booking's cached account may predate a 410 that disabled it.
    account = (
        Account.objects.filter(
            pk=booking.account_id,
            webhook_disabled_at__isnull=True,
            intake_format=IntakeFormat.PARTNER_JOB,
        )
        .exclude(webhook_url="")
        .first()
    )
    if account is None:
        return None
    body = json.dumps(webhook_payload_build(event=event, booking=booking), separators=(",", ":"))
    return _event_delivery_create(account=account, booking=booking, event=event, body=body)


def format_message_delivery_create(
    *,
    account: Account,
    event: BookingEvent,
    message_type: str,
    body: dict,
    path: str,
    headers: dict[str, str],
) -> WebhookDelivery | None:
    """The delivery of a booking event to ``account`` in its format's own protocol: the
    ``body`` to ``path`` under the account's URL, with the format's ``headers``, signed,
    SSRF-checked and retried like every webhook.

    Guarantees: at most one delivery per (account, event), even when called twice; None
    when the account has no URL or its endpoint is disabled. Call after the event's
    transaction committed (the booking_event_committed signal).
    """
    if not account.webhook_url or account.webhook_disabled_at is not None:
        return None
    return _event_delivery_create(
        account=account,
        booking=event.booking,
        event=event,
        body=json.dumps(body, separators=(",", ":")),
        event_type=message_type,
        path=path,
        headers=headers,
    )


def _event_delivery_create(
    *,
    account: Account,
    booking: Booking,
    event: BookingEvent,
    body: str,
    event_type: str = "",
    path: str = "",
    headers: dict[str, str] | None = None,
) -> WebhookDelivery | None:
    """The delivery of one booking event to one account, due now; None when that account
    already has it (the unique (account, event): a repeat or a race creates nothing)."""
    try:
        with transaction.atomic():
            return WebhookDelivery.objects.create(
                account=account,
                booking=booking,
                event=event,
                webhook_id=f"msg_{uuid.uuid4().hex}",
                event_type=event_type or event.type,
                sequence=event.sequence,
                body=body,
                url=webhook_delivery_url(account.webhook_url, path=path),
                path=path,
                headers=headers or {},
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return None  # already created for this event


def fleet_offer_payload_build(*, offer: Offer, booking: Booking) -> dict:
    """The ``booking.offered`` body: what a fleet needs to decide and do the job.

    Data minimisation: no passenger name, phone or email, and not the sender's jobRef; the
    fleet learns who to collect only once it holds the job.
    """
    return {
        "type": OFFERED,
        "timestamp": _iso_utc(offer.created_at),
        "data": {
            "bookingReference": booking.reference,
            "offerId": offer.pk,
            "expiresAt": _iso_utc(offer.expires_at),
            "pickup": booking.pickup,
            "dropoff": booking.dropoff,
            "pickupTime": _iso_utc(booking.pickup_time),
            "passengers": booking.passengers,
            "vehicleType": booking.vehicle_type,
            "fareGBP": float(booking.fare),
            "currency": booking.currency,
            "wheelchairAccess": booking.wheelchair_access,
            "notes": booking.notes,
            "sequence": booking.sequence,
        },
    }


def fleet_offer_delivery_create(*, offer_id: int) -> WebhookDelivery | None:
    """Create the ``booking.offered`` delivery of a tier-3 offer to its fleet's account.

    Guarantees: at most one delivery per (account, offer), even when called twice; None
    when the offer is no longer open (answered, expired or withdrawn since it was made),
    or the fleet's account has no webhook URL or a disabled endpoint. Call after the
    offer's transaction committed (the dispatch.signals.fleet_offer_made signal).
    """
    offer = (
        Offer.objects.select_related("booking", "fleet__account")
        .filter(pk=offer_id, fleet__isnull=False, status=OfferStatus.OPEN)
        .first()
    )
    if offer is None or offer.booking.status != BookingStatus.OFFERED:
        return None
    account = offer.fleet.account
    if not account.webhook_url or account.webhook_disabled_at is not None:
        return None
    booking = offer.booking
    body = json.dumps(
        fleet_offer_payload_build(offer=offer, booking=booking), separators=(",", ":")
    )
    try:
        with transaction.atomic():
            return WebhookDelivery.objects.create(
                account=account,
                booking=booking,
                offer=offer,
                webhook_id=f"msg_{uuid.uuid4().hex}",
                event_type=OFFERED,
                sequence=booking.sequence,
                body=body,
                url=account.webhook_url,
                next_attempt_at=timezone.now(),
            )
    except IntegrityError:
        return None  # already created for this offer


# Booking events a partner fleet holding the job receives besides the sender (contract
# 5.1): its own acceptance (with the passenger's contact), amendments and cancellation.
FLEET_JOB_EVENT_TYPES = frozenset({booking_events.AMENDED, booking_events.CANCELLED})


def fleet_job_payload_build(*, event: BookingEvent, booking: Booking) -> dict:
    """The fleet's copy of a booking event: the sender's body, plus what the fleet needs
    to do the job as it now stands: the passenger's name and phone (to the holding fleet
    only) and the journey; an amendment also names the fields it changed."""
    payload = webhook_payload_build(event=event, booking=booking)
    data = payload["data"]
    data["passenger"] = {
        "name": booking.passenger_name or None,
        "phone": booking.passenger_phone or None,
    }
    data["job"] = {
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "pickupTime": _iso_utc(booking.pickup_time),
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "wheelchairAccess": booking.wheelchair_access,
        "flightNumber": booking.flight_number or None,
        "notes": booking.notes,
        "fareGBP": float(booking.fare),
        "currency": booking.currency,
    }
    if event.type == booking_events.AMENDED:
        data["changedFields"] = list((event.detail or {}).get("fields", []))
    return payload


def _fleet_holding_job(booking: Booking) -> Account | None:
    """The partner fleet's account that holds ``booking`` through an accepted tier-3 offer
    (not a national operator a driver works for), when it has a live webhook."""
    if booking.subcontracted_to_id is None:
        return None
    latest_accepted = (
        Offer.objects.filter(booking_id=booking.pk, status=OfferStatus.ACCEPTED)
        .order_by("-pk")
        .values_list("fleet__account_id", flat=True)
        .first()
    )
    if latest_accepted != booking.subcontracted_to_id:
        return None
    return (
        Account.objects.filter(pk=booking.subcontracted_to_id, webhook_disabled_at__isnull=True)
        .exclude(webhook_url="")
        .first()
    )


def fleet_job_delivery_create(*, event: BookingEvent) -> WebhookDelivery | None:
    """Create the holding fleet's copy of ``event`` (contract 5.1, tier-3 hand-off).

    Guarantees: only for the fleet's acceptance of the job, an amendment or the
    cancellation of a booking a partner fleet holds through an accepted offer; only to
    that fleet (the passenger's contact goes nowhere else); at most one delivery per
    (account, event); None otherwise, or when the fleet has no URL or a disabled endpoint.
    Call after the event's transaction committed, beside :func:`webhook_delivery_create`.
    """
    booking = event.booking
    if booking.subcontracted_to_id is None:
        return None  # the common case, decided without a query
    accepted = (
        event.to_status == BookingStatus.ACCEPTED and event.from_status != BookingStatus.ACCEPTED
    )
    if not accepted and event.type not in FLEET_JOB_EVENT_TYPES:
        return None
    account = _fleet_holding_job(booking)
    if account is None or account.pk == booking.account_id:
        return None  # not a fleet's job, or the fleet is also the sender (one copy)
    body = json.dumps(fleet_job_payload_build(event=event, booking=booking), separators=(",", ":"))
    return _event_delivery_create(account=account, booking=booking, event=event, body=body)
