"""The fee schedule (seed 8.2, 8.3, 8.5): read from settings, whose defaults
(config/settings/domains/billing.py) are the seed's figures."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from decimal import Decimal

import pytest

from billing.fees import (
    BASE_EFFECTIVE_FROM,
    FeeSchedule,
    VatRule,
    VatSplit,
    fee_schedule_current,
    fee_schedule_for,
    fee_schedules,
)


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


# --- dated schedules (FEE_SCHEDULES) -------------------------------------------------------

LATER = dt.date(2026, 6, 1)
LATEST = dt.date(2027, 1, 4)


def test_later_schedules_apply_from_their_date_in_date_order_whatever_the_listing(settings):
    # Given two later schedules listed newest first, each changing some figures only
    settings.FEE_SCHEDULES = [
        {"effectiveFrom": LATEST.isoformat(), "smsUnitGBP": "0.05"},
        {"effectiveFrom": LATER.isoformat(), "weeklyFeeGBP": "22.50", "freeBelowGBP": 400},
    ]

    schedules = fee_schedules()

    # Then the base comes first, then each from its date, carrying what it does not change
    assert [s.effective_from for s in schedules] == [BASE_EFFECTIVE_FROM, LATER, LATEST]
    assert schedules[1] == replace(
        schedules[0],
        weekly_fee=Decimal("22.50"),
        free_earnings_threshold=Decimal("400"),
        effective_from=LATER,
    )
    assert schedules[2] == replace(schedules[1], sms_unit=Decimal("0.05"), effective_from=LATEST)
    # and the latest in force is the one that applies
    assert fee_schedule_for(LATEST + dt.timedelta(days=7)) == schedules[2]


def test_the_schedule_in_force_changes_on_its_first_day(settings):
    settings.FEE_SCHEDULES = [{"effectiveFrom": LATER.isoformat(), "weeklyFeeGBP": "22.50"}]

    assert fee_schedule_for(LATER - dt.timedelta(days=1)).weekly_fee == Decimal("20.00")
    assert fee_schedule_for(LATER).weekly_fee == Decimal("22.50")
    assert fee_schedule_for(LATER).effective_from == LATER


def test_a_week_before_every_schedule_falls_back_to_the_base_one(settings):
    settings.FEE_SCHEDULES = [{"effectiveFrom": LATER.isoformat(), "weeklyFeeGBP": "22.50"}]

    assert fee_schedule_for(BASE_EFFECTIVE_FROM - dt.timedelta(days=7)).effective_from == (
        BASE_EFFECTIVE_FROM
    )


def test_an_invoice_records_the_schedule_as_exact_strings(settings):
    settings.FEE_SCHEDULES = [
        {
            "effectiveFrom": LATER.isoformat(),
            "weeklyFeeGBP": "22.50",
            "freeBelowGBP": "400.00",
            "smsUnitGBP": "0.05",
        }
    ]

    assert fee_schedule_for(LATER).rule() == {
        "effectiveFrom": "2026-06-01",
        "weeklyFeeGBP": "22.50",
        "freeBelowGBP": "400.00",
        "smsUnitGBP": "0.05",
    }


# --- the VAT rule (issue 36) ---------------------------------------------------------------


def test_the_vat_rule_is_read_from_the_settings(settings):
    settings.VAT_NUMBER = "GB123456789"
    settings.VAT_RATE_PERCENT = 17.5
    settings.SUBSCRIPTION_FEE_INCLUDES_VAT = 0

    assert VatRule.current() == VatRule(
        vat_number="GB123456789", rate_percent=Decimal("17.5"), fee_includes_vat=False
    )
    assert VatRule.current().fee_includes_vat is False


def test_an_invoice_reads_back_the_vat_rule_it_recorded(settings):
    rule = VatRule(vat_number="GB123456789", rate_percent=Decimal("17.5"), fee_includes_vat=False)
    # Given the settings changed since the invoice was issued
    settings.VAT_NUMBER = ""
    settings.VAT_RATE_PERCENT = Decimal("20")
    settings.SUBSCRIPTION_FEE_INCLUDES_VAT = True

    assert rule.recorded() == {
        "vatNumber": "GB123456789",
        "vatRatePercent": "17.5",
        "feeIncludesVat": False,
    }
    assert VatRule.of_invoice({"effectiveFrom": "2026-06-01", **rule.recorded()}) == rule


def test_a_recorded_rule_missing_its_number_and_rate_charges_no_vat():
    rule = VatRule.of_invoice({"feeIncludesVat": False})

    assert rule == VatRule(vat_number="", rate_percent=Decimal("0"), fee_includes_vat=False)
    assert rule.split(Decimal("20.00")) == VatSplit(
        net=Decimal("20.00"), vat=Decimal("0.00"), gross=Decimal("20.00")
    )


def test_an_invoice_from_before_the_vat_rule_reads_todays_number_and_rate(settings):
    settings.VAT_NUMBER = "GB123456789"
    settings.VAT_RATE_PERCENT = 17.5
    settings.SUBSCRIPTION_FEE_INCLUDES_VAT = False

    assert VatRule.of_invoice({"effectiveFrom": "2026-06-01"}) == VatRule(
        vat_number="GB123456789", rate_percent=Decimal("17.5"), fee_includes_vat=True
    )


@pytest.mark.parametrize(
    ("number", "included", "rate", "adds_vat"),
    [
        ("GB123456789", False, Decimal("20"), True),
        ("GB123456789", True, Decimal("20"), False),
        ("", False, Decimal("0"), False),
        ("", True, Decimal("0"), False),
    ],
)
def test_only_a_registered_supplier_with_the_fee_set_net_adds_vat(number, included, rate, adds_vat):
    rule = VatRule(vat_number=number, rate_percent=Decimal("20"), fee_includes_vat=included)

    assert rule.rate == rate
    assert rule.adds_vat is adds_vat
