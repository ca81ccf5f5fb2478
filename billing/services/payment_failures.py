"""What follows a failed payment (issue 36): when it is retried, telling the driver, and
pausing offers for a driver who stays unpaid."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.urls import reverse
from django.utils import timezone

from billing.models import Invoice, InvoiceStatus, Subscription, SubscriptionStage
from billing.services.subscriptions import subscription_stage_set
from billing.signals import invoice_payment_failed


def retry_at(*, attempts: int, after: datetime) -> datetime | None:
    """When the next attempt goes after ``attempts`` failed ones (BILLING_PAYMENT_RETRY_DAYS),
    or None when the schedule is spent."""
    schedule = settings.BILLING_PAYMENT_RETRY_DAYS
    if attempts > len(schedule) or attempts < 1:
        return None
    return after + timedelta(days=schedule[attempts - 1])


def unpaid_pause(*, driver_id: int) -> None:
    """BILLING_UNPAID_WEEKS_BEFORE_PAUSE failed weeks pause new offers: the subscription
    is suspended (the driver app's stage follows) until staff reinstate it."""
    weeks = settings.BILLING_UNPAID_WEEKS_BEFORE_PAUSE
    if not weeks:
        return
    failed = Invoice.objects.filter(
        driver_id=driver_id, status__in=[InvoiceStatus.FAILED, InvoiceStatus.DISPUTE_LOST]
    ).count()
    subscription = Subscription.objects.filter(driver_id=driver_id).first()
    if failed >= weeks and subscription and subscription.stage != SubscriptionStage.SUSPENDED:
        subscription_stage_set(
            subscription=subscription,
            stage=SubscriptionStage.SUSPENDED,
            reason=f"{failed} weekly invoices unpaid (BILLING_UNPAID_WEEKS_BEFORE_PAUSE)",
        )


def payment_failed_tell(*, invoice_id: int) -> None:
    """Tell the driver a payment failed, or was returned to them after a dispute they won
    (``dispute_lost``): an email with the link to the week, and the
    ``invoice_payment_failed`` signal for the SMS/WhatsApp path."""
    invoice = Invoice.objects.select_related("driver").get(pk=invoice_id)
    # The invoice page: "Pay now", and the link to change the way of paying.
    link = settings.SITE_URL.rstrip("/") + reverse("billing:invoice", args=[invoice.pk])
    when = invoice.next_attempt_at
    retry = (
        f"We will try again on {timezone.localtime(when):%A %d %B}."
        if when
        else "We will not try again automatically."
    )
    week = f"{invoice.display_number} (week of {invoice.week_start:%d %B %Y})"
    if invoice.status == InvoiceStatus.DISPUTE_LOST:
        subject = f"Payment returned: {invoice.display_number}"
        body = (
            f"Your bank returned your payment of £{invoice.total} for {week} to you after a "
            "dispute, so the week is unpaid again. We will not take it again automatically; "
            f"the network's staff will contact you about paying it. The week: {link}"
        )
    else:
        subject = f"Payment failed: {invoice.display_number}"
        body = (
            f"Your payment of £{invoice.total} for {week} did not go through: "
            f"{invoice.failure_message}\n{retry}\nPay it or change your way of paying here: {link}"
        )
    if invoice.driver.email:
        send_mail(
            subject,
            body,
            None,
            [invoice.driver.email],
            fail_silently=True,
        )
    invoice_payment_failed.send(
        sender=Invoice, invoice=invoice, driver=invoice.driver, link=link, text=body
    )
