"""Public holidays of the four UK nations, for tariff bands and charges that name them
(contract 1; issue 21).

Councils' tables say "bank holidays" or "public holidays"; the meter switches tariff on
those days, and which days they are depends on the nation: Scotland has 2 January, St
Andrew's Day and its own August holiday; Northern Ireland St Patrick's Day and 12 July.
The dates come from the maintained ``holidays`` package (country GB, subdivisions ENG,
WLS, SCT, NIR), which follows the statutory rules, their substitute days, and one-off
proclaimed holidays. The nation of a journey is the pickup's: :func:`nation_of_district`
reads it from the district's ONS code (:mod:`pricing.licensing`). Tables' own special dates
(Christmas Eve from 18:00, New Year's Eve) are their bands' annual windows, not these.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

import holidays

ENGLAND, WALES, SCOTLAND, NORTHERN_IRELAND = "ENG", "WLS", "SCT", "NIR"
NATIONS = (ENGLAND, WALES, SCOTLAND, NORTHERN_IRELAND)
_NATION_BY_CODE_LETTER = {"E": ENGLAND, "W": WALES, "S": SCOTLAND, "N": NORTHERN_IRELAND}


def nation_of_district(gss_code: str | None, default: str = ENGLAND) -> str:
    """E08000035 -> "ENG", S12000049 -> "SCT": the first letter of an ONS code."""
    return _NATION_BY_CODE_LETTER.get((gss_code or "")[:1], default)


@lru_cache(maxsize=256)
def bank_holidays(year: int, nation: str = ENGLAND) -> frozenset[dt.date]:
    """The public holidays of ``nation`` in ``year`` (substitute days included)."""
    return frozenset(holidays.country_holidays("GB", subdiv=nation, years=year).keys())


def is_bank_holiday(day: dt.date, nation: str = ENGLAND) -> bool:
    return day in bank_holidays(day.year, nation)
