"""Weekly driver invoices (seed 1.7 and 8): a flat software fee instead of commission.

Generation is set-based: one GROUP BY query per source (payment records, SMS log, partner
jobs) for the whole week, merged in memory, then written with ``bulk_create`` in chunks.
There is no query per driver, so 100,000 drivers cost a handful of queries per chunk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction
from django.db.models import Case, Count, DecimalField, F, Q, Sum, Value, When
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
    SmsUsage,
    Subscription,
)
from billing.services.subscriptions import subscription_stages_advance, subscriptions_ensure
from billing.weeks import week_bounds, week_has_ended, week_start_of
from bookings.models import BookingEvent, BookingStatus, PaymentRecord
from core.localtime import local_today
from core.money import gbp
from core.task_queue import task_enqueue_on_commit

logger = logging.getLogger(__name__)

CENT = Decimal("0.01")
ZERO = Decimal("0.00")
CHUNK_SIZE = 5000


@dataclass
class DriverWeek:
    """Everything a driver's week adds up to, before it becomes an invoice."""

    driver_id: int
    earnings: Decimal = ZERO
    card_fees: Decimal = ZERO
    sms_count: int = 0
    # partner account id -> completed jobs from that partner this week
    partner_jobs: dict[int, int] = field(default_factory=dict)


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


# --- reading the week (selectors) --------------------------------------------------------


def _payment_totals(*, start: datetime, end: datetime, driver_ids=None):
    """Per driver: earnings (payments minus refunds) and card fees of the payment records
    that occurred in [start, end), one GROUP BY."""

    money = DecimalField(max_digits=14, decimal_places=2)
    records = PaymentRecord.objects.filter(
        driver__isnull=False, occurred_at__gte=start, occurred_at__lt=end
    )
    if driver_ids is not None:
        records = records.filter(driver_id__in=driver_ids)
    return (
        records.order_by()  # the model's default ordering would otherwise join the GROUP BY
        .values("driver_id")
        .annotate(
            earnings=Sum(
                Case(
                    When(kind=PaymentRecord.Kind.PAYMENT, then=F("amount")),
                    When(kind=PaymentRecord.Kind.REFUND, then=-F("amount")),
                    default=Value(ZERO),
                    output_field=money,
                ),
                output_field=money,
            ),
            card_fees=Sum("processor_fee", output_field=money),
        )
    )


def driver_weeks_collect(
    *, start: datetime, end: datetime, driver_id: int | None = None
) -> dict[int, DriverWeek]:
    """Aggregate every driver's activity in [start, end) with one GROUP BY per source
    (only ``driver_id``'s when given: the driver's own week so far).

    Earnings are payments minus refunds by ``occurred_at`` from the immutable payment
    records (seed 1.3, 6.3), never quoted fares. Card fees are the processor fees on
    those records. SMS come from billing's own SmsUsage rows (recorded by dispatch); jobs from named partner
    platforms from completed bookings whose completion event falls in the week.
    """

    weeks: dict[int, DriverWeek] = {}

    def week_of(driver_id: int) -> DriverWeek:
        if driver_id not in weeks:
            weeks[driver_id] = DriverWeek(driver_id=driver_id)
        return weeks[driver_id]

    one_driver = {} if driver_id is None else {"driver_id": driver_id}
    payments = _payment_totals(
        start=start, end=end, driver_ids=None if driver_id is None else [driver_id]
    )
    for row in payments.iterator(chunk_size=CHUNK_SIZE):
        driver_week = week_of(row["driver_id"])
        driver_week.earnings = gbp(row["earnings"] or ZERO)
        driver_week.card_fees = gbp(row["card_fees"] or ZERO)

    sms = (
        SmsUsage.objects.filter(occurred_at__gte=start, occurred_at__lt=end, **one_driver)
        .order_by()
        .values("driver_id")
        .annotate(sms=Count("pk"))
    )
    for row in sms.iterator(chunk_size=CHUNK_SIZE):
        week_of(row["driver_id"]).sms_count = row["sms"]

    fee_accounts = list(
        PartnerJobFee.objects.filter(active=True).values_list("account_id", flat=True)
    )
    if fee_accounts:
        jobs = (
            BookingEvent.objects.filter(
                to_status=BookingStatus.COMPLETED,
                created_at__gte=start,
                created_at__lt=end,
                booking__status=BookingStatus.COMPLETED,
                booking__driver__isnull=False,
                booking__account_id__in=fee_accounts,
                **{f"booking__{k}": v for k, v in one_driver.items()},
            )
            .order_by()
            .values("booking__driver_id", "booking__account_id")
            .annotate(jobs=Count("booking_id", distinct=True))
        )
        for row in jobs.iterator(chunk_size=CHUNK_SIZE):
            week_of(row["booking__driver_id"]).partner_jobs[row["booking__account_id"]] = row[
                "jobs"
            ]
    return weeks


def week_in_trial(*, trial_ends_at: datetime | None, week_start_at: datetime) -> bool:
    """Seed 8.2: a week is billable only if the whole week lies after the trial, so the
    week in which the trial ends is still free. No trial end means never approved."""
    return trial_ends_at is None or week_start_at < trial_ends_at


# --- late payment records (issue 17) ------------------------------------------------------

# Fee and card-fee lines of a week's own invoice, and the adjustment lines that bill what
# arrived for that week later.
_FEE_KINDS = (InvoiceLineKind.SUBSCRIPTION, InvoiceLineKind.FEE_ADJUSTMENT)
_CARD_KINDS = (InvoiceLineKind.CARD_FEES, InvoiceLineKind.CARD_FEES_ADJUSTMENT)


