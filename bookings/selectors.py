"""Reads of bookings for the public endpoints."""

from __future__ import annotations

import datetime as dt
import uuid

from bookings.models import Booking, DispatchQueue
from core.errors import DomainError
from pricing.models import Quote


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


def quote_get_or_none(quote_id: str) -> Quote | None:
    """The quote a website page names (``?quote=``); None when missing or malformed, so
    the page says "not found" rather than failing."""
    try:
        return Quote.objects.filter(pk=uuid.UUID(quote_id)).first()
    except ValueError:
        return None


# How a payment state reads to a passenger (the pay page, the tracking page).
PAYMENT_WORDS: dict[str, str] = {
    "unpaid": "Not paid yet",
    "part_paid": "Part paid",
    "paid": "Paid",
    "refunded": "Refunded",
}


def driver_public_name(full_name: str) -> str:
    """First name and the initial of the last name: "Mary Ann Smith" is "Mary S." (enough
    to recognise the driver at the kerb, no more; contract 3, 3.2)."""
    parts = full_name.split()
    if len(parts) < 2:
        return full_name.strip()
    return f"{parts[0]} {parts[-1][0]}."


def driver_public_summary(driver, vehicle) -> dict | None:
    """The driver as passengers and senders see them, everywhere (the booking lookup of
    contract 3.2, webhooks of 5.1, reconciliation): name, vehicle, licensing authority.
    None until a driver is assigned."""
    if driver is None:
        return None
    return {
        "name": driver_public_name(driver.name),
        "vehicle": None
        if vehicle is None
        else {
            "make": vehicle.make,
            "model": vehicle.model,
            "colour": vehicle.colour,
            "registration": vehicle.registration,
        },
        "licensingAuthority": driver.licensing_authority,
    }
