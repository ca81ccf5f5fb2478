"""What the payment provider holds for a driver (issue 36): the customer, the ways to pay
and the webhook events received; and the staff queue of failed payments."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from billing.models.invoices import Invoice


class PaymentCustomer(models.Model):
    """The driver's customer record at the payment provider (issue 36). The provider holds
    the cards and Direct Debit mandates; we keep only its ids and what the driver is shown."""

    driver = models.OneToOneField(
        "drivers.Driver", on_delete=models.CASCADE, related_name="payment_customer"
    )
    provider = models.CharField(max_length=20, default="stripe")
    customer_id = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.provider} {self.customer_id} ({self.driver_id})"


class PaymentMethodKind(models.TextChoices):
    CARD = "card"
    BACS_DEBIT = "bacs_debit"


class PaymentMethod(models.Model):
    """A way to pay the driver added on the provider's page: a card (brand, last four) or a
    Bacs Direct Debit mandate (sort code, last four of the account, the mandate reference
    the bank shows). No card or account number is stored."""

    driver = models.ForeignKey(
        "drivers.Driver", on_delete=models.CASCADE, related_name="payment_methods"
    )
    provider_id = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=12, choices=PaymentMethodKind.choices)
    brand = models.CharField(max_length=30, blank=True)
    last4 = models.CharField(max_length=4, blank=True)
    sort_code = models.CharField(max_length=8, blank=True)
    mandate_reference = models.CharField(max_length=100, blank=True)
    mandate_status = models.CharField(max_length=20, blank=True)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["driver", "active"], name="payment_method_driver")]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        if self.kind == PaymentMethodKind.BACS_DEBIT:
            return (
                f"Direct Debit, sort code {self.sort_code}, account ending {self.last4} "
                f"(mandate {self.mandate_reference or 'pending'})"
            )
        return f"{(self.brand or 'card').title()} ending {self.last4}"


class ProviderEvent(models.Model):
    """Every webhook event the provider delivered, once: the unique event id makes a
    redelivered event a no-op."""

    event_id = models.CharField(max_length=100, unique=True)
    type = models.CharField(max_length=100)
    object_id = models.CharField(max_length=100, blank=True)
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.type} {self.event_id}"


class FailedPayment(Invoice):
    """The staff queue of failed provider payments (an admin view of Invoice)."""

    class Meta:
        proxy = True
        verbose_name = "failed payment"
