"""A table sent in by a driver or an operator: one door for the driver app API and the
operator page; limited per login; the same file twice is one submission.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.errors import DomainError, LimitReached
from pricing.models import (
    SubmissionStatus,
    TariffSubmission,
)
from pricing.submissions.figures import (
    FieldErrors,
    authorities,
    examples_clean,
    figures_clean,
    figures_from_form,
    figures_stored_form,
)
from pricing.submissions.photos import photo_clean, photo_sha256


@dataclass(frozen=True)
class Submitter:
    """Who sends a table: a driver's login or an operator's (``account``)."""

    user: Any
    kind: str
    name: str
    account: Any = None


# The file store failing to take a photo (local disk, S3-compatible storage through
# django-storages and boto3): 503 service_unavailable with Retry-After, never a 500.
STORAGE_DOWN = (OSError, BotoCoreError, ClientError)


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
    errors = FieldErrors()
    if authority not in authorities():
        errors.add("authority", "A UK taxi licensing authority, named as in the list.")
    if effective_from > timezone.localdate() + dt.timedelta(days=366):
        errors.add("effectiveFrom", "At most a year ahead.")
    errors.raise_any()
    record = figures_clean(figures)
    clean_examples = examples_clean(examples, [b["name"] for b in record["bands"]])
    content, content_type = photo_clean(photo)
    sha = photo_sha256(photo)
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
            figures=figures_stored_form(record),
            examples=clean_examples,
            photo_type=content_type,
            photo_sha256=sha,
            submitter_kind=submitter.kind,
            submitter_name=submitter.name[:200],
            submitted_by=submitter.user,
            account=submitter.account,
        )
        try:
            submission.photo.save(content.name, content, save=False)
        except STORAGE_DOWN as down:
            raise DomainError(
                "service_unavailable", "The file store did not answer; send the table again."
            ) from down
        try:
            with transaction.atomic():
                submission.save()
        except IntegrityError:
            submission.photo.delete(save=False)
            same = TariffSubmission.objects.get(
                submitted_by=submitter.user, photo_sha256=sha, status__in=open_statuses
            )
            return same, False
        except Exception:
            submission.photo.delete(save=False)  # no row: keep no file (a database down)
            raise
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
