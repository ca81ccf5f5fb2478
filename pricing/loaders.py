"""Loading the councils' published tariffs (pricing/data/council_tariffs.json) into the DB.

Figures are never retyped: every amount, distance and time comes from the JSON (parsed with
``Decimal``, so 0.2 stays exactly 0.2). What the JSON says only in words (which band
applies when, what an extra is for) is translated by :func:`pricing.tariff_wording.special_dates_parse`
and the small :data:`EXTRA_RULES` table; wording we cannot translate is kept and marked
uncertain rather than guessed. Status, sources and uncertainty marks are kept verbatim.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from pricing.catalogue import tariff_compile
from pricing.estimation import estimation_build
from pricing.models import (
    ExtraKind,
    Tariff,
    TariffBand,
    TariffBasis,
    TariffExtra,
    TariffKind,
    TariffLifecycle,
)
from pricing.publication import tariffs_publish_all
from pricing.reference_meter import DAY_PROBE, LOO_MILES, NIGHT_PROBE, meter_fare, percentile
from pricing.tariff_wording import special_dates_parse
from pricing.uprating import ChangeSet, checks_load, uprated_records

DATA_FILE = Path(__file__).resolve().parent / "data" / "council_tariffs.json"

# What each published extra means for a quote: (kind, passengers included before it applies).
# Extras not listed here (soiling, luggage, bicycles, maxima) are loaded as on_request:
# they are shown in the admin but never added to a quote.
EXTRA_RULES: dict[str, tuple[str, int]] = {
    "each passenger additional to hirer": (ExtraKind.PER_PASSENGER, 1),
    "each additional passenger": (ExtraKind.PER_PASSENGER, 1),
    "5+ passengers, each (if agreed at booking)": (ExtraKind.PER_PASSENGER, 4),
    "5+ passengers": (ExtraKind.PARTY_FLAT, 4),
    "each passenger in excess of four": (ExtraKind.PER_PASSENGER, 4),
    "for each passenger in excess of 1 for each whole journey": (ExtraKind.PER_PASSENGER, 1),
    "more than 4 passengers": (ExtraKind.PARTY_PERCENT, 4),
    "airport terminal drop-off barrier": (ExtraKind.AIRPORT_DROPOFF, 0),
    "airport terminal pick-up barrier": (ExtraKind.AIRPORT_PICKUP, 0),
    "Piccadilly Station barrier": (ExtraKind.STATION_PICKUP, 0),
}
# Where a pick-up charge at a named place applies: the place as the gazetteer labels it.
EXTRA_PLACES: dict[str, str] = {"Piccadilly Station barrier": "Manchester Piccadilly"}
_TIMED_EXTRA = re.compile(r"\d{1,2}:\d{2}|public holiday|bank holiday", re.IGNORECASE)
_NOT_AUTOMATIC = re.compile(
    r"fouling|soiling|if diesel|bicycle|suitcase|animal|call-out|ranks", re.IGNORECASE
)

# The network's own approved rate (seed 1.1: "a licensed operator's approved rate"), used
# where no loaded council table covers the pickup. Ours, not a council's: editable in admin.
NETWORK_TARIFF: dict[str, Any] = {
    "reference": "network-standard",
    "name": "Direct-to-Driver network rate",
    "authority": "Direct-to-Driver network",
    "kind": TariffKind.OPERATOR,
    "basis": TariffBasis.NETWORK,
    "effective_date": "2025-01-01",
    "bands": [
        {
            "name": "Day",
            "windows": [
                {
                    "type": "weekly",
                    "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                    "start": "06:00",
                    "end": "22:00",
                }
            ],
            "excludes": [{"type": "public_holiday"}],
            "flag_fall_gbp": "3.60",
            "flag_fall_distance_m": "400",
            "increment_distance_m": "160",
            "increment_price_gbp": "0.20",
            "waiting_seconds_per_increment": "36",
        },
        {
            "name": "Night and public holidays",
            "windows": [
                {
                    "type": "weekly",
                    "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                    "start": "22:00",
                    "end": "06:00",
                },
                {"type": "public_holiday"},
            ],
            "flag_fall_gbp": "4.60",
            "flag_fall_distance_m": "400",
            "increment_distance_m": "130",
            "increment_price_gbp": "0.20",
            "waiting_seconds_per_increment": "30",
        },
    ],
}
WORLDWIDE_TARIFF: dict[str, Any] = {
    "reference": "worldwide-standard",
    "name": "Worldwide partner-fleet rate",
    "authority": "Direct-to-Driver network (worldwide)",
    "kind": TariffKind.WORLDWIDE,
    "effective_date": "2025-01-01",
    "bands": [
        {
            "name": "Worldwide",
            "windows": [
                {
                    "type": "weekly",
                    "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                    "start": "00:00",
                    "end": "24:00",
                }
            ],
            "flag_fall_gbp": "5.00",
            "flag_fall_distance_m": "1000",
            "increment_distance_m": "200",
            "increment_price_gbp": "0.35",
            "waiting_seconds_per_increment": "40",
        },
    ],
}


def lifecycle_from_status(status: str | None, effective_to: dt.date | None = None) -> str:
    """The data's status wording -> a lifecycle; a table whose replacement is already in
    force (``effective_to`` today or earlier) is historical whatever its wording."""
    text = (status or "").lower()
    if effective_to is not None and effective_to <= timezone.localdate():
        return TariffLifecycle.HISTORICAL
    if "historical" in text or "superseded" in text:
        return TariffLifecycle.HISTORICAL
    if "proposed" in text:
        return TariffLifecycle.PROPOSED
    if "partial" in text:
        return TariffLifecycle.PARTIAL
    return TariffLifecycle.CURRENT


def effective_date_parse(text: str | None) -> tuple[dt.date | None, str]:
    """'2023-09-15' -> (date, ''); '2025-04 (day not found)' -> (None, verbatim)."""
    if not text:
        return None, ""
    try:
        return dt.date.fromisoformat(text), ""
    except ValueError:
        return None, text


def _band_windows(applies: dict) -> tuple[list[dict], list[dict], list[str]]:
    windows: list[dict] = []
    excludes: list[dict] = []
    not_understood: list[str] = []
    days = applies.get("days")
    start, end = applies.get("start"), applies.get("end")
    if start and end and days != "public holidays":
        day_list = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        if isinstance(days, list):
            day_list = days
        windows.append({"type": "weekly", "days": day_list, "start": start, "end": end})
    if days == "public holidays":
        windows.append({"type": "public_holiday"})
    for text in applies.get("special_dates") or []:
        parsed = special_dates_parse(text)
        if parsed is None:
            not_understood.append(f"special date not applied automatically: {text}")
            continue
        windows.extend(w for w in parsed[0] if w not in windows)
        excludes.extend(parsed[1])
    return windows, excludes, not_understood


def _extra_row(raw: dict) -> dict:
    name = raw["name"]
    kind, threshold = EXTRA_RULES.get(name, (ExtraKind.ON_REQUEST, 0))
    windows: list[dict] = []
    status = raw.get("status", "")
    if kind == ExtraKind.ON_REQUEST and not _NOT_AUTOMATIC.search(name):
        wording = raw.get("window") or name
        first_digit = re.search(r"\d", wording)
        if _TIMED_EXTRA.search(wording):
            candidates = [wording, wording[first_digit.start() :] if first_digit else wording]
            for text in candidates:
                parsed = special_dates_parse(text.split(" (")[0])
                if parsed and parsed[0]:
                    kind, windows = ExtraKind.TIME_SURCHARGE, parsed[0]
                    break
    starts = raw.get("from")
    if status or (starts and dt.date.fromisoformat(starts) > timezone.localdate()):
        kind, windows = ExtraKind.ON_REQUEST, []  # recommended or not yet in force
    # A maximum ("up to") is not a fixed charge. A timed charge whose amount the source
    # did not give (``amount_unknown``) stays timed: journeys it would apply to cannot be
    # priced on this table (never invent a figure).
    unknown_timed = raw.get("amount_unknown") and kind == ExtraKind.TIME_SURCHARGE
    if raw.get("amount_gbp") is None and kind != ExtraKind.PARTY_PERCENT and not unknown_timed:
        kind = ExtraKind.ON_REQUEST
    percent = raw.get("percent_of_metered_fare")
    return {
        "name": name,
        "kind": kind,
        "amount_gbp": raw.get("amount_gbp"),
        "max_gbp": raw.get("max_gbp"),
        "percent": percent,
        "passenger_threshold": threshold,
        "windows": windows,
        "place": EXTRA_PLACES.get(name, "") if kind == ExtraKind.STATION_PICKUP else "",
        "uncertain": bool(raw.get("uncertain")),
        "status_text": status,
        "raw": json.loads(json.dumps(raw, default=float)),
    }


def _record_json(record: dict) -> dict:
    return json.loads(json.dumps(record, default=float))


def _tariff_fields(record: dict, *, kind: str) -> dict:
    effective_from, effective_text = effective_date_parse(record.get("effective_date"))
    effective_to = effective_date_parse(record.get("effective_to"))[0]
    authority = record.get("council") or record["authority"]
    sources = record.get("source") or []
    checked = record.get("checked_on") or max(
        (s.get("read") for s in sources if s.get("read")), default=None
    )
    return {
        "name": record.get("name") or f"{authority} hackney carriage tariff",
        "kind": kind,
        "authority": authority,
        "lifecycle": lifecycle_from_status(record.get("status"), effective_to),
        "basis": record.get("basis") or TariffBasis.TABLE,
        "estimate": _record_json(record.get("estimate") or {}),
        "status_text": record.get("status") or "",
        "effective_from": effective_from,
        "effective_to": effective_to,
        "effective_date_text": effective_text,
        "checked_on": dt.date.fromisoformat(checked) if checked else None,
        "areas_gss": list(record.get("areas_gss") or []),
        "sources": sources,
        "uncertain": record.get("uncertain") or [],
        "raw": _record_json(record),
    }


def _create_figures(tariff: Tariff, record: dict) -> None:
    """The record's bands and extras, written in one insert each: a row saved one by one
    would touch its tariff once per row (``pricing.catalogue``), three times a table. The
    tariff is touched once instead, so every process still recompiles it."""
    bands = []
    for position, band in enumerate(record["bands"]):
        if "applies" in band:
            windows, excludes, not_understood = _band_windows(band["applies"])
        else:
            windows, excludes, not_understood = (
                band.get("windows", []),
                band.get("excludes", []),
                [],
            )
        applies_raw = dict(band.get("applies") or {})
        for key in ("applies_after", "rates_equal_to"):
            if key in band:
                applies_raw[key] = band[key]
        bands.append(
            TariffBand(
                tariff=tariff,
                position=position,
                name=band["name"],
                windows=[] if band.get("applies_after_distance_m") is not None else windows,
                excludes=excludes,
                applies_after_distance_m=band.get("applies_after_distance_m"),
                until_distance_m=band.get("until_distance_m"),
                flag_fall_gbp=band.get("flag_fall_gbp"),
                flag_fall_distance_m=band.get("flag_fall_distance_m"),
                flag_fall_seconds=band.get("flag_fall_seconds"),
                increment_distance_m=band.get("increment_distance_m"),
                increment_price_gbp=band.get("increment_price_gbp"),
                waiting_seconds_per_increment=band.get("waiting_seconds_per_increment"),
                waiting_increment_price_gbp=band.get("waiting_increment_price_gbp"),
                multiplier_of=band.get("multiplier_of") or "",
                multiplier=band.get("multiplier"),
                source_units=band.get("source_units") or "",
                uncertain=[*(band.get("uncertain") or []), *not_understood],
                applies_raw=json.loads(json.dumps(applies_raw, default=float)),
            )
        )
    TariffBand.objects.bulk_create(bands)
    TariffExtra.objects.bulk_create(
        TariffExtra(tariff=tariff, position=position, **_extra_row(raw))
        for position, raw in enumerate(record.get("extras") or [])
    )
    tariff.save(update_fields=["updated_at"])


def _create_tariff(record: dict, *, kind: str) -> Tariff:
    tariff = Tariff.objects.create(
        reference=record.get("id") or record["reference"], **_tariff_fields(record, kind=kind)
    )
    _create_figures(tariff, record)
    return tariff


def tariff_record_create(record: dict, *, kind: str) -> Tariff:
    """A tariff from one record in the registry's form (a table from the trade,
    ``pricing.submissions``), built exactly as the loader builds the data's."""
    return _create_tariff(record, kind=kind)


