"""A failed subscription payment is also told by SMS and WhatsApp (issue 36): billing's
signal, dispatch's notification backend, the real Twilio client with its HTTP recorded."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from billing.models import Invoice, InvoiceStatus
from billing.services.invoicing import invoices_generate_week
from billing.services.payment_failures import payment_failed_tell
from billing.tests.records import after, at_london, payment
from dispatch import notifications
from dispatch.tests.twilio_recorder import RecordingTwilioHttpClient
from drivers.tests.factories import BilledDriverFactory

pytestmark = pytest.mark.django_db

WEEK = date(2026, 6, 1)


@pytest.fixture
def twilio(settings, monkeypatch):
    settings.NOTIFICATION_BACKEND = "twilio"
    settings.TWILIO_ACCOUNT_SID = "AC" + "1" * 32
    settings.TWILIO_AUTH_TOKEN = "token"
    settings.TWILIO_SMS_FROM = "+447700900999"
    settings.TWILIO_WHATSAPP_FROM = "+14155238886"
    recorder = RecordingTwilioHttpClient()
    monkeypatch.setattr(notifications, "twilio_http_client", lambda: recorder)
    return recorder


def test_the_driver_is_texted_by_sms_and_whatsapp_with_the_link_to_pay(twilio, mailoutbox):
    # Given a driver whose weekly charge failed
    driver = BilledDriverFactory(phone="+447700900321", email="asha@example.com")
    payment(driver=driver, amount="640.00", at=at_london(WEEK + timedelta(days=1)))
    invoices_generate_week(week_start=WEEK, now=after(WEEK))
    invoice = Invoice.objects.get(driver=driver)
    Invoice.objects.filter(pk=invoice.pk).update(
        status=InvoiceStatus.FAILED, failure_message="Your card was declined."
    )

    # When billing tells the driver
    payment_failed_tell(invoice_id=invoice.pk)

    # Then one email, and one SMS and one WhatsApp message through the real Twilio client
    link = f"https://taxi.example/driver/billing/invoices/{invoice.pk}/"
    assert len(mailoutbox) == 1
    assert link in mailoutbox[0].body
    by_to = {request["data"]["To"]: request["data"] for request in twilio.requests}
    assert set(by_to) == {"+447700900321", "whatsapp:+447700900321"}
    for message in by_to.values():
        assert invoice.display_number in message["Body"]
        assert link in message["Body"]
        assert "declined" in message["Body"]
