"""Where the car is on a live trip (issue 17): the one builder of the position a booker
sees, for the booking.driver_location events (partners.services.driver_locations) and the
passenger's tracking page alike.

The position is the driver's latest report (``POST /v1/driver/location`` or the OsmAnd
path), read through ``drivers.positions.position_latest`` from whichever store keeps it
(Redis, or the driver's row without Redis); the ETA is a straight-line estimate through the pricing router's road
factor and speed bands, so it needs no routing service and costs microseconds.
"""

from __future__ import annotations

import datetime as dt
import math
from datetime import UTC

from django.conf import settings
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from bookings.transitions import DRIVER_HOLDS
from drivers.positions import Fix, position_latest
from pricing.routing import duration_for, great_circle_m


def eta_minutes(*, lat: float, lng: float, to_lat: float, to_lng: float, now: dt.datetime) -> int:
    """Whole minutes (rounded up) to drive from (lat, lng) to (to_lat, to_lng): the
    straight line times the road factor, at the pricing speed bands for this hour."""
    metres = great_circle_m(lat, lng, to_lat, to_lng) * float(settings.PRICING_ROAD_FACTOR)
    return math.ceil(duration_for(metres, now) / 60)


def live_position_build(
    *,
    status: str,
    lat: float,
    lng: float,
    heading: float | None,
    reported_at: dt.datetime,
    pickup: tuple[float | None, float | None],
    dropoff: tuple[float | None, float | None],
    now: dt.datetime,
) -> dict:
    """The position a booker sees: ``lat``, ``lng``, ``heading``, ``etaMinutes`` (to the
    pickup on the way there, to the dropoff once on board; 0 once arrived; null when that
    end has no coordinates), ``etaTo`` and ``reportedAt`` (ISO 8601, UTC)."""
    eta_to = "dropoff" if status == BookingStatus.ON_BOARD else "pickup"
    to_lat, to_lng = dropoff if eta_to == "dropoff" else pickup
    if status == BookingStatus.ARRIVED:
        eta = 0
    elif to_lat is None or to_lng is None:
        eta = None
    else:
        eta = eta_minutes(lat=lat, lng=lng, to_lat=to_lat, to_lng=to_lng, now=now)
    return {
        "lat": round(lat, 6),
        "lng": round(lng, 6),
        "heading": heading,
        "etaMinutes": eta,
        "etaTo": eta_to,
        "reportedAt": reported_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
    }


def position_is_fresh(reported_at: dt.datetime | None, now: dt.datetime) -> bool:
    """A position older than DRIVER_LOCATION_MAX_AGE_SECONDS is not shown or sent: a car
    whose app went quiet is not "here" any more."""
    max_age = dt.timedelta(seconds=settings.DRIVER_LOCATION_MAX_AGE_SECONDS)
    return reported_at is not None and reported_at >= now - max_age


def driver_position_latest(driver, *, now: dt.datetime) -> tuple[float, float, dt.datetime] | None:
    """The driver's own latest position report (``POST /v1/driver/location``, the OsmAnd
    path) as (lat, lng, reported at), read from the position store, or None when there is
    none or it is no longer fresh (:func:`position_is_fresh`): evidence a driver cannot
    paste into a request body."""
    fix = position_latest(driver.pk)
    if fix is None or not position_is_fresh(fix.at, now):
        return None
    return fix.lat, fix.lng, fix.at


def booking_live_position(booking: Booking, *, now: dt.datetime | None = None) -> dict | None:
    """The car's live position for the tracking page, or None when there is nothing to
    show: no driver holds the job (before acceptance, after completion or cancellation),
    or the driver's app has not reported a position recently.

    Shown for the whole time a driver holds the job (on board included): the passenger
    follows their own trip. One read of the position store.
    """
    now = now or timezone.now()
    if booking.status not in DRIVER_HOLDS or booking.driver_id is None:
        return None
    fix = position_latest(booking.driver_id)
    if fix is None or not position_is_fresh(fix.at, now):
        return None
    return booking_position_build(booking, fix, now=now)


def booking_position_build(booking: Booking, fix: Fix, *, now: dt.datetime) -> dict:
    """:func:`live_position_build` from a fix of the booking's driver (the caller has
    checked that it is fresh)."""
    return live_position_build(
        status=booking.status,
        lat=fix.lat,
        lng=fix.lng,
        heading=fix.heading,
        reported_at=fix.at,
        pickup=(booking.pickup_lat, booking.pickup_lng),
        dropoff=(booking.dropoff_lat, booking.dropoff_lng),
        now=now,
    )
