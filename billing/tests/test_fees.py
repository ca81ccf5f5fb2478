"""The fee schedule (seed 8.2, 8.3, 8.5): read from settings, whose defaults
(config/settings/domains/billing.py) are the seed's figures."""

from __future__ import annotations

from decimal import Decimal

from billing.fees import FeeSchedule, fee_schedule_current


def test_the_default_settings_are_the_seed_figures():
    # Given the defaults of config/settings/domains/billing.py (the one home of billing defaults)
    # Then 20 GBP a week above 500 GBP, 0.02 per SMS, 90 and 30 trial days, 7 days to pay
    assert fee_schedule_current() == FeeSchedule(
        weekly_fee=Decimal("20.00"),
        free_earnings_threshold=Decimal("500.00"),
        sms_unit=Decimal("0.02"),
        driver_trial_days=90,
        partner_trial_days=30,
        collection_due_days=7,
    )


def test_each_figure_comes_from_its_own_setting(settings):
    # Given a deployment with its own figures (strings and numbers, as env files give them)
    settings.SUBSCRIPTION_WEEKLY_FEE_GBP = "25.50"
    settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP = Decimal("750.00")
    settings.SMS_PASS_THROUGH_GBP = "0.03"
    settings.DRIVER_TRIAL_DAYS = "60"
    settings.PARTNER_TRIAL_DAYS = 14
    settings.BILLING_PAYMENT_DUE_DAYS = 10

    schedule = fee_schedule_current()

    # Then each lands where it belongs, as Decimal money and whole days
    assert schedule == FeeSchedule(
        weekly_fee=Decimal("25.50"),
        free_earnings_threshold=Decimal("750.00"),
        sms_unit=Decimal("0.03"),
        driver_trial_days=60,
        partner_trial_days=14,
        collection_due_days=10,
    )
    assert isinstance(schedule.weekly_fee, Decimal)
    assert isinstance(schedule.driver_trial_days, int)
