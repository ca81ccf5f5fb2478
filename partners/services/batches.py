"""Receiving a pushed batch of jobs: one use case behind the partner, operator and
supplier doors (seed 2.10, section 4 rules 1-2; contract 4).

Order of the rules, each in one place:
1. who may push here: the account's bridge is not paused, an operator is approved for live
   intake (403 ``bridge_paused`` / ``operator_not_approved``);
2. the caller's request rate (429 ``rate_limited``);
3. the body's shape: one PartnerJob, an array, or ``{"jobs": [...]}``, at most 100
   (400 ``invalid_body`` / ``batch_too_large``);
4. each job on its own: readable text, screening (logged with the caller), fields, the
   shared booking policies (pickup time, who may price and the fare's range); a bad
   job is a rejected outcome and the batch goes on (contract 4.1). On the operator door a
   single job with invalid fields is 400 (contract 4.2);
5. the valid jobs applied (``partners.services.intake.intake_batch_apply``: daily limits,
   idempotency on jobRef, pricing, dispatch).
"""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from bookings.policies import fare_require_allowed, pickup_require_future
from core.callers import Caller
from core.errors import DomainError
from guards.ratelimits import limit_enforce
from guards.screening import FREE_TEXT_FIELDS, text_screen
from partners.models import Account
from partners.services.intake import (
    MAX_BATCH,
    IntakeJob,
    JobAction,
    JobResult,
    intake_batch_apply,
    intake_summary,
)
from partners.services.partner_jobs import PARTNER_JOB_FIELDS, PartnerJobInputSerializer

logger = logging.getLogger("partners.intake")

# Screened PartnerJob text: the shared free-text fields that a PartnerJob has.
JOB_SCREENED_FIELDS = tuple(f for f in FREE_TEXT_FIELDS if f in PARTNER_JOB_FIELDS)
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
    """One raw job validated and screened; DomainError (with field errors) otherwise."""
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
    text_screen(caller, raw, JOB_SCREENED_FIELDS)
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
    return intake_job_policies_apply(caller=caller, job=job)


def intake_job_policies_apply(*, caller: Caller, job: IntakeJob) -> IntakeJob:
    """The booking rules every door shares (bookings.policies), applied to one job: a
    pickup time that can be booked (one tolerance for quotes, bookings and intake), and a
    fare only from a sender allowed to price, within range (403 ``fare_not_allowed``)."""
    if job.action != JobAction.CANCEL and job.fields.get("pickup_time") is not None:
        pickup_require_future(job.fields["pickup_time"], field="pickupTime")
    if job.fields.get("fare") is not None:
        job.fields["fare"] = fare_require_allowed(caller.account, job.fields["fare"], field="fare")
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
    account = caller.account
    if account is None or account.kind != sender_kind:
        raise DomainError("unauthenticated", f"Send the credentials of a {sender_kind} account.")
    account_intake_allowed(account)
    limit_enforce(caller, "intake")
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
