"""Billing weeks: Monday 00:00 to Sunday 24:00, local time (Europe/London, contract 1).

A week is identified by its Monday (a local date). Its bounds are converted to UTC
instants once, here, so that every query compares ``occurred_at`` against aware datetimes:
the week holding the spring change lasts 167 hours and the autumn one 169 hours.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from core.localtime import local_midnight, local_today
from core.localtime import local_week_start as week_start_of

__all__ = ["week_bounds", "week_has_ended", "week_start_of", "week_start_previous"]


def week_bounds(week_start: date) -> tuple[datetime, datetime]:
    """[start, end) of the week as aware UTC datetimes; ``week_start`` must be a Monday.

    Local midnight always exists and is unambiguous in Europe/London (the clocks change
    at 01:00 UTC), so combining with the zone is exact.
    """
    if week_start.weekday() != 0:
        raise ValueError(f"{week_start} is not a Monday.")
    start = local_midnight(week_start)
    end = local_midnight(week_start + timedelta(days=7))
    return start.astimezone(UTC), end.astimezone(UTC)


def week_start_previous(now: datetime | None = None) -> date:
    """The Monday of the last week that has fully ended at ``now`` (local time)."""
    return week_start_of(local_today(now)) - timedelta(days=7)


def week_has_ended(week_start: date, now: datetime | None = None) -> bool:
    return (now or datetime.now(UTC)) >= week_bounds(week_start)[1]
