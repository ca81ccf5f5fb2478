"""VAT on the weekly invoice (issue 36): the fee set inclusive of VAT (the default) or
exclusive (VAT added at ``VAT_RATE_PERCENT``), worked out once per invoice and rounded half
up to the penny (``billing.fees.VatRule``). Pass-through lines bear VAT under both settings.
An invoice records the rule it was issued under, so changing the settings later never
changes what it shows, and what Stripe is asked to charge is the invoice's gross.
"""

from __future__ import annotations

import re
import zlib
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.urls import reverse

from billing.documents import invoice_document
from billing.fees import VatRule
from billing.models import Invoice, InvoiceStatus
from billing.services import payments
from billing.services.invoicing import invoices_generate_week
from billing.tests.records import after, at_london, notification, payment
from billing.tests.test_billing_stripe import WEEK, billed_week, charges_of, driver_with_card
from drivers.tests.factories import BilledDriverFactory, UserFactory

pytestmark = pytest.mark.django_db

MIDWEEK = at_london(WEEK + timedelta(days=2))


@pytest.fixture
def vat_registered(settings):
    settings.VAT_NUMBER = "GB123456789"
    settings.BILLING_SUPPLIER_NAME = "Open Taxi Network Ltd"
    settings.BILLING_SUPPLIER_ADDRESS = "1 Park Row, Leeds LS1 5AB"
    settings.VAT_RATE_PERCENT = Decimal("20")
    return settings


def pdf_text(content: bytes) -> str:
    """The text drawn in a PDF fpdf2 wrote (its page streams, inflated)."""
    streams = re.findall(rb"stream\r?\n(.*?)\r?\nendstream", content, re.S)
    parts = []
    for stream in streams:
        try:
            parts.append(zlib.decompress(stream).decode("latin-1"))
        except zlib.error:
            parts.append(stream.decode("latin-1"))
    return "".join(parts)


def figures(html: str) -> str:
    """A page's facts and its table of lines and totals (the rest carries a CSRF token)."""
    start = html.index("<dl")
    return html[start : html.index("</table>", start)]


def week_with_sms(*, earnings="640.00", sms=3):
    driver = BilledDriverFactory(user=UserFactory())
    payment(driver=driver, amount=earnings, at=MIDWEEK)
    for _ in range(sms):
        notification(driver=driver, channel="sms", at=MIDWEEK)
    invoices_generate_week(week_start=WEEK, now=after(WEEK))
    return Invoice.objects.get(driver=driver, week_start=WEEK)


# --- the rule ----------------------------------------------------------------------------


def rule(*, included: bool, rate: str = "20", number: str = "GB123456789") -> VatRule:
    return VatRule(vat_number=number, rate_percent=Decimal(rate), fee_includes_vat=included)


@pytest.mark.parametrize(
    ("included", "rate", "lines", "net", "vat", "gross"),
    [
        # Inclusive: VAT = gross x 20/120, taken out once.
        (True, "20", "20.00", "16.67", "3.33", "20.00"),
        (True, "20", "20.06", "16.72", "3.34", "20.06"),
        # 0.03 x 20/120 = 0.005 exactly: half up gives 0.01 (half even would give 0.00).
        (True, "20", "0.03", "0.02", "0.01", "0.03"),
        # Exclusive: VAT = net x 20%, added once.
        (False, "20", "20.00", "20.00", "4.00", "24.00"),
        (False, "20", "20.06", "20.06", "4.01", "24.07"),
        # 0.60 x 17.5% = 0.105 exactly: half up gives 0.11 (17.5%: the UK rate until 2011).
        (False, "17.5", "0.60", "0.60", "0.11", "0.71"),
    ],
)
def test_vat_is_worked_out_once_per_invoice_rounded_half_up(included, rate, lines, net, vat, gross):
    split = rule(included=included, rate=rate).split(Decimal(lines))
    assert (split.net, split.vat, split.gross) == (Decimal(net), Decimal(vat), Decimal(gross))
    assert split.net + split.vat == split.gross


