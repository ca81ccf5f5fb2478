"""Weekly driver invoices: the fee rules of seed section 8, pass-through lines, idempotency
and gapless numbering."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction

from billing.models import (
    FeeDecision,
    ImmutableBillingRecordError,
    Invoice,
    InvoiceLine,
    InvoiceLineKind,
    InvoiceStatus,
    Subscription,
)
from billing.services.invoicing import invoices_generate_week
from billing.services.subscriptions import subscription_get_or_create_for_driver
from billing.tests.factories import PartnerJobFeeFactory
from billing.tests.records import after, at_london, completed_job, notification, payment
from bookings.models import BookingStatus, PaymentRecord
from drivers.tests.factories import BilledDriverFactory
from partners.tests.factories import AccountFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)  # Monday
MIDWEEK = at_london(date(2026, 6, 3))


def generate(week: date = WEEK, **kwargs):
    return invoices_generate_week(week_start=week, now=after(week), **kwargs)


def invoice_of(driver, week: date = WEEK) -> Invoice:
    return Invoice.objects.get(driver=driver, week_start=week)


def line_kinds(invoice: Invoice) -> dict[str, Decimal]:
    return {line.kind: line.amount for line in invoice.lines.all()}


# --- the software fee ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("earnings", "decision", "total"),
    [
        ("499.99", FeeDecision.UNDER_THRESHOLD, Decimal("0.00")),
        ("500.00", FeeDecision.UNDER_THRESHOLD, Decimal("0.00")),  # exactly 500 is free
        ("500.01", FeeDecision.CHARGED, Decimal("20.00")),
    ],
)
def test_fee_applies_only_once_earnings_pass_500(earnings, decision, total):
    # Given a driver past the trial whose week earned `earnings` in cash
    driver = BilledDriverFactory()
    payment(driver=driver, amount=earnings, at=MIDWEEK)

    # When the week is invoiced
    generate()

    # Then the 20 GBP fee is charged only above 500 GBP (seed 8.3)
    invoice = invoice_of(driver)
    assert invoice.earnings == Decimal(earnings)
    assert invoice.fee_decision == decision
    assert invoice.total == total
    if total:
        assert line_kinds(invoice) == {InvoiceLineKind.SUBSCRIPTION: Decimal("20.00")}
        assert invoice.number is not None
    else:
        assert invoice.status == InvoiceStatus.FREE
        assert invoice.number is None
        assert not invoice.lines.exists()


def test_earnings_are_payments_minus_refunds_across_bookings():
    # Given 300 + 250 of payments and a 60 refund (net 490) in the week
    driver = BilledDriverFactory()
    payment(driver=driver, amount="300.00", at=MIDWEEK)
    paid = payment(driver=driver, amount="250.00", at=MIDWEEK)
    payment(
        driver=driver,
        amount="60.00",
        at=MIDWEEK,
        kind=PaymentRecord.Kind.REFUND,
        booking=paid.booking,
    )

    # When invoiced
    generate()

    # Then the refund brings the week under the threshold: free
    invoice = invoice_of(driver)
    assert invoice.earnings == Decimal("490.00")
    assert invoice.status == InvoiceStatus.FREE


def test_earnings_come_from_payment_records_not_quoted_fares():
    # Given a completed 900 GBP booking whose driver was paid only 100
    driver = BilledDriverFactory()
    record = payment(driver=driver, amount="100.00", at=MIDWEEK)
    type(record.booking).objects.filter(pk=record.booking_id).update(fare=Decimal("900.00"))

    # When invoiced
    generate()

    # Then the fare is irrelevant: earnings are the settled 100
    assert invoice_of(driver).earnings == Decimal("100.00")
    assert invoice_of(driver).status == InvoiceStatus.FREE


def test_trial_weeks_are_free_even_above_the_threshold():
    # Given a driver approved 30 days before the week (inside the 90-day trial) earning 900
    driver = BilledDriverFactory(approved_at=at_london(WEEK - timedelta(days=30)), stage="trial")
    payment(driver=driver, amount="900.00", at=MIDWEEK)

    # When invoiced
    generate()

    # Then the week is free on account of the trial and the subscription records the trial
    invoice = invoice_of(driver)
    assert invoice.fee_decision == FeeDecision.TRIAL
    assert invoice.total == Decimal("0.00")
    assert invoice.status == InvoiceStatus.FREE
    subscription = Subscription.objects.get(driver=driver)
    assert subscription.stage == "trial"
    assert subscription.trial_ends_at == driver.approved_at + timedelta(days=90)


def test_week_in_which_the_trial_ends_is_still_free_and_the_next_is_billed():
    # Given a trial that ends on the Wednesday of WEEK
    approved = at_london(WEEK + timedelta(days=2)) - timedelta(days=90)
    driver = BilledDriverFactory(approved_at=approved, stage="trial")
    payment(driver=driver, amount="800.00", at=MIDWEEK)
    next_week = WEEK + timedelta(days=7)
    payment(driver=driver, amount="800.00", at=at_london(next_week + timedelta(days=1)))

    # When both weeks are invoiced
    generate(WEEK)
    generate(next_week)

    # Then the week the trial ends in is free, the first whole week after it is billed,
    # and the subscription has moved on to the billed stage
    assert invoice_of(driver, WEEK).fee_decision == FeeDecision.TRIAL
    assert invoice_of(driver, next_week).fee_decision == FeeDecision.CHARGED
    assert Subscription.objects.get(driver=driver).stage == "billed"
    driver.refresh_from_db()
    assert driver.stage == "billed"


def test_a_trial_ending_exactly_at_monday_midnight_leaves_that_week_billable():
    # Given a trial that ends at 00:00 on the Monday that starts WEEK, London time (BST:
    # Sunday 23:00 UTC). billing/README.md: a week is billable only if the trial had ended
    # by the week's start; it had, at that very instant. The week before is the one the
    # trial ended in, so it stays free.
    trial_end = at_london(WEEK, 0)
    driver = BilledDriverFactory(approved_at=trial_end - timedelta(days=90), stage="trial")
    # The subscription is the one home of the trial's end; pin it to the very instant.
    subscription_get_or_create_for_driver(driver=driver)
    Subscription.objects.filter(driver=driver).update(trial_ends_at=trial_end, stage="trial")
    week_before = WEEK - timedelta(days=7)
    payment(driver=driver, amount="800.00", at=at_london(week_before + timedelta(days=2)))
    payment(driver=driver, amount="800.00", at=MIDWEEK)

    # When both weeks are invoiced
    generate(week_before)
    generate(WEEK)

    # Then the last week of the trial is free and the first week after it is charged
    assert Subscription.objects.get(driver=driver).trial_ends_at == trial_end
    assert invoice_of(driver, week_before).fee_decision == FeeDecision.TRIAL
    assert invoice_of(driver, WEEK).fee_decision == FeeDecision.CHARGED
    assert invoice_of(driver, WEEK).total == Decimal("20.00")


# --- pass-through lines ------------------------------------------------------------------


def test_sms_are_passed_through_at_2p_each_and_whatsapp_is_free():
    # Given 3 SMS sent, 1 failed SMS and 4 WhatsApp messages in the week, small earnings
    driver = BilledDriverFactory()
    payment(driver=driver, amount="120.00", at=MIDWEEK)
    for _ in range(3):
        notification(driver=driver, channel="sms", at=MIDWEEK)
    notification(driver=driver, channel="sms", at=MIDWEEK, status="failed")
    for _ in range(4):
        notification(driver=driver, channel="whatsapp", at=MIDWEEK)

    # When invoiced
    generate()

    # Then one SMS line of 3 x 0.02 and no fee (under the threshold)
    invoice = invoice_of(driver)
    (line,) = invoice.lines.all()
    assert (line.kind, line.quantity, line.amount) == ("sms", Decimal("3"), Decimal("0.06"))
    assert invoice.total == Decimal("0.06")
    assert invoice.fee_decision == FeeDecision.UNDER_THRESHOLD
    assert invoice.status != InvoiceStatus.FREE


def test_pass_through_lines_apply_during_the_trial():
    # Given a driver in the trial with 2 SMS and card fees
    driver = BilledDriverFactory(approved_at=at_london(WEEK - timedelta(days=10)), stage="trial")
    payment(driver=driver, amount="700.00", at=MIDWEEK, method="card", processor_fee="1.25")
    notification(driver=driver, channel="sms", at=MIDWEEK)
    notification(driver=driver, channel="sms", at=MIDWEEK)

    # When invoiced
    generate()

    # Then the fee is waived but the third-party costs are passed through (seed 8.5)
    invoice = invoice_of(driver)
    assert invoice.fee_decision == FeeDecision.TRIAL
    assert line_kinds(invoice) == {"sms": Decimal("0.04"), "card_fees": Decimal("1.25")}
    assert invoice.total == Decimal("1.29")


def test_card_processing_fees_are_summed_from_payment_records():
    # Given card payments carrying processor fees and a cash payment carrying none
    driver = BilledDriverFactory()
    payment(driver=driver, amount="400.00", at=MIDWEEK, method="card", processor_fee="5.60")
    payment(driver=driver, amount="200.00", at=MIDWEEK, method="card", processor_fee="2.80")
    payment(driver=driver, amount="50.00", at=MIDWEEK, method="cash_to_driver")

    # When invoiced
    generate()

    # Then fee + card fee line: 20.00 + 8.40
    invoice = invoice_of(driver)
    assert invoice.earnings == Decimal("650.00")
    assert line_kinds(invoice) == {"subscription": Decimal("20.00"), "card_fees": Decimal("8.40")}
    assert invoice.subtotal_fee == Decimal("20.00")
    assert invoice.subtotal_pass_through == Decimal("8.40")
    assert invoice.total == Decimal("28.40")


def test_cash_and_whatsapp_only_week_adds_nothing():
    # Given cash-only earnings under the threshold and WhatsApp job cards
    driver = BilledDriverFactory()
    payment(driver=driver, amount="350.00", at=MIDWEEK)
    notification(driver=driver, channel="whatsapp", at=MIDWEEK)

    # When invoiced
    generate()

    # Then the week is a free record with no lines
    invoice = invoice_of(driver)
    assert invoice.status == InvoiceStatus.FREE
    assert invoice.total == Decimal("0.00")


def test_partner_job_fees_only_for_completed_jobs_of_the_named_partner():
    # Given a partner named in the back office as charging 1.50 per job, another partner
    # that charges nothing, and an inactive fee row
    charging = AccountFactory(name="RideHub")
    PartnerJobFeeFactory(account=charging, fee_per_job=Decimal("1.50"))
    free_partner = AccountFactory()
    inactive = AccountFactory()
    PartnerJobFeeFactory(account=inactive, fee_per_job=Decimal("9.99"), active=False)
    driver = BilledDriverFactory()
    payment(driver=driver, amount="100.00", at=MIDWEEK)
    for _ in range(3):
        completed_job(driver=driver, account=charging, at=MIDWEEK)
    completed_job(driver=driver, account=charging, at=MIDWEEK, status=BookingStatus.CANCELLED)
    completed_job(driver=driver, account=charging, at=MIDWEEK - timedelta(days=7))
    completed_job(driver=driver, account=free_partner, at=MIDWEEK)
    completed_job(driver=driver, account=inactive, at=MIDWEEK)
    other_driver = BilledDriverFactory()
    completed_job(driver=other_driver, account=charging, at=MIDWEEK)

    # When invoiced
    generate()

    # Then only the 3 completed RideHub jobs of this week are charged, to this driver
    (line,) = invoice_of(driver).lines.all()
    assert line.kind == InvoiceLineKind.PARTNER_JOB_FEES
    assert (line.quantity, line.unit_amount, line.amount) == (
        Decimal("3"),
        Decimal("1.50"),
        Decimal("4.50"),
    )
    assert line.account == charging
    assert "RideHub" in line.description
    assert line_kinds(invoice_of(other_driver)) == {"partner_job_fees": Decimal("1.50")}


def test_week_with_no_jobs_creates_no_invoice():
    # Given a driver with activity only in the previous week
    driver = BilledDriverFactory()
    payment(driver=driver, amount="900.00", at=MIDWEEK - timedelta(days=7))

    # When this week is invoiced
    result = generate()

    # Then nothing exists for this week: no invoice, no free record
    assert result.drivers_with_activity == 0
    assert not Invoice.objects.filter(week_start=WEEK).exists()


# --- idempotency, numbering, immutability ------------------------------------------------


def test_rerun_never_bills_twice_and_fills_in_new_drivers():
    # Given two invoiced drivers
    first, second = BilledDriverFactory(), BilledDriverFactory()
    payment(driver=first, amount="600.00", at=MIDWEEK)
    payment(driver=second, amount="601.00", at=MIDWEEK)
    result = generate()
    assert result.created_billed == 2

    # When the week is generated again, after a third driver's late record arrived
    third = BilledDriverFactory()
    payment(driver=third, amount="700.00", at=MIDWEEK)
    rerun = generate()

    # Then only the third driver is invoiced; the others keep their one invoice
    assert (rerun.created_billed, rerun.already_invoiced) == (1, 2)
    assert Invoice.objects.filter(week_start=WEEK).count() == 3
    assert generate().created == 0


def test_one_invoice_per_driver_and_week_is_a_database_constraint():
    # Given an invoice for the week
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)
    generate()
    invoice = invoice_of(driver)

    # When a second row for the same (driver, week) is inserted directly
    duplicate = Invoice(
        driver=driver,
        week_start=WEEK,
        period_start=invoice.period_start,
        period_end=invoice.period_end,
        status=InvoiceStatus.FREE,
        earnings=0,
        fee_decision=FeeDecision.TRIAL,
        subtotal_fee=0,
        subtotal_pass_through=0,
        total=0,
    )

    # Then the database refuses it
    with pytest.raises(IntegrityError), transaction.atomic():
        duplicate.save()


def test_invoice_numbers_are_gapless_across_weeks_and_skip_free_weeks():
    # Given billable and free drivers over two weeks
    drivers = [BilledDriverFactory() for _ in range(5)]
    for i, driver in enumerate(drivers):
        amount = "600.00" if i % 2 == 0 else "100.00"
        payment(driver=driver, amount=amount, at=MIDWEEK)
        payment(driver=driver, amount="650.00", at=MIDWEEK + timedelta(days=7))

    # When both weeks are generated (in small chunks) and the first week re-run
    generate(WEEK, chunk_size=2)
    generate(WEEK + timedelta(days=7), chunk_size=2)
    generate(WEEK, chunk_size=2)

    # Then the numbered invoices are exactly 1..8 and free weeks carry no number
    numbers = sorted(Invoice.objects.exclude(number=None).values_list("number", flat=True))
    assert numbers == list(range(1, 9))
    assert Invoice.objects.filter(status=InvoiceStatus.FREE, number=None).count() == 2
    assert str(Invoice.objects.get(number=1)) == "INV-0000001"


def test_numbers_are_given_back_when_a_chunk_rolls_back(monkeypatch):
    # Given a first week invoiced normally
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)
    generate()

    # When the next week's write fails after numbers were taken
    next_week = WEEK + timedelta(days=7)
    payment(driver=driver, amount="600.00", at=MIDWEEK + timedelta(days=7))

    def broken_bulk_create(*args, **kwargs):
        raise RuntimeError("disk full")

    with monkeypatch.context() as m:
        m.setattr(InvoiceLine.objects, "bulk_create", broken_bulk_create)
        with pytest.raises(RuntimeError):
            generate(next_week)

    # Then nothing of it was kept, and the retry uses the very next number
    assert not Invoice.objects.filter(week_start=next_week).exists()
    generate(next_week)
    assert invoice_of(driver, next_week).number == 2


def test_issued_invoices_and_lines_are_immutable():
    # Given an issued invoice
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)
    generate()
    invoice = invoice_of(driver)
    line = invoice.lines.get()

    # When code tries to change what was billed, the record refuses
    invoice.total = Decimal("1.00")
    with pytest.raises(ImmutableBillingRecordError):
        invoice.save()
    with pytest.raises(ImmutableBillingRecordError):
        Invoice.objects.filter(pk=invoice.pk).update(total=Decimal("1.00"))
    with pytest.raises(ImmutableBillingRecordError):
        invoice.delete()
    line.amount = Decimal("1.00")
    with pytest.raises(ImmutableBillingRecordError):
        line.save()
    with pytest.raises(ImmutableBillingRecordError):
        InvoiceLine.objects.filter(pk=line.pk).delete()

    # Then the stored amounts are unchanged
    assert invoice_of(driver).total == Decimal("20.00")


def test_saving_collection_fields_alone_writes_them_in_one_query_and_still_guards_amounts(
    django_assert_num_queries,
):
    # Given an issued invoice
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)
    generate()
    invoice = invoice_of(driver)

    # When only collection state is saved, it is one UPDATE (no read-back of the amounts)
    invoice.status = InvoiceStatus.DUE
    with django_assert_num_queries(1):
        invoice.save(update_fields=["status"])

    # Then naming an amount among the fields is still refused
    invoice.total = Decimal("1.00")
    with pytest.raises(ImmutableBillingRecordError):
        invoice.save(update_fields=["status", "total"])
    assert invoice_of(driver).total == Decimal("20.00")
    assert invoice_of(driver).status == InvoiceStatus.DUE


def test_a_week_that_has_not_ended_cannot_be_invoiced():
    with pytest.raises(ValueError, match="has not ended"):
        invoices_generate_week(week_start=WEEK, now=at_london(WEEK + timedelta(days=6), 23))


def test_generation_uses_a_bounded_number_of_queries(django_assert_max_num_queries):
    # Given 30 drivers with payments, SMS and partner jobs (would be 90+ queries per driver)
    partner = AccountFactory()
    PartnerJobFeeFactory(account=partner, fee_per_job=Decimal("1.00"))
    for i in range(30):
        driver = BilledDriverFactory()
        payment(driver=driver, amount=str(400 + 10 * i), at=MIDWEEK, processor_fee="0.50")
        notification(driver=driver, channel="sms", at=MIDWEEK)
        completed_job(driver=driver, account=partner, at=MIDWEEK)

    # When invoiced in chunks of 10: about 22 fixed queries plus 7 per chunk, whatever the
    # number of drivers in a chunk
    with django_assert_max_num_queries(45):
        result = generate(chunk_size=10)

    assert result.created == 30


# --- collection backend, task, command ---------------------------------------------------


def test_collection_marks_new_invoices_due_after_commit(django_capture_on_commit_callbacks):
    # Given a billable and a free driver
    billed, free = BilledDriverFactory(), BilledDriverFactory()
    payment(driver=billed, amount="600.00", at=MIDWEEK)
    payment(driver=free, amount="10.00", at=MIDWEEK)

    # When the week is generated and the transaction commits
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        generate()

    # Then the manual collection backend has marked the invoice due; free weeks untouched
    assert len(callbacks) == 1
    invoice = invoice_of(billed)
    assert invoice.status == InvoiceStatus.DUE
    assert invoice.collection_backend == "manual"
    assert invoice.due_at is not None
    assert invoice_of(free).status == InvoiceStatus.FREE


def test_beat_task_invoices_the_week_that_just_ended(time_machine):
    # Given a payment in WEEK and the clock at the Monday 01:00 after it
    from billing.tasks import invoices_generate_last_week

    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=MIDWEEK)
    time_machine.move_to(after(WEEK), tick=False)

    # When the beat task runs (twice: a duplicated delivery)
    outcome = invoices_generate_last_week.delay().get()
    invoices_generate_last_week.delay().get()

    # Then WEEK was invoiced once
    assert outcome["week_start"] == WEEK.isoformat()
    assert outcome["created_billed"] == 1
    assert Invoice.objects.filter(driver=driver).count() == 1


def test_command_accepts_any_day_of_the_week_and_prints_progress(capsys):
    # Given three drivers with activity
    for _ in range(3):
        payment(driver=BilledDriverFactory(), amount="600.00", at=MIDWEEK)

    # When the command is given a Saturday of WEEK, with chunks of 2
    call_command("invoices_generate", "--week", "2026-06-06", "--chunk-size", "2")

    # Then WEEK is invoiced and progress is printed per chunk
    out = capsys.readouterr().out
    assert "week of 2026-06-01" in out
    assert "chunk 1/2" in out
    assert "chunk 2/2" in out
    assert "3 invoices" in out
    assert Invoice.objects.filter(week_start=WEEK).count() == 3


def test_an_sms_job_card_is_recorded_with_billing_once_and_whatsapp_is_not(
    settings, django_capture_on_commit_callbacks
):
    # given a driver offered a job, with job cards going out through the console backend
    from billing.models import SmsUsage
    from bookings.tests.factories import BookingFactory
    from core.testing.places import LEEDS
    from dispatch.models import NotificationLog
    from dispatch.services import job_cards, offers
    from drivers.tests.factories import driver_at

    settings.NOTIFICATION_BACKEND = "console"
    driver = driver_at(LEEDS)
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=BookingFactory().pk)
    # when both cards are sent, and the SMS task is retried
    for channel in ("sms", "whatsapp", "sms"):
        job_cards.job_card_send(offer_id=offer.pk, channel=channel)
    # then billing owns one SMS record for the driver, dated like the card
    sms_log = NotificationLog.objects.get(offer=offer, channel="sms")
    usage = SmsUsage.objects.get()
    assert (usage.driver_id, usage.occurred_at) == (driver.pk, sms_log.created_at)


def test_billing_reads_no_other_apps_tables_by_name():
    import re
    from pathlib import Path

    billing = Path(__file__).resolve().parents[2] / "billing"
    for path in billing.rglob("*.py"):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        text = path.read_text()
        assert "get_model(" not in text, path
        assert not re.search(r"^\s*(from|import) (dispatch|partners)\b", text, re.M), path
