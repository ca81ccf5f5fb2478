"""The driver's way to a pickup (dead mileage, ETA), routed with the driver's own maps key.

Seed 8.5: a high-volume driver supplies their own maps API key, billed to them by its
provider; the routing calls made for that driver's jobs carry it (``pricing.routing``
sends it as the provider takes it: ``ROUTING_KEY_PARAM`` or ``ROUTING_KEY_HEADER``).
Drivers without one are routed on the network's key, or estimated without a router.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from dispatch import conf
from drivers.models import Driver
from drivers.positions import PositionsUnavailable, position_latest
from drivers.selectors import driver_maps_key
from pricing.gazetteer import Place
from pricing.routing import Route, router_get


def _point(label: str, lat: float, lng: float) -> Place:
    return Place(label=label, lat=lat, lng=lng, country="GB", kind="place")


def driver_position(driver: Driver, *, now: datetime) -> tuple[float, float] | None:
    """Where the driver is for their way to a pickup: their own latest report when it is
    recent enough for the matcher (``drivers.positions.position_latest``), else the
    position they went online at (their row)."""
    try:
        fix = position_latest(driver.pk)
    except PositionsUnavailable:
        fix = None
    if fix is not None and fix.at >= now - timedelta(seconds=conf.driver_seen_within_seconds()):
        return fix.lat, fix.lng
    if driver.last_lat is None or driver.last_lng is None:
        return None
    return driver.last_lat, driver.last_lng


def driver_pickup_route(*, driver: Driver, booking, now: datetime | None = None) -> Route | None:
    """Road distance and driving time from the driver's position (:func:`driver_position`)
    to the pickup, or ``None`` when either end has no coordinates. Never raises for the
    router: a failure gives the estimate (``Route.source`` says which)."""
    now = now or timezone.now()
    position = driver_position(driver, now=now)
    if position is None:
        return None
    if booking.pickup_lat is None or booking.pickup_lng is None:
        return None
    return router_get().route(
        _point("driver", *position),
        _point("pickup", booking.pickup_lat, booking.pickup_lng),
        depart_at=now,
        api_key=driver_maps_key(driver),
    )
