"""The figures of a table sent in by the trade: checked and put in the registry's record
form (metres, Decimals); the pages' form of them (templates/pricing/table_form_fields.html).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings

from core.errors import DomainError
from pricing.licensing import licensing_map

YARD_M = Decimal("0.9144")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MAX_BANDS = 8
MAX_EXTRAS = 20
MAX_EXAMPLES = 12
MAX_EXAMPLE_MILES = Decimal(100)
_HHMM = re.compile(r"^([01]\d|2[0-4]):[0-5]\d$")


def authorities() -> list[str]:
    """Every taxi licensing authority of the UK (pricing.licensing), sorted."""
    return sorted({d.authority for d in licensing_map().districts.values()})


class FieldErrors:
    def __init__(self) -> None:
        self.by_field: dict[str, list[str]] = {}

    def add(self, field: str, message: str) -> None:
        self.by_field.setdefault(field, []).append(message)

    def raise_any(self) -> None:
        if self.by_field:
            raise DomainError(
                "invalid_input",
                "The table has invalid fields; see errors.",
                errors=self.by_field,
            )


def _decimal(
    errors: FieldErrors, field: str, value: Any, *, required: bool, places: int = 2
) -> Decimal | None:
    if value is None or value == "":
        if required:
            errors.add(field, "This figure is required.")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        errors.add(field, "Must be a number.")
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        errors.add(field, "Must be a number.")
        return None
    if not number.is_finite() or number < 0 or number >= Decimal(10) ** 6:
        errors.add(field, "Must be a number from 0 to 999999.")
        return None
    if number != number.quantize(Decimal(1).scaleb(-places)):
        errors.add(field, f"At most {places} decimal places.")
        return None
    return number


def _text(errors: FieldErrors, field: str, value: Any, *, required: bool, max_length: int) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            errors.add(field, "This field is required.")
        return ""
    if not isinstance(value, str):
        errors.add(field, "Must be text.")
        return ""
    if len(value) > max_length:
        errors.add(field, f"At most {max_length} characters.")
        return ""
    return value.strip()


def _metres(value: Decimal | None, unit: str) -> Decimal | None:
    if value is None or unit == "m":
        return value
    # Exact, not rounded: the band's distances hold six decimal places, so a figure in
    # hundredths of a yard converts without loss (issue 33).
    return value * YARD_M


def _band_clean(errors: FieldErrors, at: str, raw: Any, unit: str) -> dict | None:
    if not isinstance(raw, dict):
        errors.add(at, "Must be an object.")
        return None
    name = _text(errors, f"{at}.name", raw.get("name"), required=True, max_length=120)
    after = _decimal(
        errors, f"{at}.appliesAfterDistance", raw.get("appliesAfterDistance"), required=False
    )
    tail = after is not None
    days = raw.get("days", list(DAYS))  # absent: every day; an empty list is a mistake
    if not isinstance(days, list) or not days or any(d not in DAYS for d in days):
        errors.add(f"{at}.days", f"A list of days among {', '.join(DAYS)}.")
        days = list(DAYS)
    windows: list[dict] = []
    if not tail:
        start, end = raw.get("start"), raw.get("end")
        for key, value in (("start", start), ("end", end)):
            if not isinstance(value, str) or not _HHMM.match(value):
                errors.add(f"{at}.{key}", "A time as HH:MM (00:00 to 24:00).")
        if isinstance(start, str) and isinstance(end, str):
            windows.append({"type": "weekly", "days": days, "start": start, "end": end})
        if raw.get("publicHolidays") is True:
            windows.append({"type": "public_holiday"})
    flag_fall = _decimal(errors, f"{at}.flagFallGBP", raw.get("flagFallGBP"), required=not tail)
    flag_distance = _decimal(
        errors, f"{at}.flagFallDistance", raw.get("flagFallDistance"), required=not tail
    )
    increment = _decimal(
        errors, f"{at}.incrementDistance", raw.get("incrementDistance"), required=True
    )
    price = _decimal(errors, f"{at}.incrementPriceGBP", raw.get("incrementPriceGBP"), required=True)
    seconds = _decimal(
        errors,
        f"{at}.waitingSecondsPerIncrement",
        raw.get("waitingSecondsPerIncrement"),
        required=True,
    )
    waiting_price = _decimal(
        errors,
        f"{at}.waitingIncrementPriceGBP",
        raw.get("waitingIncrementPriceGBP"),
        required=False,
    )
    for field, value in (("incrementDistance", increment), ("waitingSecondsPerIncrement", seconds)):
        if value is not None and value == 0:
            errors.add(f"{at}.{field}", "Must be more than 0.")
    band = {
        "name": name,
        "windows": windows,
        "excludes": [],
        "flag_fall_gbp": flag_fall,
        "flag_fall_distance_m": _metres(flag_distance, unit),
        "increment_distance_m": _metres(increment, unit),
        "increment_price_gbp": price,
        "waiting_seconds_per_increment": seconds,
        "waiting_increment_price_gbp": waiting_price,
        "applies_after_distance_m": _metres(after, unit),
    }
    if unit == "yd":
        band["source_units"] = "yards (converted at 0.9144 m)"
    return band


def _extra_clean(errors: FieldErrors, at: str, raw: Any) -> dict | None:
    if not isinstance(raw, dict):
        errors.add(at, "Must be an object.")
        return None
    extra = {
        "name": _text(errors, f"{at}.name", raw.get("name"), required=True, max_length=200),
        "amount_gbp": _decimal(errors, f"{at}.amountGBP", raw.get("amountGBP"), required=True),
    }
    when = _text(errors, f"{at}.when", raw.get("when"), required=False, max_length=100)
    if when:
        extra["window"] = when
    return extra


def figures_clean(figures: Any) -> dict:
    """The submitted figures -> the registry's record form (``bands``, ``extras``, in
    metres and Decimals), or 400 ``invalid_input`` naming each bad figure as
    ``figures.bands[0].flagFallGBP``."""
    errors = FieldErrors()
    if not isinstance(figures, dict):
        errors.add("figures", "Must be an object with bands and extras.")
        errors.raise_any()
    unit = figures.get("distanceUnit", "m")
    if unit not in ("m", "yd"):
        errors.add("figures.distanceUnit", 'Either "m" (metres) or "yd" (yards).')
        unit = "m"
    bands_raw = figures.get("bands")
    if not isinstance(bands_raw, list) or not 1 <= len(bands_raw) <= MAX_BANDS:
        errors.add("figures.bands", f"From 1 to {MAX_BANDS} tariffs.")
        bands_raw = []
    extras_raw = figures.get("extras") or []
    if not isinstance(extras_raw, list) or len(extras_raw) > MAX_EXTRAS:
        errors.add("figures.extras", f"A list of at most {MAX_EXTRAS} extras.")
        extras_raw = []
    bands = [_band_clean(errors, f"figures.bands[{i}]", b, unit) for i, b in enumerate(bands_raw)]
    extras = [_extra_clean(errors, f"figures.extras[{i}]", e) for i, e in enumerate(extras_raw)]
    names = [b["name"] for b in bands if b]
    if len(set(names)) != len(names):
        errors.add("figures.bands", "Each tariff needs its own name.")
    if bands and all(b and b["applies_after_distance_m"] is not None for b in bands):
        errors.add("figures.bands", "At least one tariff must apply from the start of a hiring.")
    errors.raise_any()
    return {"bands": bands, "extras": extras, "distance_unit": unit}


def examples_clean(examples: Any, band_names: list[str]) -> list[dict]:
    """The card's printed fares: [{"miles", "fareGBP", "band"}]; ``band`` defaults to the
    first tariff."""
    errors = FieldErrors()
    if examples in (None, ""):
        return []
    if not isinstance(examples, list) or len(examples) > MAX_EXAMPLES:
        errors.add("examples", f"A list of at most {MAX_EXAMPLES} printed fares.")
        errors.raise_any()
    clean = []
    for i, raw in enumerate(examples):
        at = f"examples[{i}]"
        if not isinstance(raw, dict):
            errors.add(at, "Must be an object.")
            continue
        miles = _decimal(errors, f"{at}.miles", raw.get("miles"), required=True, places=3)
        fare = _decimal(errors, f"{at}.fareGBP", raw.get("fareGBP"), required=True)
        band = raw.get("band") or (band_names[0] if band_names else "")
        if band not in band_names:
            errors.add(f"{at}.band", "The name of one of the table's tariffs.")
        if miles is not None and not 0 < miles <= MAX_EXAMPLE_MILES:
            errors.add(f"{at}.miles", f"More than 0 and at most {MAX_EXAMPLE_MILES}.")
        clean.append({"miles": str(miles), "fareGBP": str(fare), "band": band})
    errors.raise_any()
    return clean


# The pages' form (templates/pricing/table_form_fields.html): this many rows of each.
FORM_BANDS = 3
FORM_EXTRAS = 3
FORM_EXAMPLES = 3


BAND_FORM_FIELDS = (
    "name",
    "start",
    "end",
    "flag_fall",
    "flag_distance",
    "increment_price",
    "increment_distance",
    "waiting_seconds",
)


def table_form_context(data=None) -> dict:
    """What templates/pricing/table_form_fields.html needs: its rows, holding what was
    typed (``data``, the posted form) so that a refused form is not typed again."""
    data = data or {}

    def typed(name: str) -> str:
        return str(data.get(name) or "")[:200]

    def days(i: int) -> list[str]:
        chosen = data.getlist(f"band{i}_days") if hasattr(data, "getlist") else []
        return chosen if data else list(DAYS)

    bands = [
        {
            "i": i,
            **{field: typed(f"band{i}_{field}") for field in BAND_FORM_FIELDS},
            "days": [(day, day in days(i)) for day in DAYS],
            "holidays": typed(f"band{i}_holidays") == "1",
        }
        for i in range(1, FORM_BANDS + 1)
    ]
    extras = [
        {"i": i, "name": typed(f"extra{i}_name"), "amount": typed(f"extra{i}_amount")}
        for i in range(1, FORM_EXTRAS + 1)
    ]
    examples = [
        {
            "i": i,
            "miles": typed(f"example{i}_miles"),
            "fare": typed(f"example{i}_fare"),
            "band": typed(f"example{i}_band"),
        }
        for i in range(1, FORM_EXAMPLES + 1)
    ]
    authority = typed("authority")
    return {
        "authorities": authorities(),
        "chosen_authority": authority if authority in authorities() else "",
        "effective_from": typed("effective_from"),
        "distance_unit": typed("distance_unit") or "yd",
        "bands": bands,
        "extras": extras,
        "examples": examples,
        "max_mb": settings.TARIFF_SUBMISSION_MAX_BYTES // (1024 * 1024),
    }


def figures_from_form(data) -> tuple[dict, list[dict]]:
    """The page form's fields (a QueryDict) -> (figures, examples) as the API takes them;
    a row left blank is no row. The driver app's script does the same
    (driver-app/app.js ``tableFigures``)."""
    bands = []
    for i in range(1, FORM_BANDS + 1):
        name = (data.get(f"band{i}_name") or "").strip()
        if not name:
            continue
        bands.append(
            {
                "name": name,
                "days": data.getlist(f"band{i}_days"),
                "start": data.get(f"band{i}_start") or None,
                "end": data.get(f"band{i}_end") or None,
                "publicHolidays": data.get(f"band{i}_holidays") == "1",
                "flagFallGBP": data.get(f"band{i}_flag_fall"),
                "flagFallDistance": data.get(f"band{i}_flag_distance"),
                "incrementPriceGBP": data.get(f"band{i}_increment_price"),
                "incrementDistance": data.get(f"band{i}_increment_distance"),
                "waitingSecondsPerIncrement": data.get(f"band{i}_waiting_seconds"),
            }
        )
    extras = [
        {"name": data.get(f"extra{i}_name"), "amountGBP": data.get(f"extra{i}_amount")}
        for i in range(1, FORM_EXTRAS + 1)
        if (data.get(f"extra{i}_name") or "").strip()
    ]
    examples = [
        {
            "miles": data.get(f"example{i}_miles"),
            "fareGBP": data.get(f"example{i}_fare"),
            "band": (data.get(f"example{i}_band") or "").strip() or None,
        }
        for i in range(1, FORM_EXAMPLES + 1)
        if (data.get(f"example{i}_miles") or "").strip()
    ]
    figures = {"distanceUnit": data.get("distance_unit") or "m", "bands": bands, "extras": extras}
    return figures, examples


def figures_stored_form(record: dict) -> dict:
    """The stored figures, as the submitter sent them after cleaning (JSON: numbers as
    strings so that 0.2 stays 0.2)."""

    def plain(value):
        if isinstance(value, Decimal):
            return str(value)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    return plain(record)