def test_an_unregistered_supplier_charges_no_vat_whatever_the_setting():
    for included in (True, False):
        split = rule(included=included, number="").split(Decimal("20.06"))
        assert (split.net, split.vat, split.gross) == (
            Decimal("20.06"),
            Decimal("0.00"),
            Decimal("20.06"),
        )


def test_per_invoice_rounding_differs_from_per_line_and_the_invoice_uses_it():
    # Three lines of 0.02 net at 17.5%: per line 0.0035 -> 0.00 each; per invoice
    # 0.06 x 17.5% = 0.0105 -> 0.01. The invoice charges the per-invoice figure.
    assert rule(included=False, rate="17.5").split(Decimal("0.06")).vat == Decimal("0.01")


# --- invoices under each setting -------------------------------------------------------------


def test_exclusive_fee_invoice_charges_fee_plus_vat_on_every_line(vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False

    invoice = week_with_sms()

    # Lines are net: fee 20.00 + 3 SMS at 0.02 = 20.06; VAT 20% = 4.012 -> 4.01.
    assert invoice.subtotal_fee == Decimal("20.00")
    assert invoice.subtotal_pass_through == Decimal("0.06")
    assert invoice.total == Decimal("24.07")
    assert invoice.fee_rule["feeIncludesVat"] is False
    assert invoice.fee_rule["vatRatePercent"] == "20"
    assert invoice.fee_rule["vatNumber"] == "GB123456789"
    document = invoice_document(invoice)
    assert (document.net, document.vat, document.gross) == (
        Decimal("20.06"),
        Decimal("4.01"),
        Decimal("24.07"),
    )
    assert all(isinstance(v, Decimal) for v in (document.net, document.vat, document.gross))


def test_inclusive_fee_invoice_takes_vat_out_of_the_total(vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = True

    invoice = week_with_sms()

    # Lines include VAT: total 20.06; VAT 20.06 x 20/120 = 3.343 -> 3.34; net 16.72.
    assert invoice.total == Decimal("20.06")
    assert invoice.fee_rule["feeIncludesVat"] is True
    document = invoice_document(invoice)
    assert (document.net, document.vat, document.gross) == (
        Decimal("16.72"),
        Decimal("3.34"),
        Decimal("20.06"),
    )


def test_exclusive_setting_without_a_vat_number_adds_nothing(settings):
    settings.VAT_NUMBER = ""
    settings.SUBSCRIPTION_FEE_INCLUDES_VAT = False

    invoice = week_with_sms()

    assert invoice.total == Decimal("20.06")
    assert not invoice_document(invoice).is_vat_invoice


def test_pages_and_pdfs_show_net_vat_and_gross_of_an_exclusive_invoice(client, vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    invoice = week_with_sms()
    client.force_login(invoice.driver.user)

    page = client.get(reverse("billing:invoice-print", args=[invoice.pk])).content.decode()
    detail = client.get(reverse("billing:invoice", args=[invoice.pk])).content.decode()
    pdf = pdf_text(client.get(reverse("billing:invoice-pdf", args=[invoice.pk])).content)

    assert "VAT invoice" in page
    assert 'id="net">£20.06' in page
    assert 'id="vat">£4.01' in page
    assert 'id="gross">£24.07' in page
    assert "excluding VAT" in page
    assert 'id="net">£20.06' in detail
    assert 'id="vat">£4.01' in detail
    assert 'id="total">£24.07' in detail
    for text in ("(Net)", "(VAT at 20%)", "(Gross)", "\xa324.07", "\xa34.01", "exclude VAT"):
        assert text in pdf, text


def test_an_issued_invoice_renders_the_same_after_the_settings_change(client, vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    invoice = week_with_sms()
    client.force_login(invoice.driver.user)
    urls = [reverse(n, args=[invoice.pk]) for n in ("billing:invoice-print", "billing:invoice")]
    before = [figures(client.get(url).content.decode()) for url in urls]
    pdf_before = pdf_text(client.get(reverse("billing:invoice-pdf", args=[invoice.pk])).content)

    # The setting flips, the rate changes and the VAT number goes: new invoices follow,
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = True
    vat_registered.VAT_RATE_PERCENT = Decimal("17.5")
    vat_registered.VAT_NUMBER = "GB999999973"

    # but the issued invoice shows exactly what it charged.
    assert [figures(client.get(url).content.decode()) for url in urls] == before
    pdf_after = pdf_text(client.get(reverse("billing:invoice-pdf", args=[invoice.pk])).content)
    for text in ("\xa320.06", "\xa34.01", "\xa324.07", "GB123456789", "VAT at 20%"):
        assert text in pdf_before, text
        assert text in pdf_after, text
    fresh = Invoice.objects.get(pk=invoice.pk)
    assert fresh.total == Decimal("24.07")
    document = invoice_document(fresh)
    assert (document.net, document.vat, document.gross, document.vat_rate) == (
        Decimal("20.06"),
        Decimal("4.01"),
        Decimal("24.07"),
        Decimal("20"),
    )


def test_the_next_week_is_issued_under_the_new_setting(vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    first = week_with_sms()
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = True
    driver = first.driver
    payment(driver=driver, amount="640.00", at=MIDWEEK + timedelta(days=7))

    invoices_generate_week(week_start=WEEK + timedelta(days=7), now=after(WEEK + timedelta(7)))

    second = Invoice.objects.get(driver=driver, week_start=WEEK + timedelta(days=7))
    assert (first.total, second.total) == (Decimal("24.07"), Decimal("20.00"))
    assert invoice_document(Invoice.objects.get(pk=first.pk)).vat == Decimal("4.01")
    assert invoice_document(second).vat == Decimal("3.33")


def test_invoices_issued_before_the_rule_was_recorded_read_as_vat_inclusive(vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = True
    invoice = week_with_sms(sms=0)
    legacy_rule = {k: v for k, v in invoice.fee_rule.items() if not k.startswith(("vat", "fee"))}
    assert VatRule.of_invoice(legacy_rule) == VatRule.current()
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    # Such invoices were all issued VAT-inclusive, the only mode then built.
    assert VatRule.of_invoice(legacy_rule).fee_includes_vat is True


def test_the_exclusive_setting_passes_the_system_checks(vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    call_command("check")


def test_a_rate_that_is_not_a_percentage_is_refused(vat_registered):
    vat_registered.VAT_RATE_PERCENT = Decimal("120")
    with pytest.raises(SystemCheckError, match="billing.E004"):
        call_command("check")


# --- what Stripe charges -----------------------------------------------------------------


@pytest.mark.parametrize(("included", "gross"), [(False, "24.00"), (True, "20.00")])
def test_stripe_charges_the_invoice_gross(stripe_on, vat_registered, included, gross):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = included
    driver = driver_with_card(stripe_on)
    invoice = billed_week(driver)

    payments.payments_charge_due()

    invoice.refresh_from_db()
    assert invoice.total == Decimal(gross)
    assert invoice.status == InvoiceStatus.PAID
    (charge,) = charges_of(stripe_on, driver)
    assert charge["amount"] == int(Decimal(gross) * 100)
    assert Decimal(charge["amount"]) / 100 == invoice_document(invoice).gross


def test_the_fee_is_stated_plus_vat_when_vat_is_added(client, vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    signup = " ".join(client.get("/driver/signup/").content.decode().split())
    assert "a flat weekly subscription of £20 plus VAT at 20%," in signup

    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = True
    signup = " ".join(client.get("/driver/signup/").content.decode().split())
    assert "a flat weekly subscription of £20," in signup


def test_the_subscription_page_states_the_fee_plus_vat(client, vat_registered):
    vat_registered.SUBSCRIPTION_FEE_INCLUDES_VAT = False
    invoice = week_with_sms()
    client.force_login(invoice.driver.user)
    html = " ".join(client.get(reverse("billing:subscription")).content.decode().split())
    assert "a flat software fee of £20.00 a week plus VAT at 20%, charged" in html
    assert "£24.07 (with £4.01 VAT)" in html


def test_the_subscription_page_adds_nothing_to_an_inclusive_week(client, vat_registered):
    invoice = week_with_sms()
    client.force_login(invoice.driver.user)
    html = " ".join(client.get(reverse("billing:subscription")).content.decode().split())
    assert invoice.vat_added == Decimal("0.00")
    assert "£20.06" in html
    assert "plus VAT" not in html
    assert "with £" not in html
