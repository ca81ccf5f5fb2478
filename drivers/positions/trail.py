"""The sampled trail (issue 27): what the system of record keeps of a driver's positions.

While a driver holds a job (``bookings.transitions.DRIVER_HOLDS``), at most one fix per
driver per ``POSITIONS_TRAIL_SECONDS`` slot goes to ``drivers.PositionSample``, tagged
with the job: the evidence for arrival, no-show and dead mileage. A driver with no job
leaves no row (the statement finds no live job and inserts nothing). On PostgreSQL the
write is one ``INSERT ... SELECT ... ON CONFLICT DO NOTHING``: no ORM on the ingest path,
and the unique (driver, slot) constraint keeps one row per slot under any race.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from django.conf import settings
from django.db import connection

from bookings.models import Booking
from bookings.transitions import DRIVER_HOLDS
from drivers.models import PositionSample
from drivers.positions import Fix

_LIVE = sorted(str(status) for status in DRIVER_HOLDS)
_SAMPLE = PositionSample._meta.db_table
_BOOKING = Booking._meta.db_table
_ROW = "(%s::bigint, %s::timestamptz, %s::float8, %s::float8, %s::float8, %s::float8, %s::float8)"
_INSERT = f"""
INSERT INTO {_SAMPLE} (driver_id, booking_id, slot, at, lat, lng, heading, speed, accuracy)
SELECT job.driver_id, job.id, f.slot, f.at, f.lat, f.lng, f.heading, f.speed, f.accuracy
FROM (
    SELECT id, driver_id FROM {_BOOKING}
    WHERE driver_id = %s AND status IN ({", ".join(["%s"] * len(_LIVE))})
    ORDER BY id DESC LIMIT 1
) AS job
CROSS JOIN (VALUES {{rows}}) AS f(slot, at, lat, lng, heading, speed, accuracy)
ON CONFLICT (driver_id, slot) DO NOTHING
"""  # noqa: S608 (table names only; every value is a parameter)


def trail_slot(at: dt.datetime) -> int:
    return int(at.timestamp() // int(settings.POSITIONS_TRAIL_SECONDS))


def trail_samples_pick(fixes: Sequence[Fix], *, after_slot: int | None) -> list[tuple[int, Fix]]:
    """The first fix of each slot (fixes in time order), for slots after ``after_slot``."""
    picked: dict[int, Fix] = {}
    for fix in fixes:
        slot = trail_slot(fix.at)
        if (after_slot is None or slot > after_slot) and slot not in picked:
            picked[slot] = fix
    return sorted(picked.items())


def trail_samples_write(*, driver_id: int, samples: Sequence[tuple[int, Fix]]) -> int:
    """Insert the samples for the driver's live job, if they hold one; returns the rows
    written (0 without a live job or for slots already sampled)."""
    if connection.vendor == "postgresql":
        params: list = [driver_id, *_LIVE]
        for slot, fix in samples:
            params += [slot, fix.at, fix.lat, fix.lng, fix.heading, fix.speed, fix.accuracy]
        sql = _INSERT.format(rows=", ".join([_ROW] * len(samples)))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount
    booking_id = (
        Booking.objects.filter(driver_id=driver_id, status__in=_LIVE)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    if booking_id is None:
        return 0
    created = PositionSample.objects.bulk_create(
        [
            PositionSample(
                driver_id=driver_id,
                booking_id=booking_id,
                slot=slot,
                at=fix.at,
                lat=fix.lat,
                lng=fix.lng,
                heading=fix.heading,
                speed=fix.speed,
                accuracy=fix.accuracy,
            )
            for slot, fix in samples
        ],
        ignore_conflicts=True,
    )
    return len(created)


def booking_trail(booking_id: int) -> list[Fix]:
    """The sampled fixes recorded while the booking was the driver's live job, in order."""
    rows = PositionSample.objects.filter(booking_id=booking_id).order_by("at")
    return [
        Fix(lat=r.lat, lng=r.lng, at=r.at, heading=r.heading, speed=r.speed, accuracy=r.accuracy)
        for r in rows
    ]
