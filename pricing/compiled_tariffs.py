"""A tariff compiled once into plain frozen dataclasses holding Decimals (its bands,
extras and windows), so that :func:`pricing.fares.fare_compute` does no ORM or database
work; which band and which timed surcharge apply at a local time."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from zoneinfo import ZoneInfo

from pricing.holidays import ENGLAND, is_bank_holiday
from pricing.tariff_windows import MINUTES_PER_DAY, Windows


class TariffIncomplete(Exception):
    """The tariff lacks a figure needed for this journey (shared/data/README.md: never
    invent a missing figure). Selection skips such tariffs; direct callers get this."""


@dataclass(frozen=True, slots=True)
class CompiledBand:
    name: str
    position: int
    windows: Windows
    excludes: Windows
    flag_fall: Decimal | None
    flag_fall_distance: Decimal | None
    increment_distance: Decimal | None
    increment_price: Decimal | None
    increment_seconds: Decimal | None
    until_distance: Decimal | None = None
    # The price of one waiting increment where the table gives its own (None: the same as
    # ``increment_price``); read it through ``waiting_price``.
    waiting_increment_price: Decimal | None = None
    after_distance: Decimal | None = None
    multiplier: Decimal | None = None
    multiplier_of: str = ""
    uncertain: tuple[str, ...] = ()

    @property
    def waiting_price(self) -> Decimal | None:
        """What one increment of waiting (``increment_seconds``) costs: the band's own
        waiting step if the table gives one, else its increment price (the one home of
        that rule: the meter and the booking's waiting charge read it here)."""
        if self.waiting_increment_price is not None:
            return self.waiting_increment_price
        return self.increment_price

    @property
    def waits_apart(self) -> bool:
        """Whether waiting is charged in a step of another price than distance, so that
        the two cannot share an increment."""
        return self.waiting_price != self.increment_price

    @property
    def is_tail(self) -> bool:
        return self.after_distance is not None

    @property
    def is_complete(self) -> bool:
        if self.multiplier is not None:
            return bool(self.multiplier_of)
        meter = (self.increment_distance, self.increment_price, self.increment_seconds)
        if (
            any(v is None for v in meter)
            or not self.increment_distance
            or not self.increment_seconds
        ):
            return False
        return self.is_tail or (self.flag_fall is not None and self.flag_fall_distance is not None)


@dataclass(frozen=True, slots=True)
class CompiledExtra:
    name: str
    kind: str
    amount: Decimal | None
    percent: Decimal | None
    threshold: int
    windows: Windows
    uncertain: bool
    place: str = ""  # a pick-up charge at a named place: the gazetteer's label


@dataclass(frozen=True, slots=True)
class CompiledTariff:
    """Everything :func:`fare_compute` needs, free of the ORM."""

    id: int
    version: str
    reference: str
    kind: str
    name: str
    authority: str
    tz: ZoneInfo
    time_bands: tuple[CompiledBand, ...]
    tail_bands: tuple[CompiledBand, ...]
    extras: tuple[CompiledExtra, ...]
    source: dict = field(hash=False, compare=False)
    # ONS codes of the districts the table covers (pricing.licensing); empty: all of the
    # authority's districts.
    areas_gss: tuple[str, ...] = ()
    account_id: int | None = None
    effective_from: dt.date | None = None
    effective_to: dt.date | None = None
    lifecycle: str = "current"
    # How its fares are reached (pricing.models.TariffBasis): table, uprated, calibrated,
    # network; selection prefers them in that order (pricing.selectors.councils_for).
    basis: str = "table"
    # Whose public holidays its bands and charges follow (pricing.holidays): the nation of
    # its districts; the network's own rates follow the pickup's (FareOptions.nation).
    nation: str = ENGLAND
    # The key of its stored TariffSourceSnapshot (pricing.tariff_snapshots), or None when
    # no such row exists: quotes then store ``source`` whole.
    source_digest: str | None = None

    def in_force_on(self, day: dt.date) -> bool:
        """Whether the table prices a journey picked up on ``day`` (Europe/London): from
        its first day (unknown counts as long ago) until the day its replacement starts."""
        if self.effective_from is not None and day < self.effective_from:
            return False
        return self.effective_to is None or day < self.effective_to

    def band_at(self, local: dt.datetime, nation: str | None = None) -> CompiledBand:
        """The time band in force at local time ``local`` (Europe/London), public holidays
        being those of ``nation`` (default: the table's own)."""
        week_minute = local.weekday() * MINUTES_PER_DAY + local.hour * 60 + local.minute
        annual_key = local.month * 1_000_000 + local.day * 10_000 + local.hour * 100 + local.minute
        holiday = is_bank_holiday(local.date(), nation or self.nation)
        best: CompiledBand | None = None
        best_precedence = 0
        for band in self.time_bands:
            precedence = band.windows.precedence(week_minute, annual_key, holiday)
            if precedence > best_precedence and not band.excludes.precedence(
                week_minute, annual_key, holiday
            ):
                best, best_precedence = band, precedence
        if best is None:
            raise TariffIncomplete(f"{self.name}: no tariff band covers {local:%a %d %b %H:%M}.")
        return best

    def band_named(self, name: str) -> CompiledBand:
        for band in self.time_bands:
            if band.name == name or band.name.startswith(name + " "):
                return band
        raise TariffIncomplete(f"{self.name}: band '{name}' not found.")

    def can_price(self, local: dt.datetime, distance_m: Decimal, nation: str | None = None) -> bool:
        """Whether every figure this journey needs is known (selection skips it if not)."""
        try:
            band = self.band_at(local, nation)
            if band.multiplier is not None:
                band = self.band_named(band.multiplier_of)
        except TariffIncomplete:
            return False
        if not band.is_complete:
            return False
        timed = _timed_extra(self, local, nation or self.nation)
        if timed is not None and timed.amount is None:
            return False  # a timed charge applies whose amount the source did not give
        return all(t.is_complete for t in self.tail_bands if t.after_distance < distance_m)


def _timed_extra(tariff: CompiledTariff, local: dt.datetime, nation: str) -> CompiledExtra | None:
    """The timed surcharge in force at ``local``: they replace each other ("instead of
    night"), so the strongest matching window wins."""
    timed: CompiledExtra | None = None
    timed_precedence = 0
    week_minute = annual_key = 0
    holiday = None
    for extra in tariff.extras:
        if extra.kind != "time_surcharge":
            continue
        if holiday is None:
            week_minute = local.weekday() * MINUTES_PER_DAY + local.hour * 60 + local.minute
            annual_key = (
                local.month * 1_000_000 + local.day * 10_000 + local.hour * 100 + local.minute
            )
            holiday = is_bank_holiday(local.date(), nation)
        precedence = extra.windows.precedence(week_minute, annual_key, holiday)
        if precedence > timed_precedence:
            timed, timed_precedence = extra, precedence
    return timed
