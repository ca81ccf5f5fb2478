"""Local time: the one zone (``settings.LOCAL_TIME_ZONE``) and the one formatter.

Tariff bands, billing weeks, daily intake limits, licence expiry days and the operator
calendar are evaluated in UK local time (contract section 1); pages, emails and job
cards show times in it. Everything that needs the zone asks :func:`local_zone`, and
everything that shows a moment to a person goes through :func:`local_time_format`
(templates: the ``local_time`` filter, a builtin). Storage and the API stay in UTC.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone


@lru_cache(maxsize=4)
def _zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def local_zone() -> ZoneInfo:
    """The local time zone; read at call time so that tests may override the setting."""
    return _zone(settings.LOCAL_TIME_ZONE)


def local_datetime(moment: datetime) -> datetime:
    return moment.astimezone(local_zone())


def local_today(now: datetime | None = None) -> date:
    return local_datetime(now or timezone.now()).date()


def local_midnight(day: date) -> datetime:
    """The aware start of local ``day``. Midnight exists and is unambiguous in
    Europe/London (the clocks change at 01:00 UTC)."""
    return datetime.combine(day, time.min, tzinfo=local_zone())


def local_day_bounds(day: date) -> tuple[datetime, datetime]:
    """[start, end) of local ``day`` as aware datetimes (23 or 25 hours on change days)."""
    return local_midnight(day), local_midnight(day + timedelta(days=1))


def local_week_start(day: date) -> date:
    """The Monday of the week containing local ``day``: weeks run Monday to Sunday, UK
    time (billing weeks, the driver dashboard; contract section 1)."""
    return day - timedelta(days=day.weekday())


# How a moment is shown to a person, by purpose. Job cards use "short" (SMS length).
TIME_STYLES = ("datetime", "short", "date", "time")


def local_time_format(moment: datetime | None, style: str = "datetime") -> str:
    """``moment`` in local time: "datetime" Sat 21 November 2026, 14:30; "short" Sat 21
    Nov 14:30 (job cards: SMS length); "date" 21 November 2026; "time" 14:30. ``None``
    is an empty string."""
    if moment is None:
        return ""
    local = local_datetime(moment)
    if style == "datetime":
        return f"{local:%a} {local.day} {local:%B %Y}, {local:%H:%M}"
    if style == "short":
        return f"{local:%a} {local.day} {local:%b %H:%M}"
    if style == "date":
        return f"{local.day} {local:%B %Y}"
    if style == "time":
        return f"{local:%H:%M}"
    raise ValueError(f"Unknown time style {style!r}; one of {', '.join(TIME_STYLES)}.")


def local_zone_abbreviation(moment: datetime | None = None) -> str:
    """What the UK calls its clock at ``moment`` (default now): "BST" in summer, "GMT" in
    winter; pages label local times with it ("14:30 UK time (BST)")."""
    return local_datetime(moment or timezone.now()).tzname() or ""


def local_datetime_input(moment: datetime | None) -> str:
    """``moment`` in local time as a ``<input type="datetime-local">`` value."""
    return "" if moment is None else f"{local_datetime(moment):%Y-%m-%dT%H:%M}"
