"""Our quotes and bookings in TOMP's shapes (1.6.1): planning, booking, leg, fare, meta.

A taxi trip is one leg; the leg's id is the booking's (the specification allows
``leg[0].id = booking.id``). States follow the driver's progress (taxi profile): a
booking waiting for a driver is CONDITIONAL_CONFIRMED until one accepts (CONFIRMED),
the leg PREPARING while the car drives to the pickup, IN_USE with the passenger on
board, FINISHED at the end.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from bookings.models import Booking, BookingStatus
from partners.models import SupportRequest
from pricing.models import Quote

SPEC_VERSION = "1.6.1"
ASSET_CLASS = "TAXI"

# Our booking status -> (TOMP booking state, TOMP leg state).
STATES = {
    BookingStatus.CONFIRMED: ("CONDITIONAL_CONFIRMED", "NOT_STARTED"),
    BookingStatus.OFFERED: ("CONDITIONAL_CONFIRMED", "NOT_STARTED"),
    BookingStatus.ACCEPTED: ("CONFIRMED", "NOT_STARTED"),
    BookingStatus.EN_ROUTE: ("CONFIRMED", "PREPARING"),
    BookingStatus.ARRIVED: ("CONFIRMED", "PREPARING"),
    BookingStatus.ON_BOARD: ("STARTED", "IN_USE"),
    BookingStatus.COMPLETED: ("FINISHED", "FINISHED"),
    BookingStatus.CANCELLED: ("CANCELLED", "CANCELLED"),
    BookingStatus.NO_SHOW: ("CANCELLED", "CANCELLED"),
    BookingStatus.NO_DRIVER: ("REJECTED", "CANCELLED"),
}


def _time(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _place(label: str, lat: float | None, lng: float | None) -> dict[str, Any]:
    return {"name": label, "coordinates": {"lat": lat, "lng": lng}}


def tomp_fare(
    *, fare: Decimal, currency: str, tariff_source: dict, applied_rules: list
) -> dict[str, Any]:
    """The fare and its basis: fixed when quoted (seed 2.4), so not an estimate; the
    tariff it was priced on (a council's, an operator's) and its rules in ``meta``."""
    basis = tariff_source.get("name") or tariff_source.get("kind") or "tariff"
    return {
        "estimated": False,
        "description": f"Fixed fare on {basis}",
        "class": str(tariff_source.get("kind") or ""),
        "parts": [
            {
                "amount": float(fare),
                "currencyCode": currency,
                "type": "FIXED",
                "kind": "DEFAULT",
                "meta": {"tariffSource": tariff_source, "appliedRules": applied_rules},
            }
        ],
    }


def _asset_type(vehicle_type: str) -> dict[str, Any]:
    return {"id": vehicle_type, "assetClass": ASSET_CLASS}


def tomp_option(quote: Quote, *, state: str = "NEW") -> dict[str, Any]:
    """A planning option (or a booking not yet committed): the quote as a TOMP booking."""
    departure = quote.depart_at
    fare = tomp_fare(
        fare=quote.fare,
        currency=quote.currency,
        tariff_source=quote.tariff_source,
        applied_rules=quote.applied_rules,
    )
    leg = {
        "id": str(quote.pk),
        "from": _place(quote.pickup_label, quote.pickup_lat, quote.pickup_lng),
        "to": _place(quote.dropoff_label, quote.dropoff_lat, quote.dropoff_lng),
        "departureTime": _time(departure),
        "arrivalTime": _time(departure + dt.timedelta(minutes=quote.duration_minutes)),
        "assetType": _asset_type(quote.vehicle_type),
        "state": "NOT_STARTED",
        "pricing": fare,
    }
    return {
        "id": str(quote.pk),
        "state": state,
        "from": leg["from"],
        "to": leg["to"],
        "departureTime": leg["departureTime"],
        "arrivalTime": leg["arrivalTime"],
        "mainAssetType": leg["assetType"],
        "pricing": fare,
        "legs": [leg],
    }


def tomp_planning(quotes: list[Quote]) -> dict[str, Any]:
    return {
        "validUntil": _time(min(q.expires_at for q in quotes)),
        "options": [tomp_option(q) for q in quotes],
    }


def tomp_leg(booking: Booking, *, option_id: str) -> dict[str, Any]:
    _, leg_state = STATES[booking.status]
    departure = booking.pickup_time
    leg: dict[str, Any] = {
        "id": option_id,
        "from": _place(booking.pickup, booking.pickup_lat, booking.pickup_lng),
        "to": _place(booking.dropoff, booking.dropoff_lat, booking.dropoff_lng),
        "departureTime": _time(departure),
        "arrivalTime": _time(departure + dt.timedelta(minutes=booking.duration_minutes or 0)),
        "assetType": _asset_type(booking.vehicle_type),
        "state": leg_state,
        "pricing": tomp_fare(
            fare=booking.fare,
            currency="GBP",
            tariff_source=booking.tariff_source,
            applied_rules=booking.applied_rules,
        ),
    }
    if booking.vehicle_id is not None:
        leg["asset"] = {
            "id": str(booking.vehicle_id),
            "licensePlate": getattr(booking.vehicle, "registration", "") or "",
        }
    return leg


def tomp_booking(booking: Booking, *, option_id: str) -> dict[str, Any]:
    state, _ = STATES[booking.status]
    leg = tomp_leg(booking, option_id=option_id)
    return {
        "id": option_id,
        "state": state,
        "from": leg["from"],
        "to": leg["to"],
        "departureTime": leg["departureTime"],
        "arrivalTime": leg["arrivalTime"],
        "mainAssetType": leg["assetType"],
        "pricing": leg["pricing"],
        "legs": [leg],
    }


def tomp_support_status(support: SupportRequest) -> dict[str, Any]:
    """A supportStatus: the request as the provider sent it, its status and how many
    times it changed (``order``); ``comment`` is staff's reply once there is one."""
    status = {**support.request, "status": support.status, "order": support.order}
    if support.reply:
        status["comment"] = support.reply
    return status


