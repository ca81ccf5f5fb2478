"""Passenger email verification (contract 3.4), and blocking a passenger."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from bookings.models import (
    Booking,
    EmailConfirmation,
    Passenger,
)
from bookings.passengers import email_assess
from bookings.services.creation import passenger_get_or_create
from bookings.services.page_urls import booking_cancel_url, booking_status_url
from core.localtime import local_time_format
from core.mail import privacy_line


def email_confirmation_send(*, passenger: Passenger, booking: Booking | None = None) -> str:
    """Email a one-time confirmation link; returns the link."""
    token = secrets.token_urlsafe(32)
    EmailConfirmation.objects.create(passenger=passenger, token=token, booking=booking)
    link = settings.SITE_URL + reverse("passenger-confirm-email", args=[token])
    subject = "Confirm your email"
    lines = [f"Please confirm your email address: {link}"]
    if booking is not None:
        subject = f"Your taxi booking {booking.reference}"
        lines = [
            f"Booking {booking.reference}: {booking.pickup} to {booking.dropoff}",
            f"Pickup: {local_time_format(booking.pickup_time)} (UK time)",
            f"Fare: {booking.fare} {booking.currency}, paid to your driver directly.",
            *(
                [f"Pickup code: {booking.pickup_code} (tell it to your driver to start the trip)"]
                if booking.pickup_code
                else []
            ),
            f"Track it: {booking_status_url(booking)}",
            f"Cancel it (free, before you are on board): {booking_cancel_url(booking)}",
            f"Confirm your email: {link}",
        ]
    lines.append(privacy_line())
    transaction.on_commit(
        lambda: send_mail(subject, "\n".join(lines), None, [passenger.email], fail_silently=True)
    )
    return link


def email_confirmation_redeem(*, token: str) -> Passenger | None:
    """Mark the passenger's email verified; a link works once."""
    with transaction.atomic():
        confirmation = (
            EmailConfirmation.objects.select_for_update()
            .select_related("passenger")
            .filter(token=token, used_at__isnull=True)
            .first()
        )
        if confirmation is None:
            return None
        now = timezone.now()
        if confirmation.created_at < now - timedelta(days=7):
            return None
        confirmation.used_at = now
        confirmation.save(update_fields=["used_at"])
        passenger = confirmation.passenger
        if passenger.email_verified_at is None:
            passenger.email_verified_at = now
            passenger.save(update_fields=["email_verified_at"])
        return passenger


@dataclass(frozen=True)
class PassengerEmailCheck:
    """The verdict on a passenger email (contract 3.4): ``valid`` means acceptable for a
    booking, so it is false for disposable and role addresses as for bad syntax."""

    email: str
    valid: bool
    disposable: bool
    role: bool
    verified: bool = False
    verification_sent: bool = False


def passenger_verify(*, email: str) -> PassengerEmailCheck:
    """Judge an email; send a confirmation link when acceptable and not yet verified."""
    verdict = email_assess(email)
    check = PassengerEmailCheck(
        email=verdict.email,
        valid=verdict.acceptable,
        disposable=verdict.disposable,
        role=verdict.role,
    )
    if not verdict.acceptable:
        return check
    with transaction.atomic():
        passenger = passenger_get_or_create(email=verdict.email)
        verified = passenger.email_verified_at is not None
        send = not verified and not passenger.blocked
        if send:
            email_confirmation_send(passenger=passenger)
    return replace(check, verified=verified, verification_sent=send)


def passenger_block(*, email: str, reason: str = "") -> Passenger:
    passenger = passenger_get_or_create(email=email)
    passenger.blocked = True
    passenger.blocked_reason = reason[:200]
    passenger.save(update_fields=["blocked", "blocked_reason"])
    return passenger


def passenger_unblock(*, passenger: Passenger) -> Passenger:
    """Let a blocked passenger book again; the reason goes with the block."""
    passenger.blocked = False
    passenger.blocked_reason = ""
    passenger.save(update_fields=["blocked", "blocked_reason"])
    return passenger
