"""Review by two staff members: a check, then an approval by someone else (or a
rejection with its reason); the approval makes a new dated council table and publishes it.
"""

from __future__ import annotations

import datetime as dt

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from core.errors import DomainError
from pricing.licensing import authority_districts
from pricing.loaders import tariff_record_create
from pricing.models import (
    SubmissionStatus,
    Tariff,
    TariffKind,
    TariffLifecycle,
    TariffSubmission,
)
from pricing.publication import tariff_publish


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
