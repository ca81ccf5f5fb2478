"""UK airports as pickup points: which airport a pickup is at, where the driver meets the
passenger there, and how long after landing the pickup is set (issue 15).

The airports and their coordinates come from ``airportsdata`` (the offline geocoder's
source); the meeting-point text and any per-airport allowance from
``dispatch/data/airport_pickups.json``, which the operations team edits. The settings
``AIRPORT_COLLECTION_ALLOWANCE_MINUTES`` (domestic / international) and
``AIRPORT_FREE_WAITING_MINUTES`` are the defaults for airports the file does not tune.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import airportsdata
from django.conf import settings

from bookings.models import FlightArrival
from core.geo import haversine_km

DATA_FILE = Path(__file__).resolve().parent / "data" / "airport_pickups.json"
UK = "GB"


@dataclass(frozen=True, slots=True)
class PickupAirport:
    iata: str
    name: str
    lat: float
    lng: float
    meeting_point: str
    # Minutes after landing: {"domestic": n, "international": n}; empty means the setting.
    allowance_minutes: dict
    free_waiting_minutes: int | None = None

    def collection_allowance(self, *, origin_country: str = "") -> dt.timedelta:
        """Time from landing to the pickup: immigration and baggage take longer after an
        international flight. A flight whose origin is unknown counts as international,
        so nobody is collected before they can be through passport control."""
        kind = "domestic" if origin_country.upper() == UK else "international"
        minutes = self.allowance_minutes.get(kind)
        if minutes is None:
            minutes = settings.AIRPORT_COLLECTION_ALLOWANCE_MINUTES[kind]
        return dt.timedelta(minutes=int(minutes))

    def free_waiting(self) -> dt.timedelta:
        """Free waiting at this airport, counted from landing."""
        minutes = self.free_waiting_minutes
        if minutes is None:
            minutes = settings.AIRPORT_FREE_WAITING_MINUTES
        return dt.timedelta(minutes=int(minutes))


@cache
def _uk_airports() -> tuple[PickupAirport, ...]:
    with open(DATA_FILE, encoding="utf8") as f:
        tuned = json.load(f)
    default_text = tuned["default"]["meetingPoint"]
    airports = []
    for code, row in airportsdata.load("IATA").items():
        if row["country"] != UK:
            continue
        own = tuned["airports"].get(code, {})
        airports.append(
            PickupAirport(
                iata=code,
                name=row["name"],
                lat=float(row["lat"]),
                lng=float(row["lon"]),
                meeting_point=own.get("meetingPoint", default_text),
                allowance_minutes=dict(own.get("collectionAllowanceMinutes", {})),
                free_waiting_minutes=own.get("freeWaitingMinutes"),
            )
        )
    return tuple(airports)


def airport_get(iata: str) -> PickupAirport | None:
    code = (iata or "").upper()
    return next((a for a in _uk_airports() if a.iata == code), None)


def airport_at(lat: float | None, lng: float | None) -> PickupAirport | None:
    """The UK airport a pickup at (lat, lng) is at: the nearest one within
    ``AIRPORT_PICKUP_RADIUS_M``, or None (not an airport pickup)."""
    if lat is None or lng is None:
        return None
    best, best_km = None, settings.AIRPORT_PICKUP_RADIUS_M / 1000
    for airport in _uk_airports():
        km = haversine_km(lat, lng, airport.lat, airport.lng)
        if km <= best_km:
            best, best_km = airport, km
    return best


def airport_for_booking(booking) -> PickupAirport | None:
    """The airport a booking is picked up at, or None. Where the geocoder resolved the
    pickup (``pickup_place``), its precision decides, as it does for meet and greet; a job
    that arrived with coordinates only is an airport pickup by distance."""
    place = booking.pickup_place
    if place and place.get("precision") != "airport":
        return None
    return airport_at(booking.pickup_lat, booking.pickup_lng)


def airport_pickup_summary(booking) -> dict | None:
    """What the passenger's pages and the driver's job card show about an airport pickup:
    the airport, where to meet, the flight and its latest arrival; None elsewhere."""
    airport = airport_for_booking(booking)
    if airport is None:
        return None

    try:
        arrival = booking.flight_arrival  # select_related by lists, a query otherwise
    except FlightArrival.DoesNotExist:
        arrival = None
    return {
        "airport": airport.iata,
        "airportName": airport.name,
        "meetingPoint": airport.meeting_point,
        "flightNumber": booking.flight_number or None,
        "flightStatus": arrival.status if arrival else None,
        "terminal": arrival.terminal if arrival else "",
        "landingAt": arrival.landing_at if arrival else None,
        "landed": bool(arrival and arrival.landed),
    }