def _replace_tariff(tariff: Tariff, record: dict, *, kind: str) -> Tariff:
    """A new version of a loaded table (its record in the data changed): the figures,
    dates, status and sources become the data's; whether it is switched on stays."""
    for name, value in _tariff_fields(record, kind=kind).items():
        setattr(tariff, name, value)
    tariff.save()
    tariff.bands.all().delete()
    tariff.extras.all().delete()
    _create_figures(tariff, record)
    return tariff


def _records_sync(records: list[tuple[dict, str]], existing: dict, stdout=None) -> int:
    """Create or rebuild each record's tariff where its record changed (idempotent)."""
    changed = 0
    for record, kind in records:
        reference = record.get("id") or record["reference"]
        tariff = existing.get(reference)
        if tariff is not None and tariff.raw == _record_json(record):
            continue
        with transaction.atomic():
            if tariff is None:
                tariff = _create_tariff(record, kind=kind)
                verb = "Loaded"
            else:
                tariff = _replace_tariff(tariff, record, kind=kind)
                verb = "Updated"
        existing[reference] = tariff
        changed += 1
        if stdout:
            stdout.write(f"{verb} tariff {tariff.reference} ({tariff.get_lifecycle_display()})\n")
    return changed


def tariffs_load(stdout=None, *, estimates: bool = True) -> int:
    """Load every council tariff in pricing/data/council_tariffs.json, plus the network's
    default operator rate and the worldwide rate, then (``estimates``) the estimated
    tables built from them and from the authorities' published figures
    (:func:`estimates_load`). Returns how many were created or replaced.

    Idempotent: a tariff whose record is unchanged since it was loaded is left as it is
    (admin edits survive). A record that changed in the data (a corrected figure, a table
    now dated or replaced) is a new version: the tariff is rebuilt from it.

    Then every tariff is published to connected dispatch platforms
    (:func:`pricing.publication.tariffs_publish_all`, contract 5.3): new ones as version 1,
    changed ones as a new version, replaced ones withdrawn; a second run with unchanged
    data publishes nothing."""
    with open(DATA_FILE, encoding="utf8") as f:
        data = json.load(f, parse_float=Decimal)
    records = [(r, TariffKind.COUNCIL) for r in data["tariffs"]]
    records += [(NETWORK_TARIFF, TariffKind.OPERATOR), (WORLDWIDE_TARIFF, TariffKind.WORLDWIDE)]
    existing = {t.reference: t for t in Tariff.objects.all()}
    changed = _records_sync(records, existing, stdout)
    if estimates:
        changed += estimates_load(data["tariffs"], existing, stdout)
    published = tariffs_publish_all()
    if stdout and published:
        stdout.write(f"Published {len(published)} tariff version(s) to dispatch platforms.\n")
    return changed