def late_payment_adjustments(*, start: datetime) -> dict[int, list[InvoiceLine]]:
    """Adjustment lines for the invoices of the week that starts at ``start``: what the
    driver's earlier weeks would have charged more had every payment record been there
    when they were invoiced. {driver id: unsaved lines}.

    A payment record that arrives after its week was invoiced (a settlement sent late, a
    record entered in the back office) changes that week's earnings and card fees, but the
    invoice is immutable. Each earlier week touched by a record that arrived within
    ``BILLING_LATE_RECORDS_LOOKBACK_DAYS`` is priced again from all its records (the fee
    rule of ``invoice_build``; a week that was in the trial stays free) and compared with
    what was billed for it so far: its own invoice's fee and card-fee lines plus any
    adjustment lines for it. A positive difference is billed here, once: the next run finds
    it billed. A difference in the driver's favour (a late refund) is not netted here; the
    back office issues a credit note. Weeks never invoiced (no run yet) are left alone:
    their own run will count the records. Each week is judged by the fee schedule in force
    for it (``billing.fees.fee_schedule_for``), never by today's: lowering the threshold
    does not re-judge weeks before the change.
    """

    lookback = timedelta(days=settings.BILLING_LATE_RECORDS_LOOKBACK_DAYS)
    late = (
        PaymentRecord.objects.filter(
            driver__isnull=False, occurred_at__lt=start, created_at__gte=start - lookback
        )
        .order_by()
        .values_list("driver_id", "occurred_at")
    )
    drivers_by_week: dict[date, set[int]] = {}
    for driver_id, occurred_at in late.iterator(chunk_size=CHUNK_SIZE):
        drivers_by_week.setdefault(week_start_of(local_today(occurred_at)), set()).add(driver_id)
    run_weeks = set(
        Invoice.objects.filter(week_start__in=drivers_by_week)
        .values_list("week_start", flat=True)
        .distinct()
    )
    adjustments: dict[int, list[InvoiceLine]] = {}
    for week in sorted(run_weeks):
        driver_ids = drivers_by_week[week]
        week_from, week_to = week_bounds(week)
        totals = {
            row["driver_id"]: row
            for row in _payment_totals(start=week_from, end=week_to, driver_ids=driver_ids)
        }
        trial_weeks = set(
            Invoice.objects.filter(
                week_start=week, driver_id__in=driver_ids, fee_decision=FeeDecision.TRIAL
            ).values_list("driver_id", flat=True)
        )
        invoiced = set(
            Invoice.objects.filter(week_start=week, driver_id__in=driver_ids).values_list(
                "driver_id", flat=True
            )
        )
        trial_ends = dict(
            Subscription.objects.filter(driver_id__in=driver_ids).values_list(
                "driver_id", "trial_ends_at"
            )
        )
        billed = _billed_for_week(week=week, driver_ids=driver_ids)
        schedule = fee_schedule_for(week)
        for driver_id in sorted(driver_ids):
            row = totals.get(driver_id)
            earnings = gbp(row["earnings"] or ZERO) if row else ZERO
            card_fees = gbp(row["card_fees"] or ZERO) if row else ZERO
            if driver_id in invoiced:
                in_trial = driver_id in trial_weeks
            else:
                in_trial = week_in_trial(
                    trial_ends_at=trial_ends.get(driver_id), week_start_at=week_from
                )
            charged = not in_trial and earnings > schedule.free_earnings_threshold
            fee_due = gbp(schedule.weekly_fee) if charged else ZERO
            billed_fee, billed_card = billed.get(driver_id, (ZERO, ZERO))
            label = f"{week:%d %b %Y}"
            lines = adjustments.setdefault(driver_id, [])
            if fee_due > billed_fee:
                lines.append(
                    InvoiceLine(
                        kind=InvoiceLineKind.FEE_ADJUSTMENT,
                        description=f"Late payment records, week of {label}: weekly "
                        f"subscription (earnings now £{earnings})",
                        quantity=Decimal(1),
                        unit_amount=fee_due - billed_fee,
                        amount=fee_due - billed_fee,
                        adjusts_week=week,
                    )
                )
            if card_fees > billed_card:
                lines.append(
                    InvoiceLine(
                        kind=InvoiceLineKind.CARD_FEES_ADJUSTMENT,
                        description=f"Late payment records, week of {label}: card "
                        "processing fees (pass-through)",
                        quantity=Decimal(1),
                        unit_amount=card_fees - billed_card,
                        amount=card_fees - billed_card,
                        adjusts_week=week,
                    )
                )
    return {driver_id: lines for driver_id, lines in adjustments.items() if lines}


def _billed_for_week(*, week: date, driver_ids) -> dict[int, tuple[Decimal, Decimal]]:
    """{driver id: (fee billed, card fees billed)} for ``week``: its own invoice's lines
    and the adjustment lines for it on later invoices."""
    own = Q(
        invoice__week_start=week, kind__in=[InvoiceLineKind.SUBSCRIPTION, InvoiceLineKind.CARD_FEES]
    )
    later = Q(adjusts_week=week)
    rows = (
        InvoiceLine.objects.filter(own | later, invoice__driver_id__in=driver_ids)
        .order_by()
        .values("invoice__driver_id", "kind")
        .annotate(amount=Sum("amount"))
    )
    billed: dict[int, tuple[Decimal, Decimal]] = {}
    for row in rows:
        fee, card = billed.get(row["invoice__driver_id"], (ZERO, ZERO))
        if row["kind"] in _FEE_KINDS:
            fee += row["amount"]
        elif row["kind"] in _CARD_KINDS:
            card += row["amount"]
        billed[row["invoice__driver_id"]] = (fee, card)
    return billed


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
    fee = sum((ln.amount for ln in lines if ln.kind in _FEE_KINDS), ZERO)
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
