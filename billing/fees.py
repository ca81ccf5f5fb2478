"""The driver fee rules of seed section 8: dated schedules, read from settings (defaults
in base.py).

A schedule applies to the billing weeks that start on or after its ``effective_from``,
until the next one: a change (a lower free-earnings threshold, a new weekly fee) is a new
entry in ``FEE_SCHEDULES`` from a date, so the weeks before it are judged, and re-judged
when late payment records arrive, by the rule that was in force for them. Each invoice
records the rule it applied (``Invoice.fee_rule``, :meth:`FeeSchedule.rule`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings

from core.localtime import local_today

# The base schedule (the scalar settings) applies from the start of time.
BASE_EFFECTIVE_FROM = dt.date(2000, 1, 3)


@dataclass(frozen=True)
class FeeSchedule:
    weekly_fee: Decimal
    free_earnings_threshold: Decimal
    sms_unit: Decimal
    driver_trial_days: int
    partner_trial_days: int
    collection_due_days: int
    effective_from: dt.date = BASE_EFFECTIVE_FROM

    def rule(self) -> dict[str, str]:
        """What an invoice records of the rule it applied (strings: exact decimals)."""
        return {
            "effectiveFrom": self.effective_from.isoformat(),
            "weeklyFeeGBP": str(self.weekly_fee),
            "freeBelowGBP": str(self.free_earnings_threshold),
            "smsUnitGBP": str(self.sms_unit),
        }


def fee_schedules() -> list[FeeSchedule]:
    """Every schedule, oldest first: the base one from the scalar settings, then each
    ``FEE_SCHEDULES`` entry (``effectiveFrom`` and the figures it changes)."""
    base = FeeSchedule(
        weekly_fee=Decimal(settings.SUBSCRIPTION_WEEKLY_FEE_GBP),
        free_earnings_threshold=Decimal(settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP),
        sms_unit=Decimal(settings.SMS_PASS_THROUGH_GBP),
        driver_trial_days=int(settings.DRIVER_TRIAL_DAYS),
        partner_trial_days=int(settings.PARTNER_TRIAL_DAYS),
        collection_due_days=int(settings.BILLING_PAYMENT_DUE_DAYS),
    )
    schedules = [base]
    for entry in sorted(settings.FEE_SCHEDULES, key=lambda e: e["effectiveFrom"]):
        previous = schedules[-1]
        schedules.append(
            FeeSchedule(
                weekly_fee=Decimal(str(entry.get("weeklyFeeGBP", previous.weekly_fee))),
                free_earnings_threshold=Decimal(
                    str(entry.get("freeBelowGBP", previous.free_earnings_threshold))
                ),
                sms_unit=Decimal(str(entry.get("smsUnitGBP", previous.sms_unit))),
                driver_trial_days=previous.driver_trial_days,
                partner_trial_days=previous.partner_trial_days,
                collection_due_days=previous.collection_due_days,
                effective_from=dt.date.fromisoformat(str(entry["effectiveFrom"])),
            )
        )
    return schedules


def fee_schedule_for(day: dt.date) -> FeeSchedule:
    """The schedule in force on ``day`` (for a billing week: its Monday)."""
    in_force = [s for s in fee_schedules() if s.effective_from <= day]
    return in_force[-1] if in_force else fee_schedules()[0]


def fee_schedule_current() -> FeeSchedule:
    """Seed 8.2, 8.3, 8.5: 20 GBP a week above 500 GBP of earnings, 0.02 GBP per SMS,
    90-day driver trial, 30-day partner trial; as in force today (UK date)."""
    return fee_schedule_for(local_today())
