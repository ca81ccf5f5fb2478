"""Routers: two places -> road distance and driving time (issue: pricing; issue 15).

The default :class:`GreatCircleRouter` needs no network: great-circle distance, through
the known detours (``pricing.detours``: estuary crossings, the M25 between Heathrow and
Gatwick), times a road factor (``PRICING_ROAD_FACTOR``), and a duration from distance-band speeds
(``PRICING_SPEED_BANDS``): the first miles of a journey are urban and slow, long journeys
run mostly on trunk roads. Night journeys (22:00-06:00 Europe/London) run faster by
``PRICING_NIGHT_SPEED_FACTOR``. The road factor is fitted to the published road distances
of real UK journeys (``pricing/tests/data/uk_road_distances.tsv``, ``pricing.calibration``;
the README gives the source and the error).

:class:`OsrmRouter` measures the road distance and driving time with OSRM's HTTP route
service (``ROUTING_URL``; any OSRM-compatible provider, with an API key as a query
parameter or a header when the provider takes one). Its routes say ``source="road"``;
when the router times out, fails or finds no route, the estimate answers instead
(``source="estimate"``): a quote never fails because the router did.

``PRICING_ROUTER`` (dotted path) picks the router; it defaults to OSRM when
``ROUTING_URL`` is set.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from zoneinfo import ZoneInfo

import requests
from django.conf import settings
from django.utils.module_loading import import_string

from core.localtime import local_zone
from pricing.detours import detour_path
from pricing.gazetteer import Place

logger = logging.getLogger(__name__)

EARTH_RADIUS_M = 6_371_008.8
METRES_PER_MILE = 1609.344

NIGHT_HOURS = (22, 6)


class DistanceSource:
    """Contract 2.1 ``distanceSource``: measured on the road network, or estimated."""

    ROAD = "road"
    ESTIMATE = "estimate"


@dataclass(frozen=True, slots=True)
class Route:
    distance_m: Decimal
    duration_s: Decimal
    source: str = DistanceSource.ESTIMATE

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


def estimate_path_m(origin, destination) -> float:
    """The straight line from ``origin`` to ``destination``, leg by leg through the known
    detours (``pricing.detours``: the crossing of an estuary, the M25 between Heathrow and
    Gatwick); the road factor multiplies it."""
    path = detour_path((origin.lat, origin.lng), (destination.lat, destination.lng))
    return sum(great_circle_m(*path[i], *path[i + 1]) for i in range(len(path) - 1))


# The estimate's error (contract 2.1 ``distanceRangeMiles``): over the published road
# distances of real journeys (pricing/tests/data/uk_road_distances.tsv; bench/
# bench_road_factor.py), 80 % of journeys lie between these multiples of the estimate
# (its 10th and 90th percentiles); pricing/tests/test_road_factor.py holds them to it.
ESTIMATE_RANGE = (Decimal("0.94"), Decimal("1.08"))


def distance_range_miles(distance_miles: Decimal, source: str) -> dict | None:
    """``{"low", "high"}`` road miles an estimated distance most likely lies between;
    None for a distance a router measured on the road network."""
    if source != DistanceSource.ESTIMATE or distance_miles is None:
        return None
    low, high = ESTIMATE_RANGE
    tenth = Decimal("0.1")
    return {
        "low": float((distance_miles * low).quantize(tenth)),
        "high": float((distance_miles * high).quantize(tenth)),
    }


class Router:
    """Interface: ``route(origin, destination, *, depart_at, api_key="") -> Route``.

    ``api_key`` is a driver's own maps key (seed 8.5) for routers whose provider takes
    one; routers that take none ignore it. Points are anything with ``lat`` and ``lng``.
    """

    def route(
        self, origin: Place, destination: Place, *, depart_at: dt.datetime, api_key: str = ""
    ) -> Route:
        raise NotImplementedError


class GreatCircleRouter(Router):
    def __init__(self) -> None:
        self.road_factor = float(settings.PRICING_ROAD_FACTOR)
        bands = settings.PRICING_SPEED_BANDS
        self.bands = tuple((None if a is None else float(a), float(b)) for a, b in bands)
        self.night_factor = float(settings.PRICING_NIGHT_SPEED_FACTOR)
        self.tz = local_zone()

    def route(
        self, origin: Place, destination: Place, *, depart_at: dt.datetime, api_key: str = ""
    ) -> Route:
        metres = self.road_factor * estimate_path_m(origin, destination)
        seconds = duration_for(
            metres, depart_at, bands=self.bands, night_factor=self.night_factor, tz=self.tz
        )
        return Route(
            distance_m=Decimal(str(round(metres, 1))), duration_s=Decimal(str(round(seconds)))
        )


class OsrmRouter(Router):
    """Road distance and driving time from an OSRM HTTP route service (``ROUTING_URL``):
    ``GET {ROUTING_URL}/route/v1/{ROUTING_PROFILE}/{lng},{lat};{lng},{lat}``.

    A key (the driver's own, else ``ROUTING_API_KEY``) goes in the query parameter
    ``ROUTING_KEY_PARAM`` or the header ``ROUTING_KEY_HEADER``, whichever is set; with
    neither, the provider takes no key and none is sent. Settings are read per call, and
    the key never reaches a log line. Any failure (timeout after
    ``ROUTING_TIMEOUT_SECONDS``, connection, HTTP status, a body that is not an OSRM
    answer, no route) falls back to the estimate.
    """

    def __init__(self) -> None:
        self.estimate = GreatCircleRouter()
        self.session = requests.Session()

    def route(
        self, origin: Place, destination: Place, *, depart_at: dt.datetime, api_key: str = ""
    ) -> Route:
        measured = self._measure(origin, destination, api_key or settings.ROUTING_API_KEY)
        if measured is None:
            return self.estimate.route(origin, destination, depart_at=depart_at)
        metres, seconds = measured
        return Route(
            distance_m=Decimal(str(round(metres, 1))),
            duration_s=Decimal(str(round(seconds))),
            source=DistanceSource.ROAD,
        )

    def _measure(self, origin, destination, key: str) -> tuple[float, float] | None:
        base = settings.ROUTING_URL.rstrip("/")
        points = f"{origin.lng:.6f},{origin.lat:.6f};{destination.lng:.6f},{destination.lat:.6f}"
        url = f"{base}/route/v1/{settings.ROUTING_PROFILE}/{points}"
        params = {"overview": "false", "alternatives": "false", "steps": "false"}
        headers = {}
        if key and settings.ROUTING_KEY_PARAM:
            params[settings.ROUTING_KEY_PARAM] = key
        if key and settings.ROUTING_KEY_HEADER:
            headers[settings.ROUTING_KEY_HEADER] = key
        try:
            response = self.session.get(
                url, params=params, headers=headers, timeout=settings.ROUTING_TIMEOUT_SECONDS
            )
            body = response.json() if response.status_code == 200 else None
            if not isinstance(body, dict) or body.get("code") != "Ok":
                code = body.get("code") if isinstance(body, dict) else None
                logger.warning("router: HTTP %s, code %s; estimating", response.status_code, code)
                return None
            best = body["routes"][0]
            metres, seconds = float(best["distance"]), float(best["duration"])
        except (requests.RequestException, ValueError, KeyError, IndexError, TypeError) as exc:
            # The exception's text names the URL, which may carry the key: log its kind only.
            logger.warning("router unavailable (%s); estimating", type(exc).__name__)
            return None
        if not (math.isfinite(metres) and math.isfinite(seconds)) or metres < 0 or seconds < 0:
            logger.warning("router: implausible route; estimating")
            return None
        return metres, seconds


@lru_cache(maxsize=8)
def _router_for(path: str) -> Router:
    return import_string(path)()


def router_get() -> Router:
    """The configured router (``PRICING_ROUTER``), one instance per process."""
    return _router_for(settings.PRICING_ROUTER)
