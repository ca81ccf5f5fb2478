"""Receiving a pushed batch of jobs: one use case behind the partner, operator and
supplier doors (seed 2.10, section 4 rules 1-2; contract 4).

Order of the rules, each in one place:
1. who may push here: the account's bridge is not paused, an operator is approved for live
   intake (403 ``bridge_paused`` / ``operator_not_approved``);
2. the caller's request rate (429 ``rate_limited``);
3. the body's shape: one PartnerJob, an array, or ``{"jobs": [...]}``, at most 100
   (400 ``invalid_body`` / ``batch_too_large``);
4. each job on its own: readable text, its fields, then the one admission of a booking
   request (``bookings.admission.booking_request_admit``, uncounted, ``INTAKE_FORM``:
   screening logged with the caller, pickup time, who may price and the fare's range,
   the flight number); a bad job is a rejected outcome and the batch goes on (contract
   4.1). On the operator door a single job with invalid fields is 400 (contract 4.2);
5. the valid jobs applied (``partners.services.intake.intake_batch_apply``: daily limits,
   idempotency on jobRef, pricing, dispatch).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from bookings.admission import INTAKE_FORM, BookingRequest, booking_request_admit
from bookings.services import PassengerDetails
from core.callers import Caller
from core.errors import DomainError
from guards.ratelimits import limit_enforce
from partners.models import Account, IntakeFormat
from partners.services.intake import (
    MAX_BATCH,
    IntakeJob,
    JobAction,
    JobResult,
    intake_batch_apply,
    intake_summary,
)
from partners.services.partner_jobs import PartnerJobInputSerializer

logger = logging.getLogger("partners.intake")

NOT_TEXT = "Not valid text: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)."


@dataclass(frozen=True)
class IntakeReceipt:
    """The outcome of a batch: one result per job, in request order, and the counts."""

    results: list[JobResult]
    summary: dict[str, int]

    @property
    def any_rejected(self) -> bool:
        return self.summary["rejected"] > 0


def account_intake_allowed(account: Account) -> None:
    """403 for a paused bridge (any kind) or an operator not approved for live intake."""
    if account.paused:
        raise DomainError("bridge_paused", f"Intake for {account.name} is paused.")
    if account.kind == Account.Kind.OPERATOR and not account.approved:
        raise DomainError(
            "operator_not_approved",
            f"{account.name} is not yet approved for live intake; ask the network operator.",
        )


def intake_body_jobs(body: Any) -> tuple[list[Any], bool]:
    """The raw jobs of a body (one PartnerJob, an array, or {"jobs": [...]}), and whether it
    was a single job. 400 invalid_body for any other shape, batch_too_large past 100."""
    if isinstance(body, list):
        jobs, single = body, False
    elif isinstance(body, dict) and "jobs" in body and "jobRef" not in body:
        jobs, single = body["jobs"], False
        if not isinstance(jobs, list):
            raise DomainError("invalid_body", '"jobs" must be an array of PartnerJob objects.')
    elif isinstance(body, dict):
        jobs, single = [body], True
    else:
        raise DomainError(
            "invalid_body", 'Send one PartnerJob object, an array of them, or {"jobs": [...]}.'
        )
    if not jobs:
        raise DomainError("invalid_body", "The batch holds no jobs.")
    if len(jobs) > MAX_BATCH:
        raise DomainError(
            "batch_too_large",
            f"A batch holds at most {MAX_BATCH} jobs; this one has {len(jobs)}.",
        )
    return jobs, single


def text_echo(value: Any) -> str | None:
    """A sender's string as it can be echoed back: lone surrogates (valid JSON escapes,
    but not text) become U+FFFD instead of failing the response."""
    if not isinstance(value, str):
        return None
    return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _unreadable_fields(raw: dict) -> dict[str, list[str]]:
    """Fields (names or values) holding lone surrogates: no database stores them."""
    return {
        text_echo(name): [NOT_TEXT]
        for name, value in raw.items()
        if text_echo(name) != name or (isinstance(value, str) and text_echo(value) != value)
    }


def intake_job_validate(*, caller: Caller, index: int, raw: Any) -> IntakeJob:
    """One raw PartnerJob validated and admitted; DomainError (with field errors)
    otherwise."""
    if not isinstance(raw, dict):
        raise DomainError(
            "invalid_input",
            "Expected a PartnerJob object.",
            errors={"non_field_errors": ["Expected a PartnerJob object."]},
        )
    unreadable = _unreadable_fields(raw)
    if unreadable:
        raise DomainError(
            "invalid_input", "The job holds text that is not valid.", errors=unreadable
        )
    serializer = PartnerJobInputSerializer(data=raw)
    if not serializer.is_valid():
        raise DomainError(
            "invalid_input",
            "The job has invalid fields; see errors.",
            errors={
                name: [str(message) for message in messages]
                for name, messages in serializer.errors.items()
            },
        )
    job = serializer.intake_job(index=index)
    return intake_job_admit(caller=caller, job=job)


def intake_job_admit(*, caller: Caller, job: IntakeJob) -> IntakeJob:
    """One job of the intake request through the admission every door shares
    (``bookings.admission.booking_request_admit``, ``INTAKE_FORM``, uncounted: the batch
    counted once): screening (logged with the caller), a pickup time that can be booked
    (one tolerance for quotes, bookings and intake; not for a cancellation), a fare only
    from a sender allowed to price, within range (403 ``fare_not_allowed``), and the flight
    number in its one format. Only the fields the job sent are judged and written back."""
    values = job.fields
    request = BookingRequest(
        passenger=PassengerDetails(name=values.get("passenger_name") or ""),
        flight_number=values.get("flight_number") or "",
        notes=values.get("notes") or "",
        pickup=values.get("pickup") or "",
        dropoff=values.get("dropoff") or "",
        depart_at=None if job.action == JobAction.CANCEL else values.get("pickup_time"),
        fare=values.get("fare"),
    )
    admitted = booking_request_admit(
        caller=caller, request=request, form=INTAKE_FORM, counted=False
    ).request
    if admitted.fare is not None:
        job.fields["fare"] = admitted.fare
    if "flight_number" in job.fields:
        job.fields["flight_number"] = admitted.flight_number
    return job


def intake_jobs_validate(
    *, caller: Caller, raw_jobs: list[Any]
) -> tuple[list[IntakeJob], list[JobResult]]:
    """Validate and screen each job on its own; a bad job is a rejected result, never a
    failure of the batch (contract 4.1)."""
    valid: list[IntakeJob] = []
    rejected: list[JobResult] = []
    for index, raw in enumerate(raw_jobs):
        try:
            valid.append(intake_job_validate(caller=caller, index=index, raw=raw))
        except DomainError as error:
            job_ref = text_echo(raw.get("jobRef")) if isinstance(raw, dict) else None
            rejected.append(
                JobResult.rejected(
                    index=index,
                    job_ref=job_ref,
                    code=error.code,
                    errors=error.errors or {"non_field_errors": [error.detail or error.code]},
                )
            )
    return valid, rejected


def intake_batch_receive(
    *, caller: Caller, sender_kind: str, body: Any, now: dt.datetime | None = None
) -> IntakeReceipt:
    """Receive a batch pushed by a partner, operator or supplier account.

    Guarantees: every rule of the module docstring, in that order; one result per job in
    request order; at most one booking per (account, jobRef) however often or however
    concurrently the batch arrives; a rejected job changes nothing. Raises DomainError
    for a refusal of the whole batch (403, 429, 400 on body shape, and on the operator
    door a single invalid job).
    """
    intake_sender_admit(caller=caller, sender_kind=sender_kind)
    raw_jobs, single = intake_body_jobs(body)
    jobs, rejected = intake_jobs_validate(caller=caller, raw_jobs=raw_jobs)
    if single and rejected and sender_kind == Account.Kind.OPERATOR:
        # Contract 4.2: on the operator door a single job with invalid fields is 400.
        only = rejected[0]
        raise DomainError(
            only.code or "invalid_input",
            "The job has invalid fields; see errors."
            if only.code == "invalid_input"
            else "The job was rejected; see errors.",
            errors=only.errors,
        )
    return intake_jobs_apply(caller=caller, jobs=jobs, rejected=rejected, now=now)


def intake_sender_admit(
    *, caller: Caller, sender_kind: str, intake_format: str = IntakeFormat.PARTNER_JOB
) -> None:
    """Who may push here: an account of this kind that pushes in this door's format, its
    bridge not paused (an operator approved), within its request rate."""
    account = caller.account
    if account is None or account.kind != sender_kind:
        raise DomainError("unauthenticated", f"Send the credentials of a {sender_kind} account.")
    if account.intake_format != intake_format:
        raise DomainError(
            "partner_not_allowed",
            f"{account.name} pushes jobs as {account.get_intake_format_display()}; "
            "send them to that format's door.",
        )
    account_intake_allowed(account)
    limit_enforce(caller, "intake")


def intake_jobs_apply(
    *,
    caller: Caller,
    jobs: list[IntakeJob],
    rejected: list[JobResult] | None = None,
    now: dt.datetime | None = None,
) -> IntakeReceipt:
    """Apply the validated jobs of the one intake request (``intake_jobs_validate``; a
    sender's format module builds the PartnerJob objects) once ``intake_sender_admit``
    let the sender in; ``rejected`` are the jobs that failed validation, reported in
    request order with the rest. Guarantees as :func:`intake_batch_receive`."""
    account = caller.account
    rejected = rejected or []
    results = rejected + intake_batch_apply(account=account, jobs=jobs, now=now or timezone.now())
    results.sort(key=lambda r: r.index)
    summary = intake_summary(results)
    logger.info(
        "intake %s account=%s received=%d accepted=%d rejected=%d",
        caller.path,
        account.slug,
        summary["received"],
        summary["accepted"],
        summary["rejected"],
    )
    return IntakeReceipt(results=results, summary=summary)
