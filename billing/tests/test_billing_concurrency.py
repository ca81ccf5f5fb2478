"""Real concurrency on PostgreSQL and SQLite: parallel runs of the same week never bill twice and
never leave a gap in the numbering; parallel credit notes never over-credit."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from billing.models import CreditNote, Invoice
from billing.services.credit_notes import CreditNoteRefused, credit_note_issue
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, payment
from core.testing.concurrency import race
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db(transaction=True)

WEEK = date(2026, 6, 1)


def test_parallel_runs_of_one_week_bill_each_driver_once_with_gapless_numbers():
    # Given 40 drivers, 30 of them billable
    for i in range(40):
        payment(
            driver=BilledDriverFactory(),
            amount="600.00" if i < 30 else "50.00",
            at=at_london(date(2026, 6, 3)),
        )

    # When four workers generate the same week at the same instant, in small chunks
    outcomes = race(
        *[lambda: invoices_generate_week(week_start=WEEK, now=after(WEEK), chunk_size=7)] * 4,
        expected=(),
    )

    # Then no run failed (race fails the test otherwise), every driver has exactly one row,
    # numbers are 1..30 exactly
    assert sum(o.created for o in outcomes) == 40
    assert Invoice.objects.count() == 40
    numbers = sorted(Invoice.objects.exclude(number=None).values_list("number", flat=True))
    assert numbers == list(range(1, 31))


def test_parallel_credit_notes_never_exceed_the_invoice_total():
    # Given a 20.00 invoice
    driver = BilledDriverFactory()
    payment(driver=driver, amount="600.00", at=at_london(date(2026, 6, 3)))
    invoices_generate_week(week_start=WEEK, now=after(WEEK))
    invoice = Invoice.objects.get()

    # When eight administrators credit 5.00 at once
    outcomes = race(
        *[lambda: credit_note_issue(invoice=invoice, amount=Decimal("5.00"), reason="race")] * 8,
        expected=(CreditNoteRefused,),
    )

    # Then exactly four succeed, numbered 1..4, and four are refused
    refused = [o for o in outcomes if isinstance(o, CreditNoteRefused)]
    assert len(refused) == 4
    assert sorted(CreditNote.objects.values_list("number", flat=True)) == [1, 2, 3, 4]
