"""The database backend of ``drivers.positions``: the driver's own row, as before issue 27.

For the local configuration without Redis. A report is one UPDATE of the live-position
columns (``last_lat``, ``last_lng``, ``last_heading``, ``last_position_at``,
``last_seen_at``) plus the trail's sample when the driver holds a job; the matching index is
the (online, last_lat, last_lng) index those columns carry.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

from django.db import connection

from core.callers import Caller
from core.geo import KM_PER_DEGREE, bounding_box, haversine_km
from drivers.models import Driver, Vehicle
from drivers.positions import Fix, NearDriver, Recorded, ReportLimit
from drivers.positions.trail import trail_samples_pick, trail_samples_write
from guards.ratelimits import limit_enforce

_DRIVER = Driver._meta.db_table
_VEHICLE = Vehicle._meta.db_table

# The nearest online drivers in a box, by the same planar distance the matcher's filter
# statement ranks with; an EXISTS on an active vehicle of the asked classes.
_NEAR_SQL = f"""
SELECT d.id, d.last_lat, d.last_lng, d.last_seen_at
FROM {_DRIVER} d
WHERE d.online = TRUE
    AND d.last_lat BETWEEN %(min_lat)s AND %(max_lat)s
    AND d.last_lng BETWEEN %(min_lng)s AND %(max_lng)s
    AND ((d.last_lat - %(lat)s) * %(ky)s) * ((d.last_lat - %(lat)s) * %(ky)s)
        + ((d.last_lng - %(lng)s) * %(kx)s) * ((d.last_lng - %(lng)s) * %(kx)s)
        <= %(radius_sq)s
    {{seen}}
    {{classes}}
ORDER BY ((d.last_lat - %(lat)s) * %(ky)s) * ((d.last_lat - %(lat)s) * %(ky)s)
        + ((d.last_lng - %(lng)s) * %(kx)s) * ((d.last_lng - %(lng)s) * %(kx)s), d.id
LIMIT %(count)s
"""  # noqa: S608 (table names only; every value is a parameter)


class DatabasePositions:
    name = "database"

    def record(
        self,
        *,
        driver_id: int,
        fixes: Sequence[Fix],
        classes: Sequence[str],
        limit: ReportLimit | None = None,
    ) -> Recorded:
        if limit is not None:
            # No store of its own to count in: the cache's limits (guards.ratelimits).
            limit_enforce(Caller(), limit.scope, value=f"driver:{driver_id}")
        latest = fixes[-1]
        # Guarded: a batch delivered late never moves the car back to an older place.
        newer = (
            Driver.objects.filter(pk=driver_id)
            .exclude(last_position_at__gt=latest.at)
            .update(
                last_lat=latest.lat,
                last_lng=latest.lng,
                last_heading=latest.heading,
                last_position_at=latest.at,
                last_seen_at=latest.at,
            )
        )
        sampled = trail_samples_pick(fixes, after_slot=None)
        written = trail_samples_write(driver_id=driver_id, samples=sampled) if sampled else 0
        return Recorded(
            latest=latest if newer else None,
            sampled=tuple(f for _, f in sampled) if written else (),
        )

    def availability(self, **kwargs) -> None:
        # The columns the caller writes (online, last_lat, last_lng, last_seen_at) are this
        # backend's matching index.
        return None

    def latest_many(self, driver_ids: Sequence[int]) -> dict[int, Fix]:
        rows = Driver.objects.filter(
            pk__in=driver_ids, last_position_at__isnull=False, last_lat__isnull=False
        ).values_list("pk", "last_lat", "last_lng", "last_heading", "last_position_at")
        return {
            pk: Fix(lat=lat, lng=lng, at=at, heading=heading) for pk, lat, lng, heading, at in rows
        }

    def near(
        self,
        *,
        lat: float,
        lng: float,
        radius_km: float,
        classes: Sequence[str] | None,
        seen_after: dt.datetime | None,
        count: int,
    ) -> list[NearDriver]:
        ops = connection.ops
        min_lat, max_lat, min_lng, max_lng = bounding_box(lat, lng, radius_km)
        params: dict = {
            "min_lat": min_lat,
            "max_lat": max_lat,
            "min_lng": min_lng,
            "max_lng": max_lng,
            "lat": lat,
            "lng": lng,
            "ky": KM_PER_DEGREE,
            "kx": KM_PER_DEGREE * math.cos(math.radians(lat)),
            "radius_sq": radius_km * radius_km,
            "count": count,
        }
        seen = ""
        if seen_after is not None:
            seen = "AND d.last_seen_at >= %(seen_after)s"
            params["seen_after"] = ops.adapt_datetimefield_value(seen_after)
        class_sql = ""
        if classes is not None:
            names = []
            for i, code in enumerate(classes):
                params[f"class_{i}"] = code
                names.append(f"%(class_{i})s")
            class_sql = (
                f"AND EXISTS (SELECT 1 FROM {_VEHICLE} v WHERE v.driver_id = d.id "  # noqa: S608
                f"AND v.active = TRUE AND v.vehicle_class IN ({', '.join(names) or 'NULL'}))"
            )
        sql = _NEAR_SQL.format(seen=seen, classes=class_sql)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        found = []
        for driver_id, found_lat, found_lng, seen_at in rows:
            if isinstance(seen_at, dt.datetime) and seen_at.tzinfo is None:
                seen_at = seen_at.replace(tzinfo=dt.UTC)  # SQLite keeps UTC without offset
            found.append(
                NearDriver(
                    driver_id=driver_id,
                    lat=found_lat,
                    lng=found_lng,
                    seen_at=seen_at,
                    distance_km=haversine_km(lat, lng, found_lat, found_lng),
                )
            )
        return found

    def flush(self) -> None:
        return None
