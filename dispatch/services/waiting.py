"""Waiting and no-shows (issue 15): the one home of the free-waiting rule.

- The free waiting clock starts at the landing for an airport pickup whose flight has
  reported one (``dispatch.services.flights``), else when the driver arrives (status
  ``arrived``), never before the booked pickup time: a driver who comes early does not
  use up the passenger's free minutes.
- Free minutes: the airport's (``dispatch.airports``, from landing); elsewhere the
  booking's tariff's own ``free_waiting_minutes`` (a council's or an operator's), else
  the ``WAITING_FREE_MINUTES`` setting.
- Waiting beyond the free minutes, while the driver is there, is charged at the tariff's
  waiting rate (``pricing.waiting``) as a ``waiting`` line on the booking's final fare,
  set when the passenger boards.
- ``no_show`` is accepted only once the free waiting is over (409 ``no_show_too_early``,
  saying when), from a driver who sends their position within ``NO_SHOW_MAX_DISTANCE_M``
  of the pickup (409 ``no_show_too_far``); the position is kept on the event.
- ``arrived`` and ``no_show`` are judged against the driver's own latest position report
  (``dispatch.locations.driver_position_latest``; older than
  ``DRIVER_LOCATION_MAX_AGE_SECONDS``, 2 minutes, it does not count), not only against
  coordinates in the request (contract 6): without a fresh report 409
  ``position_unknown``; a report farther than ``ARRIVED_MAX_DISTANCE_M`` from the pickup
  is 409 ``not_at_pickup`` for ``arrived`` (the free waiting and the waiting charge start
  there), farther than ``NO_SHOW_MAX_DISTANCE_M`` 409 ``no_show_too_far``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from bookings.models import Booking, BookingEvent, BookingStatus, FlightArrival
from core.errors import DomainError
from core.geo import haversine_km
from core.localtime import local_time_format
from core.money import gbp
from dispatch.airports import airport_for_booking
from dispatch.locations import driver_position_latest
from pricing.waiting import WaitingRate, tariff_free_waiting_minutes, tariff_waiting_rate


@dataclass(frozen=True)
class WaitingTerms:
    """When the passenger's free waiting starts and ends, and what waiting costs after."""

    starts_at: dt.datetime
    free: dt.timedelta
    driver_arrived_at: dt.datetime | None
    from_landing: bool
    rate: WaitingRate | None

    @property
    def free_until(self) -> dt.datetime:
        return self.starts_at + self.free

    @property
    def charged_from(self) -> dt.datetime:
        """Waiting is paid only while the driver is there."""
        if self.driver_arrived_at is None:
            return self.free_until
        return max(self.free_until, self.driver_arrived_at)


def driver_arrived_at(booking: Booking) -> dt.datetime | None:
    """When the driver reported ``arrived`` (the latest time, from the event log)."""
    return (
        BookingEvent.objects.filter(booking=booking, to_status=BookingStatus.ARRIVED)
        .order_by("-sequence")
        .values_list("created_at", flat=True)
        .first()
    )


def waiting_terms(booking: Booking, *, arrived_at: dt.datetime | None = None) -> WaitingTerms:
    """The booking's free waiting window and rate (see the module docstring)."""
    arrived_at = arrived_at or driver_arrived_at(booking)
    airport = airport_for_booking(booking)
    arrival = FlightArrival.objects.filter(booking=booking).first() if airport else None
    reference = (booking.tariff_source or {}).get("reference", "")
    if airport is not None and arrival is not None and arrival.landing_at is not None:
        starts_at, free, from_landing = arrival.landing_at, airport.free_waiting(), True
    else:
        starts_at = max(filter(None, (arrived_at, booking.pickup_time)))
        from_landing = False
        if airport is not None:
            free = airport.free_waiting()
        else:
            minutes = tariff_free_waiting_minutes(reference)
            free = dt.timedelta(
                minutes=settings.WAITING_FREE_MINUTES if minutes is None else minutes
            )
    return WaitingTerms(
        starts_at=starts_at,
        free=free,
        driver_arrived_at=arrived_at,
        from_landing=from_landing,
        rate=tariff_waiting_rate(reference, at=starts_at),
    )


