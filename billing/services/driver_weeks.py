"""A driver's week as billing reads it (seed 8): earnings, card fees, SMS job cards and
partner jobs, aggregated for every driver at once with one GROUP BY per source, and
whether the week lies in the trial. Read by the weekly run, the late-record adjustments
and the driver's week-so-far estimate."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal

from django.db.models import Case, Count, DecimalField, F, Sum, Value, When

from billing.models import PartnerJobFee, SmsUsage
from bookings.models import BookingEvent, BookingStatus, PaymentRecord
from core.money import gbp

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


# --- reading the week (selectors) --------------------------------------------------------


def payment_totals(*, start: datetime, end: datetime, driver_ids=None):
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
    payments = payment_totals(
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