# What GET /operator/meta declares (paths relative to the TOMP base URL).
IMPLEMENTED = [
    ("POST", "/plannings", None),
    ("POST", "/bookings", None),
    ("POST", "/bookings/{id}/events", "COMMIT"),
    ("POST", "/bookings/{id}/events", "CANCEL"),
    ("GET", "/bookings/{id}", None),
    ("GET", "/legs/{id}", None),
    ("GET", "/operator/meta", None),
    ("POST", "/support/", None),
    ("GET", "/support/{id}/status", None),
]


def tomp_meta(*, base_url: str) -> list[dict[str, Any]]:
    endpoints = []
    for method, path, event in IMPLEMENTED:
        endpoint = {"method": method, "path": path, "status": "IMPLEMENTED"}
        if event:
            endpoint["eventType"] = event
        endpoints.append(endpoint)
    return [
        {
            "version": SPEC_VERSION,
            "baseUrl": base_url,
            "endpoints": endpoints,
            "scenarios": [],
            "processIdentifiers": {
                "operatorInformation": [],
                "planning": ["PLANNING_BASED"],
                "booking": ["POSTPONED_COMMIT"],
                "tripExecution": ["TO_CONTROLLED"],
                "support": [],
                "payment": [],
                "general": [],
            },
        }
    ]


# TOMP's error codes (wiki "Error handling in TOMP"): the module's digit, then the error.
MODULE_DIGIT = {"operator": 1, "planning": 2, "booking": 3, "execution": 4, "support": 5}
ERROR_BY_CODE = {
    "booking_not_found": 204,
    "job_not_found": 204,
    "quote_expired": 202,
    "daily_job_limit": 201,
    "rate_limited": 7,
    "unauthenticated": 6,
    "partner_not_allowed": 6,
    "bridge_paused": 6,
    "not_cancellable": 4,
    "invalid_transition": 4,
    "service_unavailable": 5,
    "server_error": 5,
}
INVALID = 2  # x002: "Invalid": every other refusal of what was sent


def tomp_errorcode(*, module: str, code: str) -> int:
    """Our problem ``code`` as TOMP's ``errorcode`` (x002 Invalid, x204 Not found, ...)."""
    return MODULE_DIGIT[module] * 1000 + ERROR_BY_CODE.get(code, INVALID)
