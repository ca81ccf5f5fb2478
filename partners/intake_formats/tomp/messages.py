"""What this Transport Operator tells the MaaS provider, in TOMP-API 1.6.1 as the taxi
profile uses it: the provider does not have to poll for the driver's progress.

Each booking event of a TOMP booking becomes at most one message, sent to the path the
specification gives under the provider's base URL (the account's webhook URL), with
TOMP's headers, through the partner webhook machinery (signed, SSRF-checked, retried,
one delivery per (account, event)):

| our booking event | TOMP message |
|---|---|
| a driver accepted | ``POST /bookings/{id}/events`` ``COMMIT`` (postponed commit: confirmed) |
| en route, arrived at the pickup | ``POST /legs/{id}/events`` ``PREPARE``, with the car |
| passenger on board | ``POST /legs/{id}/events`` ``SET_IN_USE`` |
| completed | ``POST /legs/{id}/events`` ``FINISH`` |
| the dispatch window closed with no driver | ``POST /bookings/{id}/events`` ``DENY`` |
| cancelled by anyone but the provider | ``POST /bookings/{id}/events`` ``CANCEL`` (origin TO) |
| the driver gave the job back (it is offered again) | ``POST /bookings/{id}/notifications`` ``VEHICLE_NOT_AVAILABLE`` |
| the passenger did not show | ``POST /bookings/{id}/notifications`` ``USER_NO_SHOW`` |

A cancellation the provider asked for itself is not echoed back. Messages are retried
independently, so after an outage one may arrive after a later one: ``time`` (leg
events) and ``GET /bookings/{id}`` tell the current state.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from bookings import events as booking_events
from bookings.models import Booking, BookingEvent, BookingStatus
from partners.intake_formats.tomp.payload import JOB_REF_PREFIX
from partners.intake_formats.tomp.shapes import SPEC_VERSION
from partners.models import Account, IntakeFormat, WebhookDelivery
from partners.services.webhooks import format_message_delivery_create

TO_ORIGIN = "TO"
# Our booking status -> the leg event that tells it, with a comment for the end user.
LEG_EVENTS = {
    BookingStatus.EN_ROUTE: ("PREPARE", "The taxi is on its way to the pickup."),
    BookingStatus.ARRIVED: ("PREPARE", "The taxi is at the pickup."),
    BookingStatus.ON_BOARD: ("SET_IN_USE", "The passenger is on board."),
    BookingStatus.COMPLETED: ("FINISH", "The trip is completed."),
}


@dataclass(frozen=True)
class TompMessage:
    """One message to the provider: ``kind`` names it in the delivery log."""

    kind: str
    path: str
    body: dict[str, Any]


def tomp_option_id(booking: Booking) -> str | None:
    """The TOMP booking (and leg) id of a booking the TOMP door made, else None."""
    if not booking.job_ref.startswith(JOB_REF_PREFIX):
        return None
    return booking.job_ref.removeprefix(JOB_REF_PREFIX)


def tomp_message_headers() -> dict[str, str]:
    """TOMP's required headers; ``maas-id`` names the sender, this operator (its host)."""
    return {
        "Accept-Language": "en",
        "Api": "TOMP",
        "Api-Version": SPEC_VERSION,
        "maas-id": urlsplit(settings.SITE_URL).hostname or "",
    }


def _time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _booking_operation(option_id: str, operation: str) -> TompMessage:
    return TompMessage(
        kind=f"tomp.booking.{operation}",
        path=f"/bookings/{option_id}/events",
        body={"operation": operation, "origin": TO_ORIGIN},
    )


def _notification(option_id: str, type_: str, comment: str) -> TompMessage:
    return TompMessage(
        kind=f"tomp.notification.{type_}",
        path=f"/bookings/{option_id}/notifications",
        body={"type": type_, "comment": comment, "legId": option_id},
    )


def _leg_event(option_id: str, event: BookingEvent, booking: Booking) -> TompMessage:
    name, comment = LEG_EVENTS[event.to_status]
    body: dict[str, Any] = {"time": _time(event.created_at), "event": name, "comment": comment}
    if booking.vehicle_id is not None:
        body["asset"] = {
            "id": str(booking.vehicle_id),
            "licensePlate": getattr(booking.vehicle, "registration", "") or "",
        }
    return TompMessage(kind=f"tomp.leg.{name}", path=f"/legs/{option_id}/events", body=body)


def tomp_message_build(
    *, event: BookingEvent, booking: Booking, option_id: str, provider: Account
) -> TompMessage | None:
    """The message ``event`` sends the provider, or None when it sends none (see the
    module's table)."""
    if event.type == booking_events.UNASSIGNED:
        return _booking_operation(option_id, "DENY")
    to_status, from_status = event.to_status, event.from_status
    if not to_status or to_status == from_status:
        return None  # amendments, flight updates: the provider reads the booking
    if to_status == BookingStatus.ACCEPTED:
        return _booking_operation(option_id, "COMMIT")
    if to_status in LEG_EVENTS:
        return _leg_event(option_id, event, booking)
    if to_status == BookingStatus.CANCELLED:
        if event.actor == f"account:{provider.slug}":
            return None  # the provider's own CANCEL
        return _booking_operation(option_id, "CANCEL")
    if to_status == BookingStatus.NO_SHOW:
        return _notification(option_id, "USER_NO_SHOW", "The passenger did not show.")
    if from_status == BookingStatus.ACCEPTED and to_status == BookingStatus.CONFIRMED:
        return _notification(
            option_id,
            "VEHICLE_NOT_AVAILABLE",
            "The driver cannot come; we are finding another taxi.",
        )
    return None


def tomp_event_delivery_create(*, event: BookingEvent) -> WebhookDelivery | None:
    """Create the delivery of ``event``'s TOMP message to the provider that booked it.

    Guarantees: only for bookings made through the TOMP door by an account whose format is
    TOMP; at most one delivery per (account, event) (the webhook machinery's constraint);
    None when the event tells the provider nothing, or it has no URL or a disabled one.
    Call after the event's transaction committed, beside the other webhook deliveries.
    """
    booking = event.booking
    option_id = tomp_option_id(booking)
    if option_id is None or booking.account_id is None:
        return None  # the common case, decided without a query
    provider = Account.objects.filter(
        pk=booking.account_id, intake_format=IntakeFormat.TOMP
    ).first()
    if provider is None:
        return None
    message = tomp_message_build(
        event=event, booking=booking, option_id=option_id, provider=provider
    )
    if message is None:
        return None
    return format_message_delivery_create(
        account=provider,
        event=event,
        message_type=message.kind,
        body=message.body,
        path=message.path,
        headers=tomp_message_headers(),
    )
