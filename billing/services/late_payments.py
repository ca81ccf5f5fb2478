"""Payment records that arrive after their week was invoiced (issue 17): billed as
adjustment lines on the driver's next invoice."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Q, Sum

from billing.fees import fee_schedule_for
from billing.models import FeeDecision, Invoice, InvoiceLine, InvoiceLineKind, Subscription
from billing.services.driver_weeks import CHUNK_SIZE, ZERO, payment_totals, week_in_trial
from billing.weeks import week_bounds, week_start_of
from bookings.models import PaymentRecord
from core.localtime import local_today
from core.money import gbp

# Fee and card-fee lines of a week's own invoice, and the adjustment lines that bill what
# arrived for that week later.
FEE_KINDS = (InvoiceLineKind.SUBSCRIPTION, InvoiceLineKind.FEE_ADJUSTMENT)
CARD_KINDS = (InvoiceLineKind.CARD_FEES, InvoiceLineKind.CARD_FEES_ADJUSTMENT)


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
            for row in payment_totals(start=week_from, end=week_to, driver_ids=driver_ids)
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
        if row["kind"] in FEE_KINDS:
            fee += row["amount"]
        elif row["kind"] in CARD_KINDS:
            card += row["amount"]
        billed[row["invoice__driver_id"]] = (fee, card)
    return billed
