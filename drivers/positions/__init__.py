"""Live positions: one interface, two backends (issue 27).

Every reader of where a driver is goes through these functions: the matcher
(``dispatch.services.matching``), the tracking page (``dispatch.locations``), partners' live
trips (``partners.services.driver_locations``), the no-show and arrival rules and the
pickup route (dead mileage). Writers: the position ingest (``drivers.api.ingest``) and the
driver's availability (``drivers.services.driver_availability_set``).

Backends (``POSITIONS_BACKEND``):

- ``redis`` (the default when ``REDIS_URL`` is set): Redis GEO sets keyed by area (a grid
  cell of ``POSITIONS_AREA_DEGREES``) and vehicle class, with a short expiry
  (``POSITIONS_TTL_SECONDS``), and the latest fix of each driver in a hash with its time.
  PostgreSQL gets none of this: only the sampled trail (``drivers.positions.trail``), at
  most one row per driver per ``POSITIONS_TRAIL_SECONDS``, while the driver holds a job.
- ``database`` (the local configuration without Redis): today's columns on the driver's
  row (``last_lat``, ``last_lng``, ``last_heading``, ``last_position_at``, ``last_seen_at``).

Two positions per driver, as before: the matching index (where the driver is for new
jobs: placed by availability and by every report; ``drivers_near``) and the latest report
(``position_latest``: what the driver's own app last sent, the evidence a booker sees and
the no-show and arrival rules judge).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils.module_loading import import_string

# A batch's fixes are at most this old or this far ahead of the server's clock; anything
# else is a phone with a wrong clock, and is refused rather than misfiled.
FIX_MAX_AGE = dt.timedelta(hours=24)
# The latitudes a position may have: what the Redis GEO index can hold (the Web Mercator
# limit), so a report the index would refuse is a 400, never a 503. Taxis are nowhere near.
LATITUDE_LIMIT = 85.05112878
FIX_MAX_AHEAD = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class Fix:
    """One position measured by the driver's device."""

    lat: float
    lng: float
    at: dt.datetime
    heading: float | None = None
    speed: float | None = None  # metres per second
    accuracy: float | None = None  # metres


@dataclass(frozen=True)
class NearDriver:
    """A driver in the matching index near a point: where, since when, how far."""

    driver_id: int
    lat: float
    lng: float
    seen_at: dt.datetime
    distance_km: float


@dataclass(frozen=True)
class Recorded:
    """What a report changed: the fix now latest (None when every fix was older than the
    one held), and the fixes sampled into the trail."""

    latest: Fix | None
    sampled: tuple[Fix, ...]


@dataclass(frozen=True)
class ReportLimit:
    """At most ``count`` reports per driver per ``seconds`` (``RATELIMITS[scope]``): counted
    by the store in the same call that records the report, so the limit costs no round
    trip of its own; LimitReached (429) beyond it, nothing recorded."""

    scope: str
    count: int
    seconds: int


class PositionsUnavailable(Exception):
    """The live-position store did not answer (Redis down): the caller answers 503."""


@cache
def _backend_for(path: str):
    return import_string(path)()


@receiver(setting_changed)
def _backend_forget(*, setting: str, **kwargs) -> None:
    # A test that points the store elsewhere (another backend, a Redis that is down) gets
    # a backend built from the new settings.
    if setting.startswith("POSITIONS_") or setting == "REDIS_CACHE_TIMEOUTS":
        _backend_for.cache_clear()


BACKENDS = {
    "redis": "drivers.positions.redis_index.RedisPositions",
    "database": "drivers.positions.database.DatabasePositions",
}


def positions_backend():
    """The configured backend (one instance per process)."""
    return _backend_for(BACKENDS[settings.POSITIONS_BACKEND])


def position_record(
    *,
    driver_id: int,
    fixes: Sequence[Fix],
    vehicle_classes: Sequence[str],
    limit: ReportLimit | None = None,
) -> Recorded:
    """A report from the driver's device: one or more fixes (phones buffer them while the
    signal is gone). The newest becomes the latest report and the driver's place in the
    matching index (under each of ``vehicle_classes``, unless the driver is offline); the
    trail samples at most one fix per driver per ``POSITIONS_TRAIL_SECONDS`` while the
    driver holds a job. A fix older than the latest one held changes neither. With
    ``limit``, the report is counted against the driver's limit first (LimitReached)."""
    return positions_backend().record(
        driver_id=driver_id,
        fixes=sorted(fixes, key=lambda f: f.at),
        classes=vehicle_classes,
        limit=limit,
    )


def position_latest(driver_id: int) -> Fix | None:
    """The driver's own latest report (the accessor the arrival and no-show rules use;
    its age is the caller's to judge), or None when there is none."""
    return positions_backend().latest_many([driver_id]).get(driver_id)


def positions_latest(driver_ids: Iterable[int]) -> dict[int, Fix]:
    """The latest report of each driver that has one, in one round trip."""
    ids = sorted(set(driver_ids))
    return positions_backend().latest_many(ids) if ids else {}


def drivers_near(
    *,
    lat: float,
    lng: float,
    radius_km: float,
    vehicle_classes: Iterable[str] | None = None,
    seen_after: dt.datetime | None = None,
    count: int,
) -> list[NearDriver]:
    """The ``count`` nearest online drivers in the matching index within ``radius_km`` of
    the point, nearest first, with a vehicle of one of ``vehicle_classes`` (None: any) and,
    when ``seen_after`` is given, seen since then."""
    return positions_backend().near(
        lat=lat,
        lng=lng,
        radius_km=radius_km,
        classes=None if vehicle_classes is None else sorted(set(vehicle_classes)),
        seen_after=seen_after,
        count=count,
    )


def position_availability_set(
    *,
    driver_id: int,
    online: bool,
    lat: float | None,
    lng: float | None,
    at: dt.datetime,
    vehicle_classes: Sequence[str],
) -> None:
    """The driver switched online (at a position, when given) or offline: online drivers
    are in the matching index, offline ones leave it. The driver's row (``online``) is
    written by the caller."""
    positions_backend().availability(
        driver_id=driver_id, online=online, lat=lat, lng=lng, at=at, classes=vehicle_classes
    )