def estimates_load(tables: list[dict], existing: dict | None = None, stdout=None) -> int:
    """Build the estimated tables (issue 33) and load them like any other:

    - ``uprated``: each complete table of ``pricing/data/tariff_changes.json`` whose
      changes since are all known (:mod:`pricing.uprating`);
    - ``calibrated``: each authority's published figures
      (``pricing/data/council_fare_points.json``, ``london_fare_points.json``) fitted to the
      reference meter of the complete tables loaded (:mod:`pricing.estimation`), carrying
      the method's leave-one-out error measured here, on this load's tables.

    An estimated table no longer built (its figures withdrawn) is switched off, and on
    again when it is built again."""

    existing = existing if existing is not None else {t.reference: t for t in Tariff.objects.all()}
    records = estimation_build(tables, uprating_error=uprating_error_measure(tables))
    changed = _records_sync([(r, TariffKind.COUNCIL) for r in records], existing, stdout)
    built = {r["id"] for r in records}
    estimated = Tariff.objects.filter(basis__in=[TariffBasis.UPRATED, TariffBasis.CALIBRATED])
    # Built again after its figures came back: the loader, not the admin, switches these.
    changed += estimated.filter(reference__in=built, is_active=False).update(
        is_active=True, updated_at=timezone.now()
    )
    stale = Tariff.objects.filter(
        basis__in=[TariffBasis.UPRATED, TariffBasis.CALIBRATED], is_active=True
    ).exclude(reference__in=built)
    changed += stale.update(is_active=False, updated_at=timezone.now())
    return changed


