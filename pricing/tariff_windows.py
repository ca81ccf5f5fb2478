"""When a band or a timed surcharge applies: windows in the week, in the year and on
public holidays, compiled once into plain tuples (:func:`windows_compile`), and the
precedence that decides between overlapping ones."""

from __future__ import annotations

from dataclasses import dataclass

# Which window made a band (or a timed surcharge) apply decides between overlapping ones:
# a dated festive window beats a public holiday, which beats the weekly pattern.
PRECEDENCE_WEEKLY = 10
PRECEDENCE_HOLIDAY = 20
PRECEDENCE_ANNUAL = 30

DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MINUTES_PER_DAY = 24 * 60
MINUTES_PER_WEEK = 7 * MINUTES_PER_DAY
YEAR_END_KEY = 12_31_2400
YEAR_START_KEY = 1_01_0000

_MONTHS = {
    m: i
    for i, m in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}


# --- windows -----------------------------------------------------------------------------


def _minutes(hhmm: str) -> int:
    hours, minutes = hhmm.strip().split(":")
    return int(hours) * 60 + int(minutes)


def _annual_key(month_day: str, hhmm: str) -> int:
    """'12-24', '20:00' -> 12242000 (comparable within a year)."""
    month, day = (int(p) for p in month_day.split("-"))
    return month * 1_000_000 + day * 10_000 + int(hhmm.replace(":", ""))


@dataclass(frozen=True, slots=True)
class Windows:
    """When something applies, as integer intervals for constant-time matching.

    ``weekly``: [start, end) minutes of the week (Monday 00:00 = 0), wraps pre-split.
    ``annual``: [start, end) keys MMDDhhmm within a year, wraps pre-split.
    ``holiday``: every minute of a public holiday of the journey's nation.
    """

    weekly: tuple[tuple[int, int], ...] = ()
    annual: tuple[tuple[int, int], ...] = ()
    holiday: bool = False

    def __bool__(self) -> bool:
        return bool(self.weekly or self.annual or self.holiday)

    def precedence(self, week_minute: int, annual_key: int, holiday: bool) -> int:
        """0 when no window matches, else the strongest matching kind."""
        for start, end in self.annual:
            if start <= annual_key < end:
                return PRECEDENCE_ANNUAL
        if holiday and self.holiday:
            return PRECEDENCE_HOLIDAY
        for start, end in self.weekly:
            if start <= week_minute < end:
                return PRECEDENCE_WEEKLY
        return 0


def windows_compile(specs: list[dict]) -> Windows:
    """Compile stored window specs (see ``pricing.models.TariffBand.windows``)."""
    weekly: list[tuple[int, int]] = []
    annual: list[tuple[int, int]] = []
    holiday = False

    def add_weekly(start: int, end: int) -> None:
        start %= MINUTES_PER_WEEK
        end = start + ((end - start) % MINUTES_PER_WEEK or MINUTES_PER_WEEK)
        if end <= MINUTES_PER_WEEK:
            weekly.append((start, end))
        else:
            weekly.extend([(start, MINUTES_PER_WEEK), (0, end - MINUTES_PER_WEEK)])

    for spec in specs:
        kind = spec["type"]
        if kind == "public_holiday":
            holiday = True
        elif kind == "weekly":
            start, end = _minutes(spec["start"]), _minutes(spec["end"])
            length = (end - start) % MINUTES_PER_DAY or MINUTES_PER_DAY
            for day in spec["days"]:
                offset = DAY_NAMES.index(day) * MINUTES_PER_DAY
                add_weekly(offset + start, offset + start + length)
        elif kind == "weekly_span":
            (from_day, from_time), (to_day, to_time) = (
                s.split() for s in (spec["from"], spec["to"])
            )
            add_weekly(
                DAY_NAMES.index(from_day) * MINUTES_PER_DAY + _minutes(from_time),
                DAY_NAMES.index(to_day) * MINUTES_PER_DAY + _minutes(to_time),
            )
        elif kind == "annual":
            start = _annual_key(*spec["from"].split())
            end = _annual_key(*spec["to"].split())
            if start < end:
                annual.append((start, end))
            else:  # crosses New Year
                annual.extend([(start, YEAR_END_KEY + 1), (YEAR_START_KEY, end)])
        else:
            raise ValueError(f"Unknown window type {kind!r}")
    return Windows(weekly=tuple(weekly), annual=tuple(annual), holiday=holiday)
