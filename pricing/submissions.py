"""Tables from the trade (issue 33): a driver or a licensed operator sends in their
authority's table; two staff members put it live.

One door for every submitter: :func:`tariff_submission_create` (the driver app API and the
operator page call it). It takes

- the figures in the published form (``tariff.updated``'s field names, contract 5.3):
  bands with their hours, flag fall, increments and waiting time, and extras; distances
  in metres or yards (``distanceUnit``; yards converted at 0.9144 m with the original kept
  in ``source_units``, as the registry does);
- the date the table came into force, and the fares the card itself prints
  (``examples``), which the back office recomputes with the real meter
  (:func:`submission_examples`, :func:`pricing.fares.fare_compute`);
- a photo of the table in the cab or the council's notice: an image (JPEG, PNG, WebP) or
  a PDF, recognised by its content, never its name; at most
  ``TARIFF_SUBMISSION_MAX_BYTES``; an image is re-encoded without its EXIF (where and when
  the photo was taken, the phone's make) before it is stored through Django's storage API.

A login may send ``TARIFF_SUBMISSIONS_PER_SUBMITTER`` tables per
``TARIFF_SUBMISSIONS_WINDOW_DAYS`` days (429 ``submission_limit``).

Review (:func:`submission_check`, :func:`submission_approve`, :func:`submission_reject`):
each action needs its own permission (``pricing.check_tariffsubmission``,
``approve_tariffsubmission``, ``reject_tariffsubmission``); the checker is never the
submitter, the approver is neither (a database constraint says it too). The approval
creates a new dated council :class:`~pricing.models.Tariff` through the registry's loader
with its source, dates the tables of that authority it replaces (``effective_to``), and
publishes them all to connected platforms (:func:`pricing.publication.tariff_publish`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
import warnings
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from PIL import Image, ImageOps, UnidentifiedImageError

from core.errors import DomainError, LimitReached
from pricing.fares import (
    CompiledBand,
    CompiledTariff,
    FareOptions,
    TariffIncomplete,
    fare_compute,
    windows_compile,
)
from pricing.licensing import authority_districts, licensing_map
from pricing.loaders import tariff_record_create
from pricing.models import (
    SubmissionStatus,
    Tariff,
    TariffKind,
    TariffLifecycle,
    TariffSubmission,
)
from pricing.publication import tariff_publish
from pricing.routing import METRES_PER_MILE

YARD_M = Decimal("0.9144")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MAX_BANDS = 8
MAX_EXTRAS = 20
MAX_EXAMPLES = 12
MAX_EXAMPLE_MILES = Decimal(100)
# The images a phone takes or a scanner makes, by what Pillow reads in the content.
IMAGE_FORMATS = {
    "JPEG": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
}
PDF_MAGIC = b"%PDF-"
_HHMM = re.compile(r"^([01]\d|2[0-4]):[0-5]\d$")


# --- input ---------------------------------------------------------------------------------


def authorities() -> list[str]:
    """Every taxi licensing authority of the UK (pricing.licensing), sorted."""
    return sorted({d.authority for d in licensing_map().districts.values()})


class _Errors:
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
    errors: _Errors, field: str, value: Any, *, required: bool, places: int = 2
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


def _text(errors: _Errors, field: str, value: Any, *, required: bool, max_length: int) -> str:
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
    return (value * YARD_M).quantize(Decimal("0.01"))


def _band_clean(errors: _Errors, at: str, raw: Any, unit: str) -> dict | None:
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


def _extra_clean(errors: _Errors, at: str, raw: Any) -> dict | None:
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
    errors = _Errors()
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
    errors = _Errors()
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


def table_form_context(chosen_authority: str = "") -> dict:
    """What templates/pricing/table_form_fields.html needs."""
    return {
        "authorities": authorities(),
        "chosen_authority": chosen_authority if chosen_authority in authorities() else "",
        "bands": range(1, FORM_BANDS + 1),
        "extras": range(1, FORM_EXTRAS + 1),
        "examples": range(1, FORM_EXAMPLES + 1),
        "day_names": DAYS,
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


def _published_form(record: dict) -> dict:
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


def photo_clean(upload) -> tuple[ContentFile, str]:
    """The uploaded file -> (what is stored, its content type). An image is re-encoded by
    Pillow without EXIF (turned upright first, so nothing is lost to the eye); a PDF is
    kept as sent. Anything else, or a file over ``TARIFF_SUBMISSION_MAX_BYTES``, is
    refused naming ``photo``."""
    limit = settings.TARIFF_SUBMISSION_MAX_BYTES
    if upload is None:
        raise DomainError(
            "invalid_input",
            "A photo of the table is required.",
            errors={"photo": ["A photo or PDF of the table is required."]},
        )
    if upload.size > limit:
        message = f"The file is {upload.size} bytes; at most {limit} bytes ({limit // (1024 * 1024)} MB) are taken."
        raise DomainError("payload_too_large", message, errors={"photo": [message]})
    upload.seek(0)
    head = upload.read(len(PDF_MAGIC))
    upload.seek(0)
    if head == PDF_MAGIC:
        content = upload.read()
        if b"%%EOF" not in content[-1024:]:
            raise _not_a_photo("The PDF is incomplete.")
        return ContentFile(content, name="table.pdf"), "application/pdf"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(upload)
            image_format = image.format
            if image_format not in IMAGE_FORMATS:
                raise _not_a_photo(f"{image_format} images are not taken.")
            image.load()
            upright = ImageOps.exif_transpose(image)
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ):
        raise _not_a_photo("The file is not an image or a PDF.") from None
    content_type, extension = IMAGE_FORMATS[image_format]
    out = io.BytesIO()
    if image_format == "JPEG":
        upright.convert("RGB").save(out, "JPEG", quality=90, exif=b"")
    elif image_format == "WEBP":
        upright.save(out, "WEBP", quality=90, exif=b"")
    else:
        upright.save(out, "PNG")
    return ContentFile(out.getvalue(), name=f"table.{extension}"), content_type


def _not_a_photo(detail: str) -> DomainError:
    message = f"{detail} Send a photo (JPEG, PNG or WebP) or a PDF of the table."
    return DomainError("invalid_input", message, errors={"photo": [message]})


# --- submitting ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Submitter:
    """Who sends a table: a driver's login or an operator's (``account``)."""

    user: Any
    kind: str
    name: str
    account: Any = None


def _submitter_lock(user) -> None:
    # The submitter's row is locked first, so two tables sent at once are counted in turn.
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


def _limit_enforce(user) -> None:
    window = dt.timedelta(days=settings.TARIFF_SUBMISSIONS_WINDOW_DAYS)
    since = timezone.now() - window
    recent = list(
        TariffSubmission.objects.filter(submitted_by=user, created_at__gt=since)
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    allowed = settings.TARIFF_SUBMISSIONS_PER_SUBMITTER
    if len(recent) >= allowed:
        retry = (recent[len(recent) - allowed] + window - timezone.now()).total_seconds()
        raise LimitReached(
            int(retry) + 1,
            code="submission_limit",
            detail=f"At most {allowed} tables in {window.days} days from one login; "
            "the next can be sent once the oldest is out of that window.",
        )


def _sha256(upload) -> str:
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks() if hasattr(upload, "chunks") else [upload.read()]:
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def tariff_submission_create(
    *,
    submitter: Submitter,
    authority: str,
    effective_from: dt.date,
    figures: Any,
    examples: Any,
    photo,
) -> tuple[TariffSubmission, bool]:
    """Record a table sent in by the trade, pending a staff check: (submission, created).

    The same file sent again by the same login while its first submission awaits review
    is that submission (``created`` False), never a second one (a unique constraint
    holds it under concurrent retries). Refusals: 400 ``invalid_input`` (naming
    ``authority``, ``effectiveFrom``, the figures, ``examples`` or ``photo``), 413
    ``payload_too_large`` (``photo``), 429 ``submission_limit``."""
    errors = _Errors()
    if authority not in authorities():
        errors.add("authority", "A UK taxi licensing authority, named as in the list.")
    if effective_from > timezone.localdate() + dt.timedelta(days=366):
        errors.add("effectiveFrom", "At most a year ahead.")
    errors.raise_any()
    record = figures_clean(figures)
    clean_examples = examples_clean(examples, [b["name"] for b in record["bands"]])
    content, content_type = photo_clean(photo)
    sha = _sha256(photo)
    open_statuses = (SubmissionStatus.PENDING, SubmissionStatus.CHECKED)
    with transaction.atomic():
        _submitter_lock(submitter.user)
        same = TariffSubmission.objects.filter(
            submitted_by=submitter.user, photo_sha256=sha, status__in=open_statuses
        ).first()
        if same is not None:
            return same, False
        _limit_enforce(submitter.user)
        submission = TariffSubmission(
            authority=authority,
            effective_from=effective_from,
            figures=_published_form(record),
            examples=clean_examples,
            photo_type=content_type,
            photo_sha256=sha,
            submitter_kind=submitter.kind,
            submitter_name=submitter.name[:200],
            submitted_by=submitter.user,
            account=submitter.account,
        )
        submission.photo.save(content.name, content, save=False)
        try:
            with transaction.atomic():
                submission.save()
        except IntegrityError:
            submission.photo.delete(save=False)
            same = TariffSubmission.objects.get(
                submitted_by=submitter.user, photo_sha256=sha, status__in=open_statuses
            )
            return same, False
    return submission, True


def tariff_submission_from_form(*, submitter: Submitter, data, files) -> TariffSubmission:
    """The pages' form (templates/pricing/table_form_fields.html) sent in: its fields read
    by :func:`figures_from_form`, then :func:`tariff_submission_create`."""
    try:
        effective_from = dt.date.fromisoformat(data.get("effective_from") or "")
    except ValueError:
        raise DomainError(
            "invalid_input",
            "The date the table came into force is required.",
            errors={"effective_from": ["A date."]},
        ) from None
    figures, examples = figures_from_form(data)
    submission, _ = tariff_submission_create(
        submitter=submitter,
        authority=data.get("authority") or "",
        effective_from=effective_from,
        figures=figures,
        examples=examples,
        photo=files.get("photo"),
    )
    return submission


def submissions_of(user) -> list[TariffSubmission]:
    """The tables ``user`` sent, newest first (the submitter sees why one was rejected)."""
    return list(TariffSubmission.objects.filter(submitted_by=user).order_by("-created_at")[:50])


# --- the card's own examples, recomputed -------------------------------------------------------

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


# --- review ----------------------------------------------------------------------------------


def _locked(submission_id: int) -> TariffSubmission:
    submission = TariffSubmission.objects.select_for_update().filter(pk=submission_id).first()
    if submission is None:
        raise DomainError("not_found", f"No table submission {submission_id}.")
    return submission


def _permission_require(user, action: str) -> None:
    if not (
        user.is_active and user.is_staff and user.has_perm(f"pricing.{action}_tariffsubmission")
    ):
        raise DomainError("permission_denied", f"You may not {action} submitted tables.")


def submission_check(*, submission_id: int, by) -> TariffSubmission:
    """The first staff member has compared the figures with the photo. Never the
    submitter; only a pending submission."""
    _permission_require(by, "check")
    with transaction.atomic():
        submission = _locked(submission_id)
        if submission.status != SubmissionStatus.PENDING:
            raise DomainError(
                "invalid_transition",
                f"Submission {submission.pk} is {submission.status}, not pending.",
            )
        if submission.submitted_by_id == by.pk:
            raise DomainError(
                "permission_denied", "You sent this table: another staff member checks it."
            )
        submission.status = SubmissionStatus.CHECKED
        submission.checked_by = by
        submission.checked_at = timezone.now()
        submission.save(update_fields=["status", "checked_by", "checked_at"])
    return submission


def submission_reject(*, submission_id: int, by, reason: str) -> TariffSubmission:
    """Refuse a pending or checked table, saying why (the submitter sees the reason)."""
    _permission_require(by, "reject")
    reason = (reason or "").strip()
    if not reason:
        raise DomainError(
            "invalid_input", "Say why the table is rejected.", errors={"reason": ["Required."]}
        )
    with transaction.atomic():
        submission = _locked(submission_id)
        if submission.status not in (SubmissionStatus.PENDING, SubmissionStatus.CHECKED):
            raise DomainError(
                "invalid_transition", f"Submission {submission.pk} is already {submission.status}."
            )
        if submission.submitted_by_id == by.pk:
            raise DomainError(
                "permission_denied", "You sent this table: another staff member decides on it."
            )
        submission.status = SubmissionStatus.REJECTED
        submission.decided_by = by
        submission.decided_at = timezone.now()
        submission.rejection_reason = reason[:2000]
        submission.save(update_fields=["status", "decided_by", "decided_at", "rejection_reason"])
        _submitter_tell(
            submission,
            f"Your {submission.authority} fare table was not approved",
            f"Why: {reason}\n\nYou can send a corrected table with a clearer photo.",
        )
    return submission


def _submitter_tell(submission: TariffSubmission, subject: str, text: str) -> None:
    """Email the submitter (when their login has an address) once the decision commits;
    the driver app and the operator page show the same."""
    address = submission.submitted_by.email
    if address:
        transaction.on_commit(
            lambda: send_mail(subject, text, None, [address], fail_silently=True), robust=True
        )


def _staff_name(user) -> str:
    return user.get_full_name() or user.get_username()


def submission_source(submission: TariffSubmission, approver, day: dt.date) -> str:
    return (
        f"Submitted by {submission.get_submitter_kind_display().lower()} "
        f"{submission.submitter_name} on {submission.created_at.date().isoformat()}, "
        f"checked by staff {_staff_name(submission.checked_by)} on "
        f"{timezone.localdate(submission.checked_at).isoformat()}, approved by staff "
        f"{_staff_name(approver)} on {day.isoformat()} (table submission {submission.pk})"
    )


def _replaced_tables(authority: str, districts: list[str], exclude: int) -> list[Tariff]:
    """The other current council tables of the authority: those naming one of its
    districts, and those of its name covering all of them."""
    wanted = set(districts)
    tables = Tariff.objects.filter(
        kind=TariffKind.COUNCIL, lifecycle=TariffLifecycle.CURRENT
    ).exclude(pk=exclude)
    return [
        table
        for table in tables
        if (table.authority == authority and not table.areas_gss)
        or wanted & set(table.areas_gss or [])
    ]


def submission_approve(*, submission_id: int, by) -> TariffSubmission:
    """A second staff member (not the submitter, not the checker) puts a checked table
    live: a new dated council tariff covering the authority's districts, sourced to the
    submission; every other current table of that authority is dated to end where the next
    one starts (so the newest in force on a day prices it), and all of them are published
    (``tariff.updated``) once the transaction commits."""
    _permission_require(by, "approve")
    with transaction.atomic():
        submission = _locked(submission_id)
        if submission.status != SubmissionStatus.CHECKED:
            raise DomainError(
                "invalid_transition",
                f"Submission {submission.pk} is {submission.status}: only a checked table is approved.",
            )
        if by.pk in (submission.submitted_by_id, submission.checked_by_id):
            raise DomainError(
                "permission_denied",
                "A second person approves: neither the submitter nor the checker.",
            )
        today = timezone.localdate()
        source = submission_source(submission, by, today)
        districts = authority_districts(submission.authority)
        reference = f"{slugify(submission.authority)[:48]}-{submission.effective_from:%Y-%m-%d}-trade-{submission.pk}"
        figures = submission.figures
        record = {
            "id": reference,
            "council": submission.authority,
            "name": f"{submission.authority} hackney carriage tariff (table from the trade)",
            "effective_date": submission.effective_from.isoformat(),
            "status": "current: sent in by the trade, checked and approved by two staff members",
            "areas_gss": districts,
            "checked_on": today.isoformat(),
            "source": [{"title": source, "read": today.isoformat()}],
            "bands": figures["bands"],
            "extras": figures.get("extras", []),
            "reference_fares": [
                {**e, "tariff_id": reference, "exact": True} for e in submission.examples
            ],
        }
        tariff = tariff_record_create(record, kind=TariffKind.COUNCIL)
        tariff.notes = source
        tariff.save(update_fields=["notes"])
        changed = [reference]
        for table in _replaced_tables(submission.authority, districts, tariff.pk):
            changed.append(table.reference)
            if table.effective_from is None or table.effective_from < submission.effective_from:
                if table.effective_to is None or table.effective_to > submission.effective_from:
                    table.effective_to = submission.effective_from
                    table.save(update_fields=["effective_to", "updated_at"])
            elif tariff.effective_to is None or table.effective_from < tariff.effective_to:
                tariff.effective_to = table.effective_from
                tariff.save(update_fields=["effective_to", "updated_at"])
        submission.status = SubmissionStatus.APPROVED
        submission.decided_by = by
        submission.decided_at = timezone.now()
        submission.tariff = tariff
        submission.save(update_fields=["status", "decided_by", "decided_at", "tariff"])
        for changed_reference in changed:
            tariff_publish(reference=changed_reference)
        _submitter_tell(
            submission,
            f"Your {submission.authority} fare table is live",
            f"It prices journeys picked up in {submission.authority}'s area from "
            f"{submission.effective_from:%d %B %Y}. Thank you.",
        )
    return submission
