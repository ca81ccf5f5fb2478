"""Partner, operator and supplier job intake (seed 2.10, section 4 rules 1-2; contract 4).

A batch is applied in a bounded number of queries: the existing bookings for every jobRef
of the batch are read in ONE query; each job is then validated and priced on its own (a
bad job is a rejected result and never loses the good ones); the new ones are written
together in one statement, amends and cancels each in its own transaction. No job is ever
half-applied.

Idempotency on (account, jobRef) does not rest on that read: two identical batches racing
each other both see "no booking yet", both INSERT, and the database's
``booking_unique_job_ref_per_account`` constraint lets exactly one win. The loser catches
the IntegrityError and reports ``unchanged`` with the winner's reference (contract 1.3).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, OperationalError, transaction
from django.db.models import F

from bookings.models import Booking, BookingSource, BookingStatus, DispatchQueue, PaymentMethod
from bookings.services import (
    BookingDraft,
    PassengerDetails,
    booking_amend,
    booking_cancel,
    booking_journey_columns,
    bookings_create_many,
)
from bookings.services import booking_create as booking_create_service
from core.errors import DomainError, LimitReached
from core.localtime import local_day_bounds, local_today
from partners.models import Account, IntakeDayCount
from partners.services.intake_request import IntakeJob, JobAction, JobOutcome, JobResult
from pricing.services import quote_price

UNKNOWN_JOB_REF = "Unknown job reference."

SOURCE_BY_KIND = {
    Account.Kind.PARTNER: BookingSource.PARTNER,
    Account.Kind.OPERATOR: BookingSource.OPERATOR,
    Account.Kind.SUPPLIER: BookingSource.SUPPLIER,
}

LIMIT_CODE_BY_KIND = {
    Account.Kind.OPERATOR: "daily_bridge_limit",
}


# --- daily limits ---------------------------------------------------------------------


def intake_local_day_bounds(now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """Start and end (aware, UTC-comparable) of the local day containing ``now``: daily
    limits count jobs per Europe/London calendar day (contract 1)."""
    return local_day_bounds(local_today(now))


def intake_jobs_created_today(*, account: Account, now: dt.datetime) -> int:
    """Jobs this account pushed that became bookings today (Europe/London)."""
    start, end = intake_local_day_bounds(now)
    return (
        Booking.objects.filter(account=account, created_at__gte=start, created_at__lt=end)
        .exclude(job_ref="")
        .count()
    )


def intake_day_reserve(*, account: Account, now: dt.datetime, wanted: int) -> int:
    """Reserve up to ``wanted`` of the account's jobs for today; returns how many it got
    (0 when the day's limit is reached).

    Guarantees: however many batches of one account arrive at once, the reservations of a
    day never add up to more than ``daily_job_limit``: the day's counter row is read and
    raised under its row lock (``SELECT ... FOR UPDATE``; SQLite's write transactions are
    serial anyway), for a moment, not while the batch is priced and written. The first
    batch of a day starts the counter from the jobs already booked that day.
    """
    day = local_today(now)
    with transaction.atomic():
        counter = (
            IntakeDayCount.objects.select_for_update().filter(account=account, day=day).first()
        )
        if counter is None:
            already = intake_jobs_created_today(account=account, now=now)
            IntakeDayCount.objects.bulk_create(
                [IntakeDayCount(account=account, day=day, jobs=already)], ignore_conflicts=True
            )
            counter = IntakeDayCount.objects.select_for_update().get(account=account, day=day)
        granted = max(0, min(wanted, account.daily_job_limit - counter.jobs))
        if granted:
            IntakeDayCount.objects.filter(pk=counter.pk).update(jobs=F("jobs") + granted)
    return granted


def intake_day_release(*, account: Account, now: dt.datetime, unused: int) -> None:
    """Give back reservations a batch did not turn into bookings (rejected, or a racing
    duplicate took the jobRef)."""
    if unused > 0:
        IntakeDayCount.objects.filter(account=account, day=local_today(now)).update(
            jobs=F("jobs") - unused
        )


def intake_retry_after_seconds(now: dt.datetime) -> int:
    """Seconds until local midnight, when the daily allowance starts afresh."""
    _, end = intake_local_day_bounds(now)
    return max(1, int((end - now).total_seconds()) + 1)


def intake_limit_problem(*, account: Account, now: dt.datetime) -> LimitReached:
    return LimitReached(
        intake_retry_after_seconds(now),
        code=LIMIT_CODE_BY_KIND.get(account.kind, "daily_job_limit"),
        detail=f"{account.name} has reached its daily limit of {account.daily_job_limit} jobs; "
        "the allowance resets at midnight UK time.",
    )


# --- applying a batch -----------------------------------------------------------------


@dataclass
class _Creation:
    """A new job validated and priced, waiting to be written with the others."""

    job: IntakeJob
    draft: BookingDraft
    priced: Any
    result: JobResult


@dataclass
class _BatchState:
    account: Account
    existing: dict[str, Booking]
    new_allowance: int
    actor: str
    # jobRef -> its creation, written at the next flush (_creations_flush).
    pending: dict[str, _Creation] = field(default_factory=dict)


def intake_existing_bookings(*, account: Account, job_refs: list[str]) -> dict[str, Booking]:
    """The account's bookings for these jobRefs, in ONE query."""
    if not job_refs:
        return {}
    return {
        booking.job_ref: booking
        for booking in Booking.objects.filter(account=account, job_ref__in=set(job_refs))
    }


def intake_batch_apply(
    *,
    account: Account,
    jobs: list[IntakeJob],
    now: dt.datetime,
    existing: dict[str, Booking] | None = None,
) -> list[JobResult]:
    """Apply validated jobs in order; returns one result per job.

    Guarantees: at most one booking per (account, jobRef) even under concurrent duplicate
    batches (database constraint); each job is applied atomically or not at all; a job
    that fails (unlocatable address, not cancellable, ...) is a rejected result and does
    not affect the others. Jobs with the same jobRef inside one batch apply in order (a
    ``new`` then an ``amend`` of it works). New bookings enter dispatch after the commit
    that wrote them (bookings.signals), in one message for the batch; operator jobs go to
    the operator's own queue (seed 4 rule 2).
    Raises 429 (``daily_job_limit`` / ``daily_bridge_limit``) only when the batch needs
    new bookings and none are left today; a batch that only partly fits gets the jobs
    beyond the allowance rejected with the same code.
    """
    if existing is None:
        existing = intake_existing_bookings(account=account, job_refs=[j.job_ref for j in jobs])
    creations = {j.job_ref for j in jobs if j.action == JobAction.NEW and j.job_ref not in existing}
    allowance = (
        intake_day_reserve(account=account, now=now, wanted=len(creations)) if creations else 0
    )
    if creations and allowance <= 0:
        raise intake_limit_problem(account=account, now=now)
    state = _BatchState(
        account=account,
        existing=existing,
        new_allowance=allowance,
        actor=f"account:{account.slug}",
    )
    results = []
    try:
        for job in jobs:
            if job.job_ref in state.pending:
                _creations_flush(state)  # this job builds on one not written yet
            results.append(_job_result(state=state, job=job, now=now))
        _creations_flush(state)
    finally:
        # What is left of the reservation was not used: rejected jobs, lost races.
        intake_day_release(account=account, now=now, unused=state.new_allowance)
    return results


def _creations_flush(state: _BatchState) -> None:
    """Write the pending new jobs together: one statement for all of them, usually.

    When that fails on a constraint (a concurrent batch created one of these jobRefs
    first, or a booking reference clashed), nothing was written and each job is created
    on its own instead, which reports a lost race as ``unchanged``.
    """
    pending, state.pending = list(state.pending.values()), {}
    if not pending:
        return
    try:
        bookings = bookings_create_many(drafts=[(c.draft, c.priced) for c in pending])
    except (IntegrityError, OperationalError) as exc:
        # Rows are written in a fixed order so racing batches should only ever wait for
        # each other; a deadlock PostgreSQL broke anyway gets the same one-by-one retry.
        if isinstance(exc, OperationalError) and not _is_deadlock(exc):
            raise
        for creation in pending:
            _result_replace(creation.result, _creation_apply_alone(state, creation))
        return
    for creation, booking in zip(pending, bookings, strict=True):
        creation.result.booking_reference = booking.reference
        creation.result.pickup_code = booking.pickup_code or None
        state.existing[creation.job.job_ref] = booking


def _is_deadlock(exc: OperationalError) -> bool:
    return getattr(exc.__cause__, "sqlstate", None) == "40P01"


def _creation_apply_alone(state: _BatchState, creation: _Creation) -> JobResult:
    job = creation.job
    try:
        booking = booking_create_service(draft=creation.draft, priced=creation.priced)
    except IntegrityError:
        # A concurrent duplicate won the (account, job_ref) constraint: report its booking.
        booking = Booking.objects.filter(account=state.account, job_ref=job.job_ref).first()
        if booking is None:
            raise
        state.existing[job.job_ref] = booking
        state.new_allowance += 1  # counted when the job was queued, but nothing was created
        return _result(job, JobOutcome.UNCHANGED, booking)
    except DomainError as problem:
        state.new_allowance += 1  # reserved for this job, which was not created
        return _rejection(job, problem)
    state.existing[job.job_ref] = booking
    return _result(job, JobOutcome.CREATED, booking)


def _result_replace(target: JobResult, source: JobResult) -> None:
    """Fill the result already placed in the response list with the final outcome."""
    for name in JobResult.__dataclass_fields__:
        setattr(target, name, getattr(source, name))


def _job_result(*, state: _BatchState, job: IntakeJob, now: dt.datetime) -> JobResult:
    """One job applied, or its rejection: a failing job never affects the others."""
    try:
        return _job_apply(state=state, job=job, now=now)
    except DomainError as problem:
        return _rejection(job, problem)


def _rejection(job: IntakeJob, problem: DomainError) -> JobResult:
    return JobResult.from_error(index=job.index, job_ref=job.job_ref, error=problem)


def _job_apply(*, state: _BatchState, job: IntakeJob, now: dt.datetime) -> JobResult:
    booking = state.existing.get(job.job_ref)
    if job.action == JobAction.NEW:
        if booking is not None:
            # A repeat of an already-applied job (seed 4 rule 1): no duplicate.
            return _result(job, JobOutcome.UNCHANGED, booking)
        return _job_create(state=state, job=job, now=now)
    if booking is None:
        raise DomainError("job_not_found", UNKNOWN_JOB_REF, errors={"jobRef": [UNKNOWN_JOB_REF]})
    if job.action == JobAction.CANCEL:
        return _job_cancel(state=state, job=job, booking=booking)
    return _job_amend(state=state, job=job, booking=booking)


def _result(job: IntakeJob, outcome: str, booking: Booking) -> JobResult:
    return JobResult(
        index=job.index,
        job_ref=job.job_ref,
        outcome=outcome,
        booking_reference=booking.reference,
        pickup_code=booking.pickup_code or None,
    )


def _quote(*, account: Account, values: dict[str, Any]):

    fare = values.get("fare")
    return quote_price(
        pickup=values["pickup"],
        dropoff=values["dropoff"],
        passengers=values.get("passengers") or 1,
        vehicle_type=values.get("vehicle_type") or None,
        depart_at=values["pickup_time"],
        account=account,
        # The sender's agreed fare is the fare (seed 2.10); geocoding still runs.
        fare_override=Decimal(fare) if fare is not None else None,
    )


def _job_create(*, state: _BatchState, job: IntakeJob, now: dt.datetime) -> JobResult:
    account = state.account
    if state.new_allowance <= 0:
        problem = intake_limit_problem(account=account, now=now)
        raise DomainError(
            problem.code,
            problem.detail,
            errors={"jobRef": ["Daily job limit reached; not accepted."]},
        )
    priced = _quote(account=account, values=job.fields)
    operator = account.kind == Account.Kind.OPERATOR
    draft = BookingDraft(
        source=SOURCE_BY_KIND.get(account.kind, BookingSource.PARTNER),
        pickup_time=job.fields["pickup_time"],
        passenger=PassengerDetails(
            name=job.fields.get("passenger_name", ""),
            email=job.fields.get("passenger_email", ""),
            phone=job.fields.get("passenger_phone", ""),
        ),
        # The sender settles with its passenger; we never take payment (seed 1.2).
        payment_method=PaymentMethod.ACCOUNT,
        account=account,
        job_ref=job.job_ref,
        flight_number=job.fields.get("flight_number", ""),
        notes=job.fields.get("notes", ""),
        # Seed 4 rule 2: operator jobs go to the operator's own fleet, not central dispatch.
        dispatch_queue=DispatchQueue.OPERATOR if operator else DispatchQueue.NETWORK,
    )
    # Written with the batch's other new jobs (_creations_flush); the reference is filled
    # in then, before the response is built.
    result = _result_pending(job)
    state.pending[job.job_ref] = _Creation(job=job, draft=draft, priced=priced, result=result)
    state.new_allowance -= 1
    return result


def _result_pending(job: IntakeJob) -> JobResult:
    return JobResult(index=job.index, job_ref=job.job_ref, outcome=JobOutcome.CREATED)


def _job_cancel(*, state: _BatchState, job: IntakeJob, booking: Booking) -> JobResult:
    if booking.status == BookingStatus.CANCELLED:
        return _result(job, JobOutcome.UNCHANGED, booking)
    reason = job.fields.get("notes") or "Cancelled by the sender."
    booking = booking_cancel(booking=booking, actor=state.actor, reason=reason)
    state.existing[job.job_ref] = booking
    return _result(job, JobOutcome.CANCELLED, booking)


# PartnerJob fields that change the journey and so its price.
_JOURNEY_FIELDS = ("pickup", "dropoff", "pickup_time", "passengers", "vehicle_type", "fare")
# PartnerJob fields copied onto the booking as they are.
_PLAIN_FIELDS = (
    "pickup_time",
    "passenger_name",
    "passenger_email",
    "passenger_phone",
    "flight_number",
    "notes",
)


def _job_amend(*, state: _BatchState, job: IntakeJob, booking: Booking) -> JobResult:
    """Apply the fields the sender sent; a repeat that changes nothing is ``unchanged``.

    A journey change is re-priced: on the fare sent with the amend, else on the fare
    agreed with the sender when the job was sender-priced, else on the tariffs.
    """
    sent = job.fields
    changes: dict[str, Any] = {
        name: sent[name] for name in _PLAIN_FIELDS if name in sent and sent[name] is not None
    }
    if "passenger_email" in changes:
        changes["passenger_email"] = changes["passenger_email"].lower()
    journey_sent = {name: sent[name] for name in _JOURNEY_FIELDS if sent.get(name) is not None}
    pickup_text = sent.get("pickup")
    dropoff_text = sent.get("dropoff")
    if journey_sent and _journey_differs(booking, journey_sent):
        fare = journey_sent.get("fare")
        if fare is None and booking_sender_priced(booking):
            fare = booking.fare
        priced = _quote(
            account=state.account,
            values={
                "pickup": pickup_text or booking.pickup,
                "dropoff": dropoff_text or booking.dropoff,
                "pickup_time": journey_sent.get("pickup_time", booking.pickup_time),
                "passengers": journey_sent.get("passengers", booking.passengers),
                "vehicle_type": journey_sent.get("vehicle_type", booking.vehicle_type),
                "fare": fare,
            },
        )
        changes.update(booking_journey_columns(priced))
    changes = {name: value for name, value in changes.items() if getattr(booking, name) != value}
    if not changes:
        return _result(job, JobOutcome.UNCHANGED, booking)
    booking = booking_amend(booking=booking, actor=state.actor, changes=changes)
    state.existing[job.job_ref] = booking
    return _result(job, JobOutcome.AMENDED, booking)


def _journey_differs(booking: Booking, journey_sent: dict[str, Any]) -> bool:
    """Whether the sent journey fields differ from the booking, without geocoding.

    Addresses are compared as text with the stored label; a sender whose own text differs
    from our label gets a re-price that lands on the same columns, which the caller then
    reports as ``unchanged``.
    """
    current = {
        "pickup": booking.pickup.casefold(),
        "dropoff": booking.dropoff.casefold(),
        "pickup_time": booking.pickup_time,
        "passengers": booking.passengers,
        "vehicle_type": booking.vehicle_type,
        "fare": booking.fare,
    }
    for name, value in journey_sent.items():
        candidate = (
            value.casefold() if isinstance(value, str) and name in ("pickup", "dropoff") else value
        )
        if current[name] != candidate:
            return True
    return False


def booking_sender_priced(booking: Booking) -> bool:
    """Whether the booking's fare is the one the sender sent (pricing's partner_fare rule)."""
    return any(rule.get("code") == "partner_fare" for rule in booking.applied_rules or [])


def intake_summary(results: list[JobResult]) -> dict[str, int]:
    accepted = sum(1 for r in results if r.accepted)
    return {"received": len(results), "accepted": accepted, "rejected": len(results) - accepted}
