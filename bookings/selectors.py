"""Reads of bookings for the public endpoints."""

from __future__ import annotations

import datetime as dt
import uuid

from bookings.models import Booking, BookingEvent, BookingStatus, DispatchQueue
from bookings.services import payment_state
from bookings.transitions import AWAITING_PICKUP, TERMINAL
from core.errors import DomainError
from core.localtime import local_time_format, local_zone_abbreviation
from dispatch.airports import airport_pickup_summary
from dispatch.locations import booking_live_position
from pricing.models import Quote
from pricing.vehicles import VEHICLE_CLASS_BY_CODE


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


# --- the passenger's tracking page (statusUrl) ------------------------------------------

# The status in plain words, as the tracking page heads it; and what each step of the
# history says. Raw event names (booking.status_changed) never reach a passenger.
STATUS_WORDS: dict[str, str] = {
    BookingStatus.CONFIRMED: "Booked: finding you a driver",
    BookingStatus.OFFERED: "Offered to a driver",
    BookingStatus.ACCEPTED: "Driver accepted",
    BookingStatus.EN_ROUTE: "Driver on the way",
    BookingStatus.ARRIVED: "Driver has arrived",
    BookingStatus.ON_BOARD: "On board",
    BookingStatus.COMPLETED: "Journey completed",
    BookingStatus.CANCELLED: "Cancelled",
    BookingStatus.NO_SHOW: "Driver waited; marked as a no-show",
    # Offered again when a driver near the pickup comes online or finishes a trip
    # (dispatch.services.offers.no_driver_bookings_retry), and by the desk.
    BookingStatus.NO_DRIVER: (
        "No driver free yet: we offer it to the next driver near you who comes online or "
        "finishes a trip"
    ),
}
# A move back to a status says more than the status: the driver dropped out, and
# dispatch asks the next one.
BACK_TO_WORDS: dict[str, str] = {BookingStatus.CONFIRMED: "Looking for another driver"}
PAYMENT_WORDS: dict[str, str] = {
    "unpaid": "Not paid yet",
    "part_paid": "Part paid",
    "paid": "Paid",
    "refunded": "Refunded",
}
EVENT_WORDS: dict[str, str] = {"booking.created": "Booked", "booking.amended": "Details changed"}


def _step_words(event: BookingEvent) -> str:
    if event.type in EVENT_WORDS:
        return EVENT_WORDS[event.type]
    if event.from_status and event.to_status in BACK_TO_WORDS:
        return BACK_TO_WORDS[event.to_status]
    return STATUS_WORDS.get(event.to_status, "Updated")


def _moment(moment) -> dict | None:
    """A moment for the page: ISO in UTC for machines, UK local time for people."""
    if moment is None:
        return None
    return {
        "iso": moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
        "text": local_time_format(moment),
        "short": local_time_format(moment, "short"),
        "zone": local_zone_abbreviation(moment),
    }


def _point(lat: float | None, lng: float | None) -> list[float] | None:
    return None if lat is None or lng is None else [lat, lng]


def _vehicle_label(code: str) -> str:
    vehicle_class = VEHICLE_CLASS_BY_CODE.get(code)
    return vehicle_class.label if vehicle_class else code


def booking_tracking_state(booking: Booking) -> dict:
    """Everything the tracking page shows about ``booking``, rendered into the page and
    served as JSON to its live updates: one dict, so a new item is one line here (and its
    place in the template and in static/js/tracking.js).

    ``version`` is the booking's event sequence: the page redraws when it changes.
    """
    events = list(booking.events.order_by("sequence"))
    live = _driver_position(booking)
    paid = payment_state(list(booking.payment_records.all()), booking.fare_due)
    return {
        "reference": booking.reference,
        "version": booking.sequence,
        "status": booking.status,
        "statusWords": STATUS_WORDS.get(booking.status, booking.status),
        "finished": booking.status in TERMINAL,
        "pickupTime": _moment(booking.pickup_time),
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "vehicleLabel": _vehicle_label(booking.vehicle_type),
        "fare": f"{booking.fare_due:.2f}",
        "currency": booking.currency,
        "payment": {"state": paid, "words": PAYMENT_WORDS.get(paid, paid)},
        "driver": driver_public_summary(booking.driver, booking.vehicle),
        # Told to the driver at the kerb to start the trip (bookings.pickup_codes); shown
        # until the passenger is on board.
        "pickupCode": booking.pickup_code if booking.status in AWAITING_PICKUP else None,
        # The sketch map's points, [lat, lng] or None; tracking.js also draws a "driver"
        # point here once one is given.
        "map": {
            "pickup": _point(booking.pickup_lat, booking.pickup_lng),
            "dropoff": _point(booking.dropoff_lat, booking.dropoff_lng),
            "driver": _point(live["lat"], live["lng"]) if live else None,
        },
        # Where the car is while a driver holds the job (the booking.driver_location
        # events' own builder); the page redraws it on every poll, not only on a new event.
        "driverPosition": live,
        "timeline": [
            {"words": _step_words(event), "at": _moment(event.created_at)} for event in events
        ],
        "dispatchStartsAt": _moment(_dispatch_start_ahead(booking)),
        "airportPickup": _airport_pickup(booking),
        "waitingCharge": next(
            (line for line in booking.final_fare_lines or () if line.get("code") == "waiting"),
            None,
        ),
    }


def _dispatch_start_ahead(booking: Booking) -> dt.datetime | None:
    """When dispatch will start, while it has not yet (the passenger page says so)."""
    if booking.status != BookingStatus.CONFIRMED or booking.dispatch_started_at:
        return None
    return dispatch_opens_at(booking)


def _driver_position(booking: Booking) -> dict | None:
    live = booking_live_position(booking)
    if live is None:
        return None
    if live["etaMinutes"] == 0:
        words = "Your driver is at the pickup."
    elif live["etaMinutes"] is None:
        words = "Your driver is on the way."
    else:
        end = "drop-off" if live["etaTo"] == "dropoff" else "pickup"
        words = f"Your driver is about {live['etaMinutes']} min from your {end}."
    return {**live, "words": words}


def _airport_pickup(booking: Booking) -> dict | None:
    summary = airport_pickup_summary(booking)
    if summary is not None:
        summary = {**summary, "landingAt": _moment(summary["landingAt"])}
    return summary


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
