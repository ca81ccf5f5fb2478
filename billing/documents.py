"""Invoices and receipts as documents (issue 36): the figures a printed page and a PDF
show, and the PDF itself (fpdf2, pure Python).

With ``VAT_NUMBER`` set an invoice is a UK VAT invoice (HMRC VAT Notice 700, section
16.3): supplier name, address and VAT number, invoice number, tax point (the issue date),
the driver's name, each line, the net amount, the VAT rate and VAT, and the gross.
The figures come from the VAT rule the invoice was issued under (recorded in its
``fee_rule``; ``billing.fees.VatRule``): VAT taken out of VAT-inclusive lines, or added to
net lines, once per invoice, rounded half up to the penny. Today's settings never change
what an issued invoice shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.utils import timezone
from fpdf import FPDF

from billing.fees import VatRule
from billing.models import Invoice, InvoiceStatus

_RECEIPT_STATUSES = (InvoiceStatus.PAID, InvoiceStatus.REFUNDED, InvoiceStatus.DISPUTED)


@dataclass
class InvoiceDocument:
    invoice: Invoice
    supplier_name: str
    supplier_address: str
    vat_number: str
    tax_point: date
    gross: Decimal
    net: Decimal
    vat: Decimal
    vat_rate: Decimal
    lines: list
    # The lines are VAT-inclusive (the fee includes VAT) or net (VAT added on top).
    lines_include_vat: bool = True

    @property
    def is_vat_invoice(self) -> bool:
        return bool(self.vat_number)

    @property
    def is_receipt(self) -> bool:
        return self.invoice.status in _RECEIPT_STATUSES and self.invoice.paid_at is not None


def invoice_document(invoice: Invoice) -> InvoiceDocument:
    rule = VatRule.of_invoice(invoice.fee_rule)
    split = rule.split(invoice.subtotal_fee + invoice.subtotal_pass_through)
    return InvoiceDocument(
        invoice=invoice,
        supplier_name=settings.BILLING_SUPPLIER_NAME,
        supplier_address=settings.BILLING_SUPPLIER_ADDRESS,
        vat_number=rule.vat_number,
        tax_point=timezone.localtime(invoice.issued_at).date(),
        # What was charged is the invoice's own total; the split only explains it.
        gross=invoice.total,
        net=invoice.total - split.vat,
        vat=split.vat,
        vat_rate=rule.rate,
        lines=list(invoice.lines.all()),
        lines_include_vat=rule.fee_includes_vat,
    )


def _text(value) -> str:
    # The PDF core fonts are Latin-1: dashes and the like become their nearest.
    return (
        str(value)
        .replace("–", "-")
        .replace("—", "-")
        .replace("−", "-")
        .encode("latin-1", "replace")
        .decode("latin-1")
    )


def invoice_pdf(document: InvoiceDocument, *, receipt: bool = False) -> bytes:
    invoice = document.invoice
    pdf = FPDF(format="A4")
    pdf.set_title(f"{'Receipt' if receipt else 'Invoice'} {invoice.display_number}")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    title = "Receipt" if receipt else ("VAT invoice" if document.is_vat_invoice else "Invoice")
    pdf.cell(0, 10, _text(f"{title} {invoice.display_number}"), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    facts = []
    if document.supplier_name:
        facts.append(("Supplier", document.supplier_name))
    if document.supplier_address:
        facts.append(("Address", document.supplier_address))
    if document.vat_number:
        facts.append(("VAT number", document.vat_number))
    facts += [
        ("Invoice number", invoice.display_number),
        ("Tax point (date of issue)", f"{document.tax_point:%d %B %Y}"),
        ("Customer", invoice.driver.name),
        ("Week", f"{invoice.week_start:%d %B %Y} to {invoice.week_end:%d %B %Y}"),
    ]
    if receipt:
        facts += [
            ("Paid", f"{timezone.localtime(invoice.paid_at):%d %B %Y %H:%M}"),
            ("Payment reference", invoice.payment_reference),
        ]
    for label, value in facts:
        pdf.cell(55, 6, _text(label))
        pdf.multi_cell(0, 6, _text(value), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(130, 7, "Item", border="B")
    pdf.cell(0, 7, "Amount", border="B", align="R", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    for line in document.lines:
        pdf.cell(130, 6, _text(line.description[:80]))
        pdf.cell(0, 6, _text(f"£{line.amount}"), align="R", new_x="LMARGIN", new_y="NEXT")
    if document.is_vat_invoice:
        pdf.set_font("Helvetica", "I", 9)
        note = "Amounts include VAT" if document.lines_include_vat else "Amounts exclude VAT"
        pdf.cell(0, 6, note, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
    pdf.ln(2)
    totals = []
    if document.is_vat_invoice:
        totals += [
            ("Net", document.net),
            # "20", not normalize()'s "2E+1".
            (f"VAT at {document.vat_rate.normalize():f}%", document.vat),
        ]
    totals.append(("Total" if not document.is_vat_invoice else "Gross", document.gross))
    for label, amount in totals:
        pdf.cell(130, 6, _text(label))
        pdf.cell(0, 6, _text(f"£{amount}"), align="R", new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())
