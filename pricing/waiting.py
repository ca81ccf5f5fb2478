"""What waiting costs under a tariff (issue 15): its free minutes and its waiting rate.

A hackney carriage meter advances one increment (``increment_price_gbp``, or the band's
own ``waiting_increment_price_gbp`` where the table prices waiting in another step, as
South Ribble's 10p per 30 s) per ``waiting_seconds_per_increment`` spent waiting
(shared/data/README.md, pricing/data/README.md); that is the council's waiting rate, and a
passenger kept waiting beyond the free minutes pays it as a meter would. Which price
applies is :attr:`pricing.compiled_tariffs.CompiledBand.waiting_price`'s to say. A band whose figures
are missing charges nothing: a missing figure is never invented.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from decimal import Decimal

from core.localtime import local_datetime
from core.money import gbp
from pricing.catalogue import tariff_compiled_get
from pricing.compiled_tariffs import TariffIncomplete
from pricing.models import Tariff


@dataclass(frozen=True)
class WaitingRate:
    """One increment of ``increment_price`` per ``increment_seconds`` of waiting."""

    band: str
    increment_price: Decimal
    increment_seconds: Decimal

    def charge(self, waited: dt.timedelta) -> Decimal:
        """The meter's charge for ``waited``: every increment begun is paid."""
        seconds = Decimal(max(0, math.ceil(waited.total_seconds())))
        increments = math.ceil(seconds / self.increment_seconds)
        return gbp(self.increment_price * increments)

    def label(self) -> str:
        return (
            f"{self.band}: GBP {self.increment_price} per {self.increment_seconds.normalize():f} s"
        )


def tariff_free_waiting_minutes(reference: str) -> int | None:
    """The tariff's own free waiting minutes, None when it sets none (or is unknown)."""
    if not reference:
        return None
    return (
        Tariff.objects.filter(reference=reference)
        .values_list("free_waiting_minutes", flat=True)
        .first()
    )


def tariff_waiting_rate(reference: str, *, at: dt.datetime) -> WaitingRate | None:
    """The waiting rate of tariff ``reference`` in the band in force at ``at`` (UK time);
    None when the tariff is unknown or its band lacks the waiting figures."""
    tariff = Tariff.objects.filter(reference=reference).first() if reference else None
    if tariff is None:
        return None
    compiled = tariff_compiled_get(tariff)
    try:
        band = compiled.band_at(local_datetime(at))
        multiplier = Decimal(1)
        if band.multiplier is not None:
            multiplier = band.multiplier
            band = compiled.band_named(band.multiplier_of)
    except TariffIncomplete:
        return None
    if not band.waiting_price or not band.increment_seconds:
        return None
    return WaitingRate(
        band=band.name,
        increment_price=band.waiting_price * multiplier,
        increment_seconds=band.increment_seconds,
    )
