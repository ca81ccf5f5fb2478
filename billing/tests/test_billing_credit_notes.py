"""Credit notes: the only correction to an issued invoice, numbered without gaps."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from billing.models import CreditNote, ImmutableBillingRecordError, Invoice, InvoiceStatus
from billing.services.collection import invoices_collect, invoices_payment_record
from billing.services.credit_notes import CreditNoteRefused, credit_note_issue
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, payment
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)


@pytest.fixture
def invoice() -> Invoice:
    driver = BilledDriverFactory()
    payment(driver=driver, amount="800.00", at=at_london(date(2026, 6, 2)), processor_fee="4.00")
    invoices_generate_week(week_start=WEEK, now=after(WEEK))
    return Invoice.objects.get(driver=driver)


def test_partial_credit_leaves_the_invoice_and_its_amounts_untouched(invoice):
    # Given an issued 24.00 invoice
    assert invoice.total == Decimal("24.00")

    # When 4.00 is credited
    note = credit_note_issue(invoice=invoice, amount=Decimal("4.00"), reason="Card fee refunded")

    # Then a numbered credit note exists and the invoice itself is unchanged
    assert note.number == 1
    assert str(note) == "CN-0000001"
    invoice.refresh_from_db()
    assert invoice.total == Decimal("24.00")
    assert invoice.status == InvoiceStatus.ISSUED


def test_full_credit_of_an_unpaid_invoice_marks_it_credited(invoice):
    credit_note_issue(invoice=invoice, amount=Decimal("20.00"), reason="Goodwill")
    credit_note_issue(invoice=invoice, amount=Decimal("4.00"), reason="Card fee")

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.CREDITED
    assert list(invoice.credit_notes.order_by("number").values_list("number", flat=True)) == [1, 2]


def test_credit_beyond_the_invoice_total_is_refused(invoice):
    credit_note_issue(invoice=invoice, amount=Decimal("20.00"), reason="Goodwill")

    with pytest.raises(CreditNoteRefused, match="4.00"):
        credit_note_issue(invoice=invoice, amount=Decimal("4.01"), reason="Too much")

    assert CreditNote.objects.count() == 1


@pytest.mark.parametrize("amount", [Decimal("0"), Decimal("-1.00")])
def test_credit_notes_are_for_positive_amounts(invoice, amount):
    with pytest.raises(CreditNoteRefused):
        credit_note_issue(invoice=invoice, amount=amount, reason="x")


def test_free_weeks_cannot_be_credited():
    driver = BilledDriverFactory()
    payment(driver=driver, amount="100.00", at=at_london(date(2026, 6, 2)))
    invoices_generate_week(week_start=WEEK, now=after(WEEK))
    free = Invoice.objects.get(driver=driver)

    with pytest.raises(CreditNoteRefused, match="free week"):
        credit_note_issue(invoice=free, amount=Decimal("1.00"), reason="x")


def test_credit_note_numbers_are_gapless_after_a_refusal(invoice):
    credit_note_issue(invoice=invoice, amount=Decimal("1.00"), reason="a")
    with pytest.raises(CreditNoteRefused):
        credit_note_issue(invoice=invoice, amount=Decimal("99.00"), reason="b")
    credit_note_issue(invoice=invoice, amount=Decimal("1.00"), reason="c")

    assert sorted(CreditNote.objects.values_list("number", flat=True)) == [1, 2]


def test_credit_notes_are_immutable(invoice):
    note = credit_note_issue(invoice=invoice, amount=Decimal("1.00"), reason="a")
    note.amount = Decimal("2.00")
    with pytest.raises(ImmutableBillingRecordError):
        note.save()
    with pytest.raises(ImmutableBillingRecordError):
        CreditNote.objects.filter(pk=note.pk).delete()


def test_manual_collection_then_payment_recorded(invoice):
    # Given the week handed to the manual backend
    assert invoices_collect(week_start=WEEK) == 1
    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.DUE

    # When an administrator records the payment twice
    first = invoices_payment_record(invoices=Invoice.objects.all(), reference="BACS 123")
    second = invoices_payment_record(invoices=Invoice.objects.all(), reference="BACS 123")

    # Then it is paid once; recording again changes nothing
    invoice.refresh_from_db()
    assert (first, second) == (1, 0)
    assert invoice.status == InvoiceStatus.PAID
    assert invoice.paid_at is not None
    assert invoice.payment_reference == "BACS 123"
    assert invoice.total == Decimal("24.00")


def test_a_custom_collection_backend_is_used_when_configured(invoice, settings):
    settings.BILLING_COLLECTION_BACKEND = "billing.tests.test_billing_credit_notes.ChargeAtOnce"

    invoices_collect(week_start=WEEK)

    invoice.refresh_from_db()
    assert invoice.status == InvoiceStatus.PAID
    assert invoice.collection_backend == "instant"


class ChargeAtOnce:
    """A provider that charges a card on file immediately (test double)."""

    name = "instant"

    def collect(self, *, invoices):
        return invoices.update(status=InvoiceStatus.PAID, collection_backend=self.name)

    def payment_record(self, *, invoices, reference):
        return 0
