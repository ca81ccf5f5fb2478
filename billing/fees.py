"""The driver fee rules of seed section 8, read from settings with the stated defaults."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings


@dataclass(frozen=True)
class FeeSchedule:
    weekly_fee: Decimal
    free_earnings_threshold: Decimal
    sms_unit: Decimal
    driver_trial_days: int
    partner_trial_days: int
    collection_due_days: int


def fee_schedule_current() -> FeeSchedule:
    """Seed 8.2, 8.3, 8.5: 20 GBP a week above 500 GBP of earnings, 0.02 GBP per SMS,
    90-day driver trial, 30-day partner trial."""
    return FeeSchedule(
        weekly_fee=Decimal(getattr(settings, "SUBSCRIPTION_WEEKLY_FEE_GBP", Decimal("20.00"))),
        free_earnings_threshold=Decimal(
            getattr(settings, "SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP", Decimal("500.00"))
        ),
        sms_unit=Decimal(getattr(settings, "SMS_PASS_THROUGH_GBP", Decimal("0.02"))),
        driver_trial_days=int(getattr(settings, "DRIVER_TRIAL_DAYS", 90)),
        partner_trial_days=int(getattr(settings, "PARTNER_TRIAL_DAYS", 30)),
        collection_due_days=int(getattr(settings, "BILLING_PAYMENT_DUE_DAYS", 7)),
    )
