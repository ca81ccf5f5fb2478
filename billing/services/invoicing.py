"""Weekly driver invoices (seed 1.7 and 8): a flat software fee instead of commission.

Generation is set-based: one GROUP BY query per source (payment records, SMS log, partner
jobs) for the whole week, merged in memory, then written with ``bulk_create`` in chunks.
There is no query per driver, so 100,000 drivers cost a handful of queries per chunk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import DecimalField
from django.utils import timezone

from billing import numbering
from billing.fees import FeeSchedule, VatRule, fee_schedule_for
from billing.models import (
    FeeDecision,
    Invoice,
    InvoiceLine,
    InvoiceLineKind,
    InvoiceRunFailure,
    InvoiceStatus,
    PartnerJobFee,
    Subscription,
)
from billing.services.driver_weeks import (
    CHUNK_SIZE,
    ZERO,
    DriverWeek,
    driver_weeks_collect,
    week_in_trial,
)
from billing.services.late_payments import FEE_KINDS, late_payment_adjustments
from billing.services.subscriptions import subscription_stages_advance, subscriptions_ensure
from billing.weeks import week_bounds, week_has_ended
from core.money import gbp
from core.task_queue import task_enqueue_on_commit

logger = logging.getLogger(__name__)

CENT = Decimal("0.01")


@dataclass
class ChunkProgress:
    chunk: int
    chunks: int
    drivers_done: int
    drivers_total: int
    created: int


@dataclass
class InvoiceGenerationResult:
    week_start: date
    drivers_with_activity: int = 0
    created_billed: int = 0
    created_free: int = 0
    already_invoiced: int = 0
    subscriptions_created: int = 0
    total_billed: Decimal = ZERO
    first_number: int | None = None
    last_number: int | None = None
    # driver id -> why their week could not be invoiced (recorded as InvoiceRunFailure)
    failed: dict[int, str] = field(default_factory=dict)

    @property
    def created(self) -> int:
        return self.created_billed + self.created_free


# --- pricing one week ------------------------------------------------------------------


@dataclass
class PartnerFeeRate:
    account_id: int
    name: str
    fee_per_job: Decimal


def invoice_build(
    *,
    driver_week: DriverWeek,
    in_trial: bool,
    schedule: FeeSchedule,
    partner_rates: dict[int, PartnerFeeRate],
    adjustments: Sequence[InvoiceLine] = (),
    vat: VatRule | None = None,
) -> tuple[Invoice, list[InvoiceLine]]:
    """Price one driver's week into an unsaved invoice and its lines (no queries).

    ``total`` is what is charged: the lines' sum with VAT added when the fee is set
    exclusive of VAT (``billing.fees.VatRule``, today's settings unless ``vat`` is given);
    ``fee_rule`` records the VAT rule with the fee schedule, so the invoice's pages show
    what was charged whatever the settings say later.

    Seed 8.3: the software fee applies only once earnings *pass* the threshold, so exactly
    the threshold is free; seed 8.2: never during the trial. Pass-through lines (seed 8.5)
    are costs paid to third parties for the driver and apply in every week, trial or not.
    """
    lines: list[InvoiceLine] = []
    if in_trial:
        decision = FeeDecision.TRIAL
    elif driver_week.earnings > schedule.free_earnings_threshold:
        decision = FeeDecision.CHARGED
        lines.append(
            InvoiceLine(
                kind=InvoiceLineKind.SUBSCRIPTION,
                description="Weekly software subscription",
                quantity=Decimal(1),
                unit_amount=schedule.weekly_fee,
                amount=gbp(schedule.weekly_fee),
            )
        )
    else:
        decision = FeeDecision.UNDER_THRESHOLD
    if driver_week.sms_count:
        lines.append(
            InvoiceLine(
                kind=InvoiceLineKind.SMS,
                description=f"SMS job cards ({driver_week.sms_count} at £{schedule.sms_unit})",
                quantity=Decimal(driver_week.sms_count),
                unit_amount=schedule.sms_unit,
                amount=gbp(schedule.sms_unit * driver_week.sms_count),
            )
        )
    if driver_week.card_fees > 0:
        lines.append(
            InvoiceLine(
                kind=InvoiceLineKind.CARD_FEES,
                description="Card processing fees (pass-through)",
                quantity=Decimal(1),
                unit_amount=driver_week.card_fees,
                amount=driver_week.card_fees,
            )
        )
    for account_id, jobs in sorted(driver_week.partner_jobs.items()):
        rate = partner_rates.get(account_id)
        if rate is None or not jobs or rate.fee_per_job == 0:
            continue
        lines.append(
            InvoiceLine(
                kind=InvoiceLineKind.PARTNER_JOB_FEES,
                description=f"Job fees: {rate.name} ({jobs} at £{rate.fee_per_job})",
                quantity=Decimal(jobs),
                unit_amount=rate.fee_per_job,
                amount=gbp(rate.fee_per_job * jobs),
                account_id=account_id,
            )
        )
    # Late payment records of earlier weeks (late_payment_adjustments), billed here.
    lines.extend(adjustments)
    vat = vat or VatRule.current()
    fee = sum((ln.amount for ln in lines if ln.kind in FEE_KINDS), ZERO)
    lines_total = sum((ln.amount for ln in lines), ZERO)
    total = vat.split(lines_total).gross
    invoice = Invoice(
        driver_id=driver_week.driver_id,
        earnings=driver_week.earnings,
        fee_decision=decision,
        subtotal_fee=fee,
        subtotal_pass_through=lines_total - fee,
        total=total,
        status=InvoiceStatus.ISSUED if total > 0 else InvoiceStatus.FREE,
        fee_rule={**schedule.rule(), **vat.recorded()},
    )
    return invoice, lines


# --- writing the week ------------------------------------------------------------------


def invoices_generate_week(
    *,
    week_start: date,
    now: datetime | None = None,
    chunk_size: int = CHUNK_SIZE,
    progress: Callable[[ChunkProgress], None] | None = None,
) -> InvoiceGenerationResult:
    """Create the missing invoices of the billing week starting Monday ``week_start``.

    Guarantees:

    - at most one invoice per (driver, week): existing invoices are skipped, never
      changed, and the ``invoice_one_per_week`` constraint backs this up, so re-running
      (the beat task, the command, two workers at once) never bills twice;
    - invoice numbers are gapless: each chunk locks the invoice counter row, checks which
      drivers are already invoiced, takes exactly as many numbers as it inserts and
      commits rows and counter together;
    - a driver with no activity in the week gets no row; a week with activity but nothing
      to pay is a numberless ``free`` record so the driver page can show it;
    - each chunk commits on its own: if the run stops half way, the next run completes it;
    - no driver fails the run for the others: a week that cannot be invoiced (figures that
      do not fit, a write the database refuses) is recorded as an ``InvoiceRunFailure``
      and skipped (``result.failed``), and the rest of the week is invoiced.

    Newly issued invoices are handed to the collection backend after commit.
    """
    now = now or timezone.now()
    if not week_has_ended(week_start, now):
        raise ValueError(f"The week of {week_start} has not ended yet; it cannot be invoiced.")
    start, end = week_bounds(week_start)
    schedule = fee_schedule_for(week_start)
    # The VAT setting in force when the run issues the invoices (not the week's).
    vat = VatRule.current()
    result = InvoiceGenerationResult(week_start=week_start)

    result.subscriptions_created = subscriptions_ensure(now=now)
    subscription_stages_advance(now=now)

    driver_weeks = driver_weeks_collect(start=start, end=end)
    adjustments = late_payment_adjustments(start=start)
    for driver_id in adjustments:
        # A driver with nothing this week but a late record still gets the line billed.
        driver_weeks.setdefault(driver_id, DriverWeek(driver_id=driver_id))
    result.drivers_with_activity = len(driver_weeks)
    already = set(Invoice.objects.filter(week_start=week_start).values_list("driver_id", flat=True))
    pending = sorted(driver_id for driver_id in driver_weeks if driver_id not in already)
    result.already_invoiced = len(driver_weeks) - len(pending)

    trial_ends = dict(
        Subscription.objects.filter(driver__isnull=False).values_list("driver_id", "trial_ends_at")
    )
    partner_rates = {
        fee.account_id: PartnerFeeRate(fee.account_id, fee.account.name, fee.fee_per_job)
        for fee in PartnerJobFee.objects.filter(active=True).select_related("account")
    }

    def build(driver_id: int) -> tuple[Invoice, list[InvoiceLine]]:
        in_trial = week_in_trial(trial_ends_at=trial_ends.get(driver_id), week_start_at=start)
        invoice, lines = invoice_build(
            driver_week=driver_weeks[driver_id],
            in_trial=in_trial,
            schedule=schedule,
            partner_rates=partner_rates,
            adjustments=adjustments.get(driver_id, ()),
            vat=vat,
        )
        invoice_columns_check(invoice=invoice, lines=lines)
        return invoice, lines

    chunks = [pending[i : i + chunk_size] for i in range(0, len(pending), chunk_size)]
    done = 0
    for index, chunk in enumerate(chunks, start=1):
        _chunk_invoice(
            driver_ids=chunk,
            build=build,
            week_start=week_start,
            start=start,
            end=end,
            now=now,
            result=result,
        )
        done += len(chunk)
        if progress is not None:
            progress(
                ChunkProgress(
                    chunk=index,
                    chunks=len(chunks),
                    drivers_done=done,
                    drivers_total=len(pending),
                    created=result.created,
                )
            )
    invoice_run_failures_record(week_start=week_start, failed=result.failed)
    if result.created_billed:
        # By name: billing.tasks imports this module.
        task_enqueue_on_commit(
            "billing.tasks.invoices_collect_week", week_start=week_start.isoformat()
        )
    return result


def invoice_columns_check(*, invoice: Invoice, lines: Sequence[InvoiceLine]) -> None:
    """Raise ``ValidationError`` when an amount does not fit its column (max_digits), so a
    driver's absurd figures are refused here, in Python, on every database (SQLite would
    store them; PostgreSQL would fail the whole chunk with ``numeric field overflow``)."""
    for record in (invoice, *lines):
        for column in record._meta.concrete_fields:
            if isinstance(column, DecimalField):
                column.run_validators(getattr(record, column.attname))


def _chunk_invoice(
    *,
    driver_ids: Sequence[int],
    build: Callable[[int], tuple[Invoice, list[InvoiceLine]]],
    **write,
) -> None:
    """Invoice one chunk so that no driver can fail it for the others (issue 35): a driver
    whose week cannot be priced is left out and noted in ``result.failed``; if the chunk's
    write still fails in the database, each driver is written alone (each its own
    transaction and numbers, so the numbering stays gapless) and only those the database
    refuses are noted."""
    result: InvoiceGenerationResult = write["result"]
    built = []
    for driver_id in driver_ids:
        try:
            built.append(build(driver_id))
        except (ValidationError, ArithmeticError, ValueError) as error:
            result.failed[driver_id] = _failure_text(error)
    try:
        _chunk_write(built=built, **write)
    except DatabaseError:
        logger.warning("invoicing: a chunk of %s drivers failed; writing each alone", len(built))
        for invoice, _ in built:
            try:
                _chunk_write(built=[build(invoice.driver_id)], **write)
            except DatabaseError as error:
                result.failed[invoice.driver_id] = _failure_text(error)


def _failure_text(error: Exception) -> str:
    if isinstance(error, ValidationError):
        return "A figure does not fit the invoice: " + "; ".join(error.messages)
    return f"{type(error).__name__}: {error}".strip()[:2000]


def invoice_run_failures_record(*, week_start: date, failed: dict[int, str]) -> None:
    """Record each driver the run could not invoice, once per (driver, week) however often
    the run is retried, and log it for whoever watches the logs. Staff see them in the back
    office (billing admin, "Invoice run failures")."""
    for driver_id, error in sorted(failed.items()):
        logger.error(
            "invoicing: driver %s not invoiced for the week of %s: %s", driver_id, week_start, error
        )
        InvoiceRunFailure.objects.update_or_create(
            driver_id=driver_id,
            week_start=week_start,
            defaults={"error": error, "failed_at": timezone.now()},
        )


@transaction.atomic
def _chunk_write(
    *,
    built: list[tuple[Invoice, list[InvoiceLine]]],
    week_start: date,
    start: datetime,
    end: datetime,
    now: datetime,
    result: InvoiceGenerationResult,
) -> None:
    """Insert one chunk of invoices and lines, numbered under the counter lock."""
    sequence = numbering.sequence_lock(name=numbering.INVOICE)
    # Re-checked under the lock: a concurrent run that committed these drivers first
    # has released the lock by now, so what it wrote is visible here.
    taken = set(
        Invoice.objects.filter(
            week_start=week_start, driver_id__in=[inv.driver_id for inv, _ in built]
        ).values_list("driver_id", flat=True)
    )
    fresh = [(inv, lines) for inv, lines in built if inv.driver_id not in taken]
    billed = [inv for inv, _ in fresh if inv.status != InvoiceStatus.FREE]
    number = numbering.sequence_take(sequence=sequence, count=len(billed))
    for inv in billed:
        inv.number = number
        number += 1
    for inv, _ in fresh:
        inv.week_start = week_start
        inv.period_start = start
        inv.period_end = end
        inv.issued_at = now
    Invoice.objects.bulk_create([inv for inv, _ in fresh])
    lines = []
    for inv, invoice_lines in fresh:
        for line in invoice_lines:
            line.invoice_id = inv.pk
            lines.append(line)
    InvoiceLine.objects.bulk_create(lines)

    result.already_invoiced += len(built) - len(fresh)
    result.created_billed += len(billed)
    result.created_free += len(fresh) - len(billed)
    result.total_billed += sum((inv.total for inv in billed), ZERO)
    if billed:
        result.first_number = result.first_number or billed[0].number
        result.last_number = billed[-1].number
