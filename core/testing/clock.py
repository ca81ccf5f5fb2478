"""UK clock instants that expose a UTC/UK mix-up: the next clock change, the next
midnight in summer time (the UK day has turned, the UTC date has not), the next summer
week start. The moved-clock plugin (tests/moved_clock.py) starts the suite at them; tests
compute their own dates from them."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

UK = ZoneInfo("Europe/London")


def next_uk_clock_change(now: dt.datetime) -> dt.datetime:
    """The first whole hour (UTC) at which the UK's offset differs from the hour before."""
    hour = now.astimezone(dt.UTC).replace(minute=0, second=0, microsecond=0)
    for _ in range(24 * 366):
        following = hour + dt.timedelta(hours=1)
        if following.astimezone(UK).utcoffset() != hour.astimezone(UK).utcoffset():
            return following
        hour = following
    raise AssertionError("no UK clock change within a year")


def next_summer_midnight(now: dt.datetime, *, weekday: int | None = None) -> dt.datetime:
    """The next UK midnight in summer time (on ``weekday``, 0 = Monday, if given): the UK
    day has turned while the UTC date has not, so a rule on the UTC day shows."""
    day = now.astimezone(UK).date() + dt.timedelta(days=1)
    while True:
        midnight = dt.datetime.combine(day, dt.time(), tzinfo=UK)
        if midnight.utcoffset() and weekday in (None, day.weekday()):
            return midnight
        day += dt.timedelta(days=1)


def next_bst_week_start(now: dt.datetime) -> dt.datetime:
    """The next Monday 00:00 UK time in summer time, when the UTC date is still Sunday."""
    return next_summer_midnight(now, weekday=0)
