"""Public holidays in England and Wales, for tariff bands that name them (contract 1).

Councils' tables say "bank holidays" or "public holidays"; the meter switches tariff on
those days. The dates follow the Banking and Financial Dealings Act 1971 rules (New
Year, Good Friday, Easter Monday, first and last Monday of May, last Monday of August,
Christmas and Boxing Day with weekend substitutes), computed for any year, plus one-off
holidays proclaimed separately. Scottish and Northern Irish holidays are not modelled:
no loaded Scottish or Northern Irish tariff has a holiday band.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

# Proclaimed one-off bank holidays (none announced for 2025-2027 at the time of writing).
ONE_OFF_HOLIDAYS: frozenset[dt.date] = frozenset()


def easter_sunday(year: int) -> dt.date:
    """Gregorian Easter (anonymous Gregorian algorithm)."""
    a = year % 19
    b, c = divmod(year, 100)
    d, e = divmod(b, 4)
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    ell = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * ell) // 451
    month, day = divmod(h + ell - 7 * m + 114, 31)
    return dt.date(year, month, day + 1)


def _first_monday(year: int, month: int) -> dt.date:
    first = dt.date(year, month, 1)
    return first + dt.timedelta(days=(7 - first.weekday()) % 7)


def _last_monday(year: int, month: int) -> dt.date:
    next_month = dt.date(year + month // 12, month % 12 + 1, 1)
    last = next_month - dt.timedelta(days=1)
    return last - dt.timedelta(days=last.weekday())


@lru_cache(maxsize=64)
def bank_holidays(year: int) -> frozenset[dt.date]:
    """The England and Wales bank holidays of ``year``."""
    easter = easter_sunday(year)
    new_year = dt.date(year, 1, 1)
    if new_year.weekday() >= 5:
        new_year += dt.timedelta(days=7 - new_year.weekday())
    christmas = dt.date(year, 12, 25)
    boxing = dt.date(year, 12, 26)
    # Substitute days: a holiday on a weekend moves to the next free weekday.
    if christmas.weekday() == 5:  # Saturday: Christmas -> Monday 27, Boxing -> Tuesday 28
        christmas, boxing = dt.date(year, 12, 27), dt.date(year, 12, 28)
    elif christmas.weekday() == 6:  # Sunday: Boxing Day Monday 26, Christmas -> Tuesday 27
        christmas = dt.date(year, 12, 27)
    elif boxing.weekday() == 5:  # Christmas Friday, Boxing Saturday -> Monday 28
        boxing = dt.date(year, 12, 28)
    days = {
        new_year,
        easter - dt.timedelta(days=2),
        easter + dt.timedelta(days=1),
        _first_monday(year, 5),
        _last_monday(year, 5),
        _last_monday(year, 8),
        christmas,
        boxing,
    }
    days |= {d for d in ONE_OFF_HOLIDAYS if d.year == year}
    return frozenset(days)


def is_bank_holiday(day: dt.date) -> bool:
    return day in bank_holidays(day.year)
