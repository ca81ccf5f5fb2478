"""Parsing of the councils' wording for special periods (used by the loader): "20:00 24
Dec-06:00 27 Dec", "bank holidays 24h", "excludes public holidays" and the like."""

from __future__ import annotations

import datetime as dt
import re

from pricing.tariff_windows import _MONTHS, DAY_NAMES

_TIME = r"(\d{1,2}:\d{2})"
_DATE = r"(\d{1,2}) ([A-Z][a-z]{2})"
_RE_SPAN = re.compile(rf"^{_TIME} {_DATE} ?(?:-|to) ?{_TIME} {_DATE}$")
_RE_DAY_TO_TIME = re.compile(rf"^{_DATE} to {_TIME} {_DATE}$")
_RE_TIMES_ON_DATES = re.compile(rf"^{_TIME}-{_TIME} ((?:\d{{1,2}} [A-Z][a-z]{{2}}(?: and )?)+)$")
_RE_WEEKLY = re.compile(
    rf"^(?:also )?(Mon|Tue|Wed|Thu|Fri|Sat|Sun)-(Mon|Tue|Wed|Thu|Fri|Sat|Sun) "
    rf"{_TIME}-{_TIME}$"
)
_RE_SUNDAYS = re.compile(rf"^Sundays(?: {_TIME}-{_TIME})?$")
_RE_WEEK_SPAN = re.compile(
    rf"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) {_TIME}-(Mon|Tue|Wed|Thu|Fri|Sat|Sun) {_TIME}"
)
_RE_DAILY = re.compile(rf"{_TIME}-{_TIME}")
_HOLIDAY_WORDS = re.compile(r"\b(?:public|bank) holidays?\b", re.IGNORECASE)
_EXCLUDE_WORDS = re.compile(r"^(?:excludes|not)\b", re.IGNORECASE)


def _md(day: str, month: str) -> str:
    return f"{_MONTHS[month]:02d}-{int(day):02d}"


def _hhmm(text: str) -> str:
    hours, minutes = text.split(":")
    return f"{int(hours):02d}:{minutes}"


def _day_range(first: str, last: str) -> list[str]:
    i, j = DAY_NAMES.index(first), DAY_NAMES.index(last)
    return [DAY_NAMES[(i + k) % 7] for k in range((j - i) % 7 + 1)]


def special_dates_parse(text: str) -> tuple[list[dict], list[dict]] | None:
    """Council wording for a special period -> (windows, excludes); None if not understood.

    Understood forms are the ones in pricing/data/council_tariffs.json, e.g.
    "20:00 24 Dec-06:00 27 Dec", "25 Dec to 07:00 26 Dec", "18:00-24:00 24 Dec and 31 Dec",
    "06:00-10:00 1 Jan", "also Sat-Sun 05:00-22:00", "Sundays 06:00-21:00",
    "bank holidays 24h", "excludes public holidays", "Fri 18:00-Mon 06:00".
    """
    text = text.strip()
    windows: list[dict] = []
    for part in (p.strip() for p in text.split(";")):
        if m := _RE_SPAN.match(part):
            t1, d1, m1, t2, d2, m2 = m.groups()
            windows.append(
                {
                    "type": "annual",
                    "from": f"{_md(d1, m1)} {_hhmm(t1)}",
                    "to": f"{_md(d2, m2)} {_hhmm(t2)}",
                }
            )
        elif m := _RE_DAY_TO_TIME.match(part):
            d1, m1, t2, d2, m2 = m.groups()
            windows.append(
                {
                    "type": "annual",
                    "from": f"{_md(d1, m1)} 00:00",
                    "to": f"{_md(d2, m2)} {_hhmm(t2)}",
                }
            )
        elif m := _RE_TIMES_ON_DATES.match(part):
            t1, t2, dates = m.groups()
            for day, month in re.findall(r"(\d{1,2}) ([A-Z][a-z]{2})", dates):
                start = f"{_md(day, month)} {_hhmm(t1)}"
                if t2 == "24:00":
                    nxt = dt.date(2001, _MONTHS[month], int(day)) + dt.timedelta(days=1)
                    end = f"{nxt:%m-%d} 00:00"
                else:
                    end = f"{_md(day, month)} {_hhmm(t2)}"
                windows.append({"type": "annual", "from": start, "to": end})
        elif m := _RE_WEEKLY.match(part):
            first, last, t1, t2 = m.groups()
            windows.append(
                {
                    "type": "weekly",
                    "days": _day_range(first, last),
                    "start": _hhmm(t1),
                    "end": _hhmm(t2),
                }
            )
        elif m := _RE_SUNDAYS.match(part):
            t1, t2 = m.groups()
            windows.append(
                {
                    "type": "weekly",
                    "days": ["Sun"],
                    "start": _hhmm(t1 or "00:00"),
                    "end": _hhmm(t2 or "24:00"),
                }
            )
        elif m := _RE_WEEK_SPAN.search(part):
            d1, t1, d2, t2 = m.groups()
            windows.append(
                {"type": "weekly_span", "from": f"{d1} {_hhmm(t1)}", "to": f"{d2} {_hhmm(t2)}"}
            )
        elif _HOLIDAY_WORDS.search(part):
            if _EXCLUDE_WORDS.match(part):
                return [], [{"type": "public_holiday"}]
            windows.append({"type": "public_holiday"})
        elif m := _RE_DAILY.search(part):
            windows.append(
                {
                    "type": "weekly",
                    "days": list(DAY_NAMES),
                    "start": _hhmm(m[1]),
                    "end": _hhmm(m[2]),
                }
            )
        else:
            return None
    return windows, []
