"""Receiving a pushed batch of jobs: one use case behind every intake door and format
(seed 2.10, section 4 rules 1-2; contract 4).

Order of the rules, each in one place:
1. who may push here: an account of the door's kind that pushes in the door's format, its
   bridge not paused, an operator approved for live intake (403 ``bridge_paused`` /
   ``operator_not_approved``);
2. the caller's request rate (429 ``rate_limited``);
3. the body read by the sender's format (``partners/intake_formats/``) into the typed
   intake request (``partners.services.intake_request``): a body of the wrong shape is
   refused whole (400 ``invalid_body`` / ``batch_too_large``), a job the format cannot
   read is a rejected outcome;
4. each job through the one admission of a booking request
   (``bookings.admission.booking_request_admit``, uncounted, ``INTAKE_FORM``: screening
   logged with the caller, pickup time, who may price and the fare's range, the flight
   number); a bad job is a rejected outcome and the batch goes on (contract 4.1). On the
   operator door a single job with invalid fields is 400 (contract 4.2);
5. the valid jobs applied (``partners.services.intake.intake_batch_apply``: daily limits,
   idempotency on jobRef, pricing, dispatch); for a format whose jobs are the legs of one
   trip (``all_or_nothing``), all of them or none.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.utils import timezone

from bookings.admission import INTAKE_FORM, booking_request_admit
from core.callers import Caller
from core.errors import DomainError
from guards.ratelimits import limit_enforce
from partners.models import Account, IntakeFormat
from partners.services.intake import intake_batch_apply, intake_summary
from partners.services.intake_request import IntakeBatch, IntakeJob, JobAction, JobResult

logger = logging.getLogger("partners.intake")


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


def intake_job_admit(*, caller: Caller, job: IntakeJob) -> IntakeJob:
    """One job of the intake request through the admission every door shares
    (``bookings.admission.booking_request_admit``, ``INTAKE_FORM``, uncounted: the batch
    counted once): screening (logged with the caller), a pickup time that can be booked
    (one tolerance for quotes, bookings and intake; not for a cancellation), a fare only
    from a sender allowed to price, within range (403 ``fare_not_allowed``), and the flight
    number in its one format. Only the fields the job sent are judged and written back."""
    request = job.request
    if job.action == JobAction.CANCEL:
        request = replace(request, depart_at=None)
    admitted = booking_request_admit(
        caller=caller, request=request, form=INTAKE_FORM, counted=False
    ).request
    # The admission's normalised fare (pence) and flight number are what is stored.
    return job.with_request(
        replace(job.request, fare=admitted.fare, flight_number=admitted.flight_number)
    )


def intake_jobs_admit(
    *, caller: Caller, batch: IntakeBatch
) -> tuple[list[IntakeJob], list[JobResult]]:
    """Each job the format read through the admission on its own; a refused job is a
    rejected result, never a failure of the batch (contract 4.1)."""
    admitted: list[IntakeJob] = []
    rejected = list(batch.rejected)
    for job in batch.jobs:
        try:
            admitted.append(intake_job_admit(caller=caller, job=job))
        except DomainError as error:
            rejected.append(JobResult.from_error(index=job.index, job_ref=job.job_ref, error=error))
    return admitted, rejected


IntakeReader = Callable[[Any], IntakeBatch]


def intake_batch_receive(
    *,
    caller: Caller,
    sender_kind: str,
    body: Any,
    read: IntakeReader,
    intake_format: str = IntakeFormat.PARTNER_JOB,
    all_or_nothing: bool = False,
    now: dt.datetime | None = None,
) -> IntakeReceipt:
    """Receive a batch pushed by a partner, operator or supplier account, in the format
    that ``read`` (the format module's reader) understands.

    Guarantees: every rule of the module docstring, in that order; one result per job in
    request order; at most one booking per (account, jobRef) however often or however
    concurrently the batch arrives; a rejected job changes nothing. With
    ``all_or_nothing`` (the jobs are legs of one trip) either every job is accepted or
    the first refusal is raised and nothing is written: no booking, no dispatch, no
    day's count. Raises DomainError for a refusal of the whole batch (403, 429, 400 on
    body shape, and on the operator door a single invalid job).
    """
    intake_sender_admit(caller=caller, sender_kind=sender_kind, intake_format=intake_format)
    batch = read(body)
    jobs, rejected = intake_jobs_admit(caller=caller, batch=batch)
    if rejected and (all_or_nothing or (batch.single and sender_kind == Account.Kind.OPERATOR)):
        # Contract 4.2: on the operator door a single job with invalid fields is 400.
        raise _refusal(min(rejected, key=lambda r: r.index))
    if not all_or_nothing:
        return intake_jobs_apply(caller=caller, jobs=jobs, rejected=rejected, now=now)
    with transaction.atomic():
        receipt = intake_jobs_apply(caller=caller, jobs=jobs, now=now)
        if receipt.any_rejected:
            # Rolls back every leg written, the day's reservation, and the dispatch
            # queued on commit: the trip is booked whole or not at all.
            raise _refusal(next(r for r in receipt.results if not r.accepted))
    return receipt


def _refusal(result: JobResult) -> DomainError:
    return DomainError(
        result.code or "invalid_input",
        "The job has invalid fields; see errors."
        if result.code == "invalid_input"
        else "The job was rejected; see errors.",
        errors=result.errors,
    )


def intake_sender_admit(
    *, caller: Caller, sender_kind: str, intake_format: str = IntakeFormat.PARTNER_JOB
) -> None:
    """Who may push here: the sender's account (of ``sender_kind``: its door requires that
    kind, ``api.permissions.RequiresAccountKind``) pushes in this door's format, its bridge
    not paused (an operator approved), within its request rate."""
    account = caller.account
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
    """Apply the admitted jobs of the typed intake request (``intake_jobs_admit``) once
    ``intake_sender_admit`` let the sender in; ``rejected`` are the jobs that failed
    reading or admission, reported in request order with the rest. Guarantees as
    :func:`intake_batch_receive`."""
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
