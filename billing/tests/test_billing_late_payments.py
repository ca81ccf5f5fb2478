"""Late payment records (issue 17): a record that arrives after its week was invoiced is
billed as an adjustment line on the driver's next invoice, once; the earlier invoice never
changes."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from billing.models import FeeDecision, Invoice, InvoiceLine, InvoiceLineKind, InvoiceStatus
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, payment
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)  # Monday
NEXT = WEEK + timedelta(days=7)
AFTER_NEXT = NEXT + timedelta(days=7)


def generate(week: date):
    return invoices_generate_week(week_start=week, now=after(week))


def adjustments(driver, week: date) -> list[tuple[str, Decimal, date]]:
    return [
        (line.kind, line.amount, line.adjusts_week)
        for line in InvoiceLine.objects.filter(invoice__driver=driver, invoice__week_start=week)
        if line.adjusts_week is not None
    ]


@pytest.fixture
def driver():
    return BilledDriverFactory()


@pytest.fixture
def week_invoiced_under_the_threshold(driver):
    """450 GBP earned in WEEK: free (the fee applies once earnings pass 500)."""
    payment(driver=driver, amount="450.00", at=at_london(WEEK + timedelta(days=2)))
    generate(WEEK)
    invoice = Invoice.objects.get(driver=driver, week_start=WEEK)
    assert invoice.status == InvoiceStatus.FREE
    return invoice


def test_a_late_payment_is_billed_on_the_next_invoice(driver, week_invoiced_under_the_threshold):
    # given a card payment for WEEK that arrives after WEEK was invoiced
    payment(
        driver=driver,
        amount="100.00",
        at=at_london(WEEK + timedelta(days=4)),
        method="card_to_driver",
        processor_fee="1.75",
    )
    payment(driver=driver, amount="40.00", at=at_london(NEXT + timedelta(days=1)))

    # when the next week is invoiced
    generate(NEXT)

    # then its invoice carries what WEEK would have charged: the fee and the card fee
    assert sorted(adjustments(driver, NEXT)) == [
        (InvoiceLineKind.CARD_FEES_ADJUSTMENT, Decimal("1.75"), WEEK),
        (InvoiceLineKind.FEE_ADJUSTMENT, Decimal("20.00"), WEEK),
    ]
    invoice = Invoice.objects.get(driver=driver, week_start=NEXT)
    assert invoice.total == Decimal("21.75")
    assert invoice.subtotal_fee == Decimal("20.00")
    assert invoice.status == InvoiceStatus.ISSUED
    assert invoice.number is not None
    # and WEEK's own record is unchanged
    week_invoiced_under_the_threshold.refresh_from_db()
    assert week_invoiced_under_the_threshold.total == Decimal("0.00")


def test_a_late_payment_is_billed_once(driver, week_invoiced_under_the_threshold):
    payment(driver=driver, amount="100.00", at=at_london(WEEK + timedelta(days=4)))
    generate(NEXT)
    payment(driver=driver, amount="40.00", at=at_london(AFTER_NEXT + timedelta(days=1)))

    generate(AFTER_NEXT)

    assert adjustments(driver, AFTER_NEXT) == []
    assert Invoice.objects.get(driver=driver, week_start=AFTER_NEXT).total == Decimal("0.00")


def test_a_driver_with_nothing_the_next_week_still_gets_the_adjustment(
    driver, week_invoiced_under_the_threshold
):
    payment(driver=driver, amount="100.00", at=at_london(WEEK + timedelta(days=4)))

    generate(NEXT)

    assert adjustments(driver, NEXT) == [(InvoiceLineKind.FEE_ADJUSTMENT, Decimal("20.00"), WEEK)]


def test_records_that_were_on_time_are_not_billed_again(driver):
    payment(driver=driver, amount="600.00", at=at_london(WEEK + timedelta(days=2)))
    generate(WEEK)  # charged 20 on its own invoice
    payment(driver=driver, amount="40.00", at=at_london(NEXT + timedelta(days=1)))

    generate(NEXT)

    assert adjustments(driver, NEXT) == []


def test_a_week_in_the_trial_stays_free_of_the_fee():
    # given a driver whose trial covered WEEK, invoiced as a trial week
    trial_driver = BilledDriverFactory(approved_at=after(WEEK) - timedelta(days=10))
    payment(driver=trial_driver, amount="450.00", at=at_london(WEEK + timedelta(days=2)))
    generate(WEEK)
    invoice = Invoice.objects.get(driver=trial_driver, week_start=WEEK)
    assert invoice.fee_decision == FeeDecision.TRIAL
    # and a late card payment that takes the week past 500
    payment(
        driver=trial_driver,
        amount="100.00",
        at=at_london(WEEK + timedelta(days=4)),
        processor_fee="0.50",
    )

    generate(NEXT)

    # then only the pass-through card fee is billed, never the software fee
    assert adjustments(trial_driver, NEXT) == [
        (InvoiceLineKind.CARD_FEES_ADJUSTMENT, Decimal("0.50"), WEEK)
    ]


def test_a_lower_threshold_from_a_later_date_does_not_rejudge_earlier_weeks(
    driver, week_invoiced_under_the_threshold, settings
):
    """Finding (issue 24): "Lowering the weekly fee threshold re-judges past weeks
    (invoicing looks back 21 days with today's schedule): fees need dated schedules, and
    each invoice records the rule it applied." """
    assert week_invoiced_under_the_threshold.fee_rule["freeBelowGBP"] == "500.00"
    # given the threshold lowered to 300 GBP from the week after WEEK
    settings.FEE_SCHEDULES = [{"effectiveFrom": NEXT.isoformat(), "freeBelowGBP": "300.00"}]
    # and a late record for WEEK (now 460 GBP: over the new threshold, under the old one)
    payment(driver=driver, amount="10.00", at=at_london(WEEK + timedelta(days=4)))
    payment(driver=driver, amount="350.00", at=at_london(NEXT + timedelta(days=1)))

    generate(NEXT)

    # then WEEK is still judged by its own rule: no fee for it
    assert adjustments(driver, NEXT) == []
    # and NEXT, over 300 GBP, pays the fee under the new rule, which it records
    invoice = Invoice.objects.get(driver=driver, week_start=NEXT)
    assert invoice.subtotal_fee == Decimal("20.00")
    assert invoice.fee_rule == {
        "effectiveFrom": NEXT.isoformat(),
        "weeklyFeeGBP": "20.00",
        "freeBelowGBP": "300.00",
        "smsUnitGBP": "0.02",
        # and the VAT rule it was issued under (billing.fees.VatRule): not registered here
        "vatNumber": "",
        "vatRatePercent": "20",
        "feeIncludesVat": True,
    }
