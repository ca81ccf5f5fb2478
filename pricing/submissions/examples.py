"""The fares the card prints, recomputed with the real meter (pricing.fares.fare_compute)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from pricing.compiled_tariffs import CompiledBand, CompiledTariff, TariffIncomplete
from pricing.fares import FareOptions, fare_compute
from pricing.models import (
    TariffKind,
    TariffSubmission,
)
from pricing.routing import METRES_PER_MILE
from pricing.submissions.figures import DAYS
from pricing.tariff_windows import windows_compile

ALL_WEEK = [{"type": "weekly", "days": list(DAYS), "start": "00:00", "end": "24:00"}]


def _d(value) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))


def _compiled_band(band: dict, position: int, windows: list[dict]) -> CompiledBand:
    return CompiledBand(
        name=band["name"],
        position=position,
        windows=windows_compile(windows),
        excludes=windows_compile([]),
        flag_fall=_d(band.get("flag_fall_gbp")),
        flag_fall_distance=_d(band.get("flag_fall_distance_m")),
        increment_distance=_d(band.get("increment_distance_m")),
        increment_price=_d(band.get("increment_price_gbp")),
        increment_seconds=_d(band.get("waiting_seconds_per_increment")),
        waiting_increment_price=_d(band.get("waiting_increment_price_gbp")),
        after_distance=_d(band.get("applies_after_distance_m")),
    )


@dataclass(frozen=True)
class ExampleCheck:
    miles: Decimal
    band: str
    printed: Decimal
    meter: Decimal | None
    difference: Decimal | None
    note: str = ""


def submission_examples(submission: TariffSubmission) -> list[ExampleCheck]:
    """Each fare the card prints beside what the real meter (:func:`fare_compute`) gives on
    the submitted figures for that distance on that tariff, with no time in traffic and no
    extras: what the card's examples mean."""
    bands = submission.figures.get("bands", [])
    tails = tuple(
        _compiled_band(b, i, []) for i, b in enumerate(bands) if b.get("applies_after_distance_m")
    )
    checks = []
    for example in submission.examples:
        miles, printed = Decimal(example["miles"]), Decimal(example["fareGBP"])
        band = next((b for b in bands if b["name"] == example["band"]), None)
        meter = None
        note = ""
        if band is None:
            note = "no such tariff"
        else:
            tariff = CompiledTariff(
                id=0,
                version="",
                reference=f"submission-{submission.pk}",
                kind=TariffKind.COUNCIL,
                name=submission.authority,
                authority=submission.authority,
                tz=dt.UTC,
                time_bands=(_compiled_band(band, 0, ALL_WEEK),),
                tail_bands=tuple(sorted(tails, key=lambda t: t.after_distance)),
                extras=(),
                source={},
            )
            distance = miles * Decimal(str(METRES_PER_MILE))
            options = FareOptions()
            try:
                meter = fare_compute(
                    tariff,
                    distance_m=distance,
                    duration_s=distance / options.cruise_mps,
                    depart_at=dt.datetime(2026, 1, 5, 12, tzinfo=dt.UTC),
                    options=options,
                ).fare
            except TariffIncomplete as missing:
                note = str(missing)
        checks.append(
            ExampleCheck(
                miles=miles,
                band=example["band"],
                printed=printed,
                meter=meter,
                difference=None if meter is None else meter - printed,
                note=note,
            )
        )
    return checks
