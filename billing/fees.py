"""The driver fee rules of seed section 8, read from settings (defaults in base.py)."""

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
        weekly_fee=Decimal(settings.SUBSCRIPTION_WEEKLY_FEE_GBP),
        free_earnings_threshold=Decimal(settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP),
        sms_unit=Decimal(settings.SMS_PASS_THROUGH_GBP),
        driver_trial_days=int(settings.DRIVER_TRIAL_DAYS),
        partner_trial_days=int(settings.PARTNER_TRIAL_DAYS),
        collection_due_days=int(settings.BILLING_PAYMENT_DUE_DAYS),
    )
