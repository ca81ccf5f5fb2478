"""Reads of bookings for the public endpoints."""

from __future__ import annotations

import datetime as dt

from bookings.models import Booking, DispatchQueue
from core.errors import DomainError


def booking_get_for_passenger(*, reference: str, email: str) -> Booking:
    """The booking with this reference if ``email`` matches its passenger (case-insensitive).

    404 ``booking_not_found`` for an unknown reference; 403 ``email_mismatch`` otherwise.
    """
    booking = (
        Booking.objects.select_related("driver", "vehicle")
        .prefetch_related("payment_records")
        .filter(reference=reference.upper())
        .first()
    )
    if booking is None:
        raise DomainError("booking_not_found", f"No booking with reference {reference}.")
    if not booking.passenger_email or booking.passenger_email.lower() != email.strip().lower():
        raise DomainError("email_mismatch", "The email does not match this booking.")
    return booking


def booking_get_by_reference(reference: str) -> Booking:
    booking = (
        Booking.objects.select_related("driver", "vehicle")
        .filter(reference=reference.upper())
        .first()
    )
    if booking is None:
        raise DomainError("booking_not_found", f"No booking with reference {reference}.")
    return booking


def dispatch_opens_at(booking: Booking) -> dt.datetime | None:
    """When dispatch starts (or started) looking for a driver for this booking: its
    dispatch window (``bookings.policies.dispatch_window_opens_at``, stored on the row).
    ``None`` for a booking the operator's own fleet dispatches, which has no window."""
    if booking.dispatch_queue != DispatchQueue.NETWORK:
        return None
    return booking.dispatch_opens_at
