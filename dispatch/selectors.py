"""The passenger's tracking page (statusUrl): the booking with dispatch's live state.

The page shows the booking's record (``bookings``) with where the driver is
(``dispatch.locations``) and the flight of an airport pickup (``dispatch.airports``), so
it is composed here, above both, and served by ``dispatch.views``.
"""

from __future__ import annotations

import datetime as dt

from bookings.models import Booking, BookingEvent, BookingStatus
from bookings.selectors import PAYMENT_WORDS, dispatch_opens_at, driver_public_summary
from bookings.services import payment_state
from bookings.transitions import AWAITING_PICKUP, TERMINAL
from core.localtime import local_time_format, local_zone_abbreviation
from dispatch.airports import airport_pickup_summary
from dispatch.locations import booking_live_position
from pricing.vehicles import VEHICLE_CLASS_BY_CODE

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