class _RollBack(Exception):
    pass


def uprating_error_measure(tables: list[dict]) -> float | None:
    """The uprating method's measured error (percent, 90th percentile): each check of
    ``tariff_changes.json`` uprates an authority's earlier complete table by the change it
    published (built in a transaction that is rolled back) and compares it with its later
    complete table at 1, 2, 5 and 10 miles by day and by night. None without a check."""

    by_id = {t["id"]: t for t in tables}
    errors: list[float] = []
    for check in checks_load():
        earlier, later = by_id.get(check["from"]), by_id.get(check["to"])
        if earlier is None or later is None:
            continue
        changes = ChangeSet(check["from"], "", list(check["changes"]), [])
        record = uprated_records(changes, earlier, 0.0)[-1]
        compiled = {}
        try:
            with transaction.atomic():
                for key, rec in (("estimate", record), ("truth", later)):
                    probe = {**rec, "id": f"uprating-check-{key}", "status": "current"}
                    probe.pop("effective_to", None)
                    compiled[key] = tariff_compile(_create_tariff(probe, kind=TariffKind.COUNCIL))
                raise _RollBack
        except _RollBack:
            pass
        for at in (DAY_PROBE, NIGHT_PROBE):
            for miles in LOO_MILES:
                real = meter_fare(compiled["truth"], miles, at)
                guess = meter_fare(compiled["estimate"], miles, at)
                if real and guess is not None:
                    errors.append(float(abs(guess - real) / real * 100))
    return round(percentile(errors, 0.9), 1) if errors else None