def waiting_line(terms: WaitingTerms, *, boarded_at: dt.datetime) -> dict | None:
    """The fare line for waiting beyond the free minutes, or None (nothing to charge)."""
    waited = boarded_at - terms.charged_from
    if terms.rate is None or waited <= dt.timedelta(0):
        return None
    amount = terms.rate.charge(waited)
    if amount <= 0:
        return None
    minutes = int(waited.total_seconds() // 60)
    since = "landing" if terms.from_landing else "arrival"
    free = int(terms.free.total_seconds() // 60)
    return {
        "code": "waiting",
        "label": f"Waiting {minutes} min beyond {free} free min from {since} "
        f"({terms.rate.label()})",
        "amountGBP": str(amount),
    }


def final_fare_settle(booking: Booking, *, boarded_at: dt.datetime) -> dict:
    """The columns of the booking's final fare when the passenger boards: the booked fare
    and its lines, plus the waiting line when waiting went beyond the free minutes."""
    lines = list(booking.applied_rules or [])
    total = Decimal(booking.fare)
    line = waiting_line(waiting_terms(booking), boarded_at=boarded_at)
    if line is not None:
        lines.append(line)
        total += Decimal(line["amountGBP"])
    return {"final_fare": gbp(total), "final_fare_lines": lines}


def driver_reported_at_pickup(
    booking: Booking, *, driver, now: dt.datetime, max_distance_m: int, too_far_code: str
) -> dict:
    """The driver's own latest report as evidence of being at the pickup (see the module
    docstring), as event detail; {} when the pickup has no coordinates to judge by."""
    if booking.pickup_lat is None or booking.pickup_lng is None:
        return {}
    reported = driver_position_latest(driver, now=now)
    if reported is None:
        raise DomainError(
            "position_unknown",
            "Your app has not reported your position in the last "
            f"{settings.DRIVER_LOCATION_MAX_AGE_SECONDS // 60} minutes; send it "
            "(POST /v1/driver/location) and try again.",
        )
    lat, lng, reported_at = reported
    metres = round(haversine_km(lat, lng, booking.pickup_lat, booking.pickup_lng) * 1000)
    if metres > max_distance_m:
        raise DomainError(
            too_far_code,
            f"Your app last reported you {metres} m from the pickup; this is recorded only "
            f"within {max_distance_m} m of it.",
            extra={"distanceM": metres, "maxDistanceM": max_distance_m},
        )
    return {
        "reportedPosition": {"lat": lat, "lng": lng, "at": reported_at.isoformat()},
        "reportedDistanceM": metres,
    }


def arrival_require_allowed(booking: Booking, *, driver, now: dt.datetime) -> dict:
    """The evidence to record with ``arrived``: the driver's own fresh report within
    ``ARRIVED_MAX_DISTANCE_M`` of the pickup (409 ``position_unknown`` / ``not_at_pickup``)."""
    return driver_reported_at_pickup(
        booking,
        driver=driver,
        now=now,
        max_distance_m=settings.ARRIVED_MAX_DISTANCE_M,
        too_far_code="not_at_pickup",
    )


def no_show_require_allowed(
    booking: Booking, *, driver, now: dt.datetime, lat: float | None, lng: float | None
) -> dict:
    """The evidence to record with a no-show, when one may be recorded now.

    400 ``invalid_input`` without the driver's position; 409 ``no_show_too_far`` when it
    is more than ``NO_SHOW_MAX_DISTANCE_M`` from the pickup; 409 ``no_show_too_early``
    before the free waiting is over (the detail and ``noShowFrom`` say when it is).
    """
    if lat is None or lng is None:
        raise DomainError(
            "invalid_input",
            "A no-show needs the driver's position (lat, lng) as evidence.",
            errors={"lat": ["Required for no_show."], "lng": ["Required for no_show."]},
        )
    evidence: dict = {"position": {"lat": lat, "lng": lng}}
    if booking.pickup_lat is not None and booking.pickup_lng is not None:
        metres = round(haversine_km(lat, lng, booking.pickup_lat, booking.pickup_lng) * 1000)
        evidence["distanceM"] = metres
        if metres > settings.NO_SHOW_MAX_DISTANCE_M:
            raise DomainError(
                "no_show_too_far",
                f"You are {metres} m from the pickup; a no-show is recorded only within "
                f"{settings.NO_SHOW_MAX_DISTANCE_M} m of it.",
                extra={"distanceM": metres, "maxDistanceM": settings.NO_SHOW_MAX_DISTANCE_M},
            )
    evidence.update(
        driver_reported_at_pickup(
            booking,
            driver=driver,
            now=now,
            max_distance_m=settings.NO_SHOW_MAX_DISTANCE_M,
            too_far_code="no_show_too_far",
        )
    )
    terms = waiting_terms(booking)
    allowed_from = terms.charged_from
    if now < allowed_from:
        raise DomainError(
            "no_show_too_early",
            f"The passenger's free waiting runs until "
            f"{local_time_format(allowed_from, 'time')} (UK time); a no-show can be recorded "
            "from then.",
            extra={"noShowFrom": allowed_from.isoformat().replace("+00:00", "Z")},
        )
    evidence["freeWaitingUntil"] = terms.free_until.isoformat()
    evidence["waitingFrom"] = "landing" if terms.from_landing else "arrival"
    return evidence
