"""Routers: two places -> road distance and driving time (issue: pricing).

The default :class:`GreatCircleRouter` needs no network: great-circle distance times a
road factor (``PRICING_ROAD_FACTOR``, default 1.3), and a duration from distance-band
speeds (``PRICING_SPEED_BANDS``): the first miles of a journey are urban and slow, long
journeys run mostly on trunk roads. Night journeys (22:00-06:00 Europe/London) run faster
by ``PRICING_NIGHT_SPEED_FACTOR``. A road-network backend can replace it through
``PRICING_ROUTER`` (dotted path) with the same interface.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils.module_loading import import_string

from core.localtime import local_zone
from pricing.gazetteer import Place

EARTH_RADIUS_M = 6_371_008.8
METRES_PER_MILE = 1609.344

NIGHT_HOURS = (22, 6)


@dataclass(frozen=True, slots=True)
class Route:
    distance_m: Decimal
    duration_s: Decimal

    @property
    def distance_miles(self) -> Decimal:
        return (self.distance_m / Decimal(str(METRES_PER_MILE))).quantize(Decimal("0.1"))

    @property
    def duration_minutes(self) -> int:
        return max(1, int((self.duration_s / 60).to_integral_value()))


def great_circle_m(lat1: float, lng1: float, lat2: float, lng2: float) -> float:
    phi1, phi2 = math.radians(lat1), math.radians(lat2)
    dphi, dlmb = phi2 - phi1, math.radians(lng2 - lng1)
    h = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def duration_for(
    distance_m: float,
    depart_at: dt.datetime | None,
    *,
    bands: tuple[tuple[float | None, float], ...] | None = None,
    night_factor: float | None = None,
    tz: ZoneInfo | None = None,
) -> float:
    """Seconds to drive ``distance_m`` through the speed bands (faster at night); bands,
    night factor and zone default to the settings (PRICING_SPEED_BANDS, ...)."""
    bands = bands or settings.PRICING_SPEED_BANDS
    night_factor = night_factor or settings.PRICING_NIGHT_SPEED_FACTOR
    factor = 1.0
    if depart_at is not None:
        hour = depart_at.astimezone(tz or local_zone()).hour
        if hour >= NIGHT_HOURS[0] or hour < NIGHT_HOURS[1]:
            factor = night_factor
    miles_left = distance_m / METRES_PER_MILE
    covered = 0.0
    hours = 0.0
    for limit, mph in bands:
        span = miles_left if limit is None else min(miles_left, max(0.0, limit - covered))
        hours += span / (mph * factor)
        miles_left -= span
        covered += span
        if miles_left <= 0:
            break
    return hours * 3600


class Router:
    """Interface: ``route(origin, destination, *, depart_at) -> Route``."""

    def route(self, origin: Place, destination: Place, *, depart_at: dt.datetime) -> Route:
        raise NotImplementedError


class GreatCircleRouter(Router):
    def __init__(self) -> None:
        self.road_factor = float(settings.PRICING_ROAD_FACTOR)
        bands = settings.PRICING_SPEED_BANDS
        self.bands = tuple((None if a is None else float(a), float(b)) for a, b in bands)
        self.night_factor = float(settings.PRICING_NIGHT_SPEED_FACTOR)
        self.tz = local_zone()

    def route(self, origin: Place, destination: Place, *, depart_at: dt.datetime) -> Route:
        metres = great_circle_m(origin.lat, origin.lng, destination.lat, destination.lng)
        metres *= self.road_factor
        seconds = duration_for(
            metres, depart_at, bands=self.bands, night_factor=self.night_factor, tz=self.tz
        )
        return Route(
            distance_m=Decimal(str(round(metres, 1))), duration_s=Decimal(str(round(seconds)))
        )


@lru_cache(maxsize=8)
def _router_for(path: str) -> Router:
    return import_string(path)()


def router_get() -> Router:
    """The configured router (``PRICING_ROUTER``), one instance per process."""
    return _router_for(settings.PRICING_ROUTER)
