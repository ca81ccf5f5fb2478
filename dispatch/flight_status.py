"""Flight status from a provider's HTTP API: AeroDataBox, when ``AERODATABOX_API_KEY`` is set.

``GET {AERODATABOX_BASE_URL}/flights/number/{number}/{dateLocal}`` (the flight's arrival
date at the airport, ``dateLocalRole=Arrival``), authenticated with the RapidAPI headers.
The answer is a list of flight contracts; ours is the one arriving at the pickup's
airport. Its ``arrival`` movement carries ``scheduledTime``, ``revisedTime`` (the
airline's latest estimate, or the actual time once landed), ``predictedTime`` and
``runwayTime`` (the actual touchdown), each ``{"utc": "2026-11-23 10:05Z", "local": ...}``,
and ``terminal``; ``status`` is ``Expected``, ``EnRoute``, ``Delayed``, ``Approaching``,
``Arrived``, ``Canceled``, ``Diverted``, ... 204 means the provider knows no such flight.
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from urllib.parse import quote, urlparse

import requests
from django.conf import settings

from bookings.models import FlightStatus

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FlightReport:
    """One flight's arrival as a reporter sees it, whoever the reporter is."""

    flight_number: str
    status: str  # a FlightStatus
    scheduled_arrival: dt.datetime | None = None
    estimated_arrival: dt.datetime | None = None
    actual_arrival: dt.datetime | None = None
    terminal: str = ""
    origin_country: str = ""


class FlightStatusUnavailable(Exception):
    """The provider could not be asked (network, 5xx, 429): try again at the next poll."""


def flight_provider_configured() -> bool:
    return bool(settings.AERODATABOX_API_KEY)


_STATUSES = {
    "arrived": FlightStatus.LANDED,
    "canceled": FlightStatus.CANCELLED,
    "canceleduncertain": FlightStatus.CANCELLED,
    "diverted": FlightStatus.DIVERTED,
    "delayed": FlightStatus.DELAYED,
}


def flight_status_fetch(*, flight_number: str, arrival_date: dt.date, airport: str = ""):
    """The provider's report of ``flight_number`` arriving on ``arrival_date`` (local date)
    at ``airport`` (IATA), or None when it knows no such flight."""
    url = (
        f"{settings.AERODATABOX_BASE_URL.rstrip('/')}/flights/number/"
        f"{quote(flight_number, safe='')}/{arrival_date.isoformat()}"
    )
    headers = {
        "X-RapidAPI-Key": settings.AERODATABOX_API_KEY,
        "X-RapidAPI-Host": urlparse(settings.AERODATABOX_BASE_URL).netloc,
        "Accept": "application/json",
    }
    try:
        response = requests.get(
            url,
            params={"dateLocalRole": "Arrival", "withAircraftImage": "false"},
            headers=headers,
            timeout=settings.FLIGHT_STATUS_TIMEOUT_SECONDS,
        )
    except requests.RequestException as exc:
        raise FlightStatusUnavailable(str(exc)[:200]) from exc
    if response.status_code in (204, 404):
        return None
    if response.status_code != 200:
        raise FlightStatusUnavailable(f"AeroDataBox answered {response.status_code}.")
    try:
        flights = response.json()
    except ValueError as exc:
        raise FlightStatusUnavailable("AeroDataBox answered with no JSON.") from exc
    return flight_report_from_aerodatabox(flights, flight_number=flight_number, airport=airport)


def flight_report_from_aerodatabox(
    flights: list, *, flight_number: str, airport: str = ""
) -> FlightReport | None:
    """Our flight out of the provider's list: the one arriving at ``airport`` when named."""
    if not isinstance(flights, list):
        return None
    candidates = [f for f in flights if isinstance(f, dict)]
    if airport:
        candidates = [
            f for f in candidates if _get(f, "arrival", "airport", "iata") == airport.upper()
        ] or candidates
    if not candidates:
        return None
    flight = candidates[0]
    arrival = flight.get("arrival") or {}
    scheduled = _time(arrival.get("scheduledTime"))
    revised = _time(arrival.get("revisedTime"))
    predicted = _time(arrival.get("predictedTime"))
    runway = _time(arrival.get("runwayTime"))
    status = _STATUSES.get(str(flight.get("status", "")).lower(), FlightStatus.SCHEDULED)
    estimated = revised or predicted
    actual = None
    if status == FlightStatus.LANDED:
        actual = runway or revised or predicted or scheduled
    elif status == FlightStatus.SCHEDULED and estimated and scheduled and estimated > scheduled:
        status = FlightStatus.DELAYED
    return FlightReport(
        flight_number=flight_number,
        status=status,
        scheduled_arrival=scheduled,
        estimated_arrival=estimated,
        actual_arrival=actual,
        terminal=str(arrival.get("terminal") or "")[:20],
        origin_country=str(_get(flight, "departure", "airport", "countryCode") or ""),
    )


def _get(value, *path):
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _time(moment) -> dt.datetime | None:
    """``{"utc": "2026-11-23 10:05Z"}`` -> an aware datetime; None when absent or garbled."""
    if not isinstance(moment, dict) or not isinstance(moment.get("utc"), str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(moment["utc"].replace("Z", "+00:00"))
    except ValueError:
        logger.warning("Unreadable AeroDataBox time %r", moment["utc"][:40])
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
