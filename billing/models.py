"""Driver and partner subscriptions, weekly invoices and credit notes (seed 1.7, 8).

Drivers pay a flat weekly software subscription instead of a per-ride commission. Each
billing week (Monday 00:00 to Sunday 24:00, Europe/London) gets at most one
:class:`Invoice` per driver, enforced by a unique constraint. Issued invoices never change
their amounts or lines; corrections are :class:`CreditNote` rows. Invoice and credit note
numbers come from :class:`NumberSequence` counter rows, allocated in the same transaction
as the rows that use them, so the numbering has no gaps.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ImmutableBillingRecordError(Exception):
    """Raised when code tries to change an issued invoice amount, a line or a credit note."""


class SubscriptionStage(models.TextChoices):
    # Seed section 3: after approval an account is on a free trial, then billed.
    TRIAL = "trial"
    BILLED = "billed"
    SUSPENDED = "suspended"


class Subscription(models.Model):
    """One per driver or per partner account (exactly one of the two is set)."""

    driver = models.OneToOneField(
        "drivers.Driver",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="subscription",
    )
    account = models.OneToOneField(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="subscription",
    )
    stage = models.CharField(
        max_length=16, choices=SubscriptionStage.choices, default=SubscriptionStage.TRIAL
    )
    # Seed 8.2: drivers 90 days from approval, partners 30 days (an administrator may
    # extend the latter; every extension leaves a SubscriptionAudit row).
    trial_ends_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(driver__isnull=False) & Q(account__isnull=True))
                | (Q(driver__isnull=True) & Q(account__isnull=False)),
                name="subscription_driver_xor_account",
            ),
        ]
        indexes = [
            models.Index(fields=["stage", "trial_ends_at"], name="subscription_stage_trial"),
        ]

    def __str__(self) -> str:
        return f"{self.subscriber} ({self.stage})"

    @property
    def subscriber(self):
        return self.driver if self.driver_id else self.account

    @property
    def kind(self) -> str:
        return "driver" if self.driver_id else "partner"

    def in_trial_at(self, moment) -> bool:
        return moment < self.trial_ends_at


class SmsUsage(models.Model):
    """One SMS sent for a driver (a job card the provider accepted), passed through at
    SMS_PASS_THROUGH_GBP (seed 8.5). Dispatch records it by calling
    ``billing.services.usage.sms_usage_record``: billing bills from rows it owns, not
    from another app's log. ``reference`` names the message, so a retry records it once.
    """

    driver = models.ForeignKey("drivers.Driver", on_delete=models.CASCADE, related_name="+")
    occurred_at = models.DateTimeField()
    reference = models.CharField(max_length=64)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reference"], name="sms_usage_once_per_message")
        ]
        indexes = [models.Index(fields=["occurred_at", "driver"], name="sms_usage_week")]

    def __str__(self) -> str:
        return f"SMS {self.reference} for driver {self.driver_id}"


class SubscriptionAudit(models.Model):
    """Append-only record of back-office changes to a subscription."""

    class Action(models.TextChoices):
        CREATED = "created"
        TRIAL_EXTENDED = "trial_extended"
        STAGE_CHANGED = "stage_changed"

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, related_name="audit")
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    reason = models.CharField(max_length=500, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.subscription_id} {self.action} at {self.created_at:%Y-%m-%d %H:%M}"


class PartnerJobFee(models.Model):
    """A partner platform named in the back office as charging a fee per job (seed 8.5).

    Drivers pay ``fee_per_job`` for each of their completed bookings that came from this
    account; it is a pass-through of what that platform charges, not a commission.
    """

    account = models.OneToOneField(
        "partners.Account", on_delete=models.PROTECT, related_name="job_fee"
    )
    fee_per_job = models.DecimalField(max_digits=8, decimal_places=2)
    active = models.BooleanField(default=True)
    note = models.CharField(max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "partner job fee"
        constraints = [
            models.CheckConstraint(
                condition=Q(fee_per_job__gte=0), name="partner_job_fee_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.account} £{self.fee_per_job}/job{'' if self.active else ' (inactive)'}"


class NumberSequence(models.Model):
    """A gapless counter. Lock the row, take ``next_value``, bump it, all in the transaction
    that writes the numbered rows: a rollback returns the numbers with the rows."""

    name = models.CharField(max_length=30, primary_key=True)
    next_value = models.PositiveBigIntegerField(default=1)

    def __str__(self) -> str:
        return f"{self.name}: next {self.next_value}"


class InvoiceStatus(models.TextChoices):
    FREE = "free"  # nothing to pay this week: kept as a record for the driver page
    ISSUED = "issued"  # numbered, not yet handed to the collection backend
    DUE = "due"  # the collection backend has asked for payment
    PAID = "paid"
    CREDITED = "credited"  # credit notes cover the whole total
    # A payment provider's outcomes (issue 36): the charge was declined (retried on
    # BILLING_PAYMENT_RETRY_DAYS), refunded through the provider, or disputed by the driver.
    FAILED = "failed"
    REFUNDED = "refunded"
    DISPUTED = "disputed"


class FeeDecision(models.TextChoices):
    """Why the weekly software fee was or was not charged (seed 8.2, 8.3)."""

    CHARGED = "charged"
    TRIAL = "trial"
    UNDER_THRESHOLD = "under_threshold"


class InvoiceQuerySet(models.QuerySet):
    def update(self, **kwargs):
        # Collection state (status, due/paid dates) may change; what was billed may not.
        protected = {f.removesuffix("_id") for f in Invoice.PROTECTED_FIELDS}
        touched = sorted(protected & {k.removesuffix("_id") for k in kwargs})
        if touched:
            raise ImmutableBillingRecordError(f"Issued invoices are immutable ({touched}).")
        return super().update(**kwargs)

    def delete(self):
        raise ImmutableBillingRecordError("Invoices are never deleted; issue a credit note.")


class Invoice(models.Model):
    """One driver's billing week. Amounts, lines and the number never change once written."""

    PROTECTED_FIELDS = (
        "number",
        "driver_id",
        "week_start",
        "period_start",
        "period_end",
        "earnings",
        "fee_decision",
        "subtotal_fee",
        "subtotal_pass_through",
        "total",
        "currency",
        "issued_at",
        "fee_rule",
    )

    number = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        unique=True,
        help_text="Gapless sequence; free weeks are records, not invoices, and have none.",
    )
    driver = models.ForeignKey("drivers.Driver", on_delete=models.PROTECT, related_name="invoices")
    week_start = models.DateField(help_text="Monday of the billing week (Europe/London).")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    status = models.CharField(max_length=10, choices=InvoiceStatus.choices)
    earnings = models.DecimalField(
        max_digits=12,
        decimal_places=2,
        help_text="Payments minus refunds in the week, from the immutable payment records.",
    )
    fee_decision = models.CharField(max_length=16, choices=FeeDecision.choices)
    fee_rule = models.JSONField(
        default=dict,
        blank=True,
        help_text="The fee schedule this invoice applied (billing.fees.FeeSchedule.rule): "
        "effectiveFrom, weeklyFeeGBP, freeBelowGBP, smsUnitGBP; and the VAT rule it was "
        "issued under (billing.fees.VatRule.recorded): vatNumber, vatRatePercent, "
        "feeIncludesVat. Empty on invoices written before schedules were dated.",
    )
    subtotal_fee = models.DecimalField(max_digits=10, decimal_places=2)
    subtotal_pass_through = models.DecimalField(max_digits=10, decimal_places=2)
    # What is charged: the lines' sum, plus VAT when the invoice was issued with the fee
    # exclusive of VAT (billing.fees.VatRule.split).
    total = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="GBP")
    issued_at = models.DateTimeField(default=timezone.now)
    collection_backend = models.CharField(max_length=200, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    payment_reference = models.CharField(max_length=200, blank=True)
    # Collection by a payment provider (issue 36). The provider's payment id is stored
    # before the charge is confirmed, so a retried run or the reconciliation asks the
    # provider about that payment instead of charging again.
    provider_payment_id = models.CharField(max_length=100, blank=True, db_index=True)
    collection_attempts = models.PositiveSmallIntegerField(default=0)
    attempted_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    failure_message = models.CharField(max_length=300, blank=True)

    objects = InvoiceQuerySet.as_manager()

    class Meta:
        ordering = ["-week_start", "driver_id"]
        constraints = [
            # One invoice per (driver, week): re-running the weekly task never bills twice.
            models.UniqueConstraint(fields=["driver", "week_start"], name="invoice_one_per_week"),
            models.CheckConstraint(
                condition=Q(number__isnull=True, status="free", total=0)
                | (Q(number__isnull=False) & ~Q(status="free")),
                name="invoice_numbered_unless_free",
            ),
        ]
        indexes = [
            models.Index(fields=["week_start", "status"], name="invoice_week_status"),
            models.Index(fields=["status", "next_attempt_at"], name="invoice_collect_next"),
        ]

    def __str__(self) -> str:
        return self.display_number or f"Free week {self.week_start} ({self.driver_id})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            stored = Invoice.objects.filter(pk=self.pk).values(*self.PROTECTED_FIELDS).first() or {}
            changed = [f for f in self.PROTECTED_FIELDS if stored.get(f) != getattr(self, f)]
            if changed:
                raise ImmutableBillingRecordError(
                    f"Issued invoices are immutable ({', '.join(changed)}); issue a credit note."
                )
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableBillingRecordError("Invoices are never deleted; issue a credit note.")

    @property
    def display_number(self) -> str:
        return f"INV-{self.number:07d}" if self.number else ""

    @property
    def week_end(self) -> date:
        """The Sunday that closes the billing week."""
        return self.week_start + timedelta(days=6)

    @property
    def vat_added(self) -> Decimal:
        """The VAT added to the lines (issued with the fee exclusive of VAT); 0 when the
        lines include VAT or no VAT applied. From the invoice's own amounts only."""
        return self.total - self.subtotal_fee - self.subtotal_pass_through

    @property
    def is_free_week(self) -> bool:
        return self.fee_decision != FeeDecision.CHARGED


class InvoiceLineKind(models.TextChoices):
    SUBSCRIPTION = "subscription"
    SMS = "sms"
    CARD_FEES = "card_fees"
    PARTNER_JOB_FEES = "partner_job_fees"
    # A payment record that arrived after its week was invoiced (issue 17): what that
    # week's invoice would have charged more, billed on the driver's next invoice.
    FEE_ADJUSTMENT = "fee_adjustment"
    CARD_FEES_ADJUSTMENT = "card_fees_adjustment"


class InvoiceLineQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableBillingRecordError("Invoice lines are immutable.")

    def delete(self):
        raise ImmutableBillingRecordError("Invoice lines are immutable.")


class InvoiceLine(models.Model):
    invoice = models.ForeignKey(Invoice, on_delete=models.PROTECT, related_name="lines")
    kind = models.CharField(max_length=20, choices=InvoiceLineKind.choices)
    description = models.CharField(max_length=200)
    quantity = models.DecimalField(max_digits=12, decimal_places=2, default=Decimal("1"))
    unit_amount = models.DecimalField(max_digits=10, decimal_places=4)
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    account = models.ForeignKey(
        "partners.Account",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="The partner platform whose per-job fee this line passes through.",
    )
    adjusts_week = models.DateField(
        null=True,
        blank=True,
        help_text="Adjustment lines: the Monday of the earlier week whose late payment "
        "records this line bills.",
    )

    objects = InvoiceLineQuerySet.as_manager()

    class Meta:
        ordering = ["invoice", "id"]

    def __str__(self) -> str:
        return f"{self.description}: £{self.amount}"

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ImmutableBillingRecordError("Invoice lines are immutable.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableBillingRecordError("Invoice lines are immutable.")


class CreditNoteQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableBillingRecordError("Credit notes are immutable.")

    def delete(self):
        raise ImmutableBillingRecordError("Credit notes are immutable.")


class CreditNote(models.Model):
    """A correction to an issued invoice; never more than the invoice's uncredited total."""

    number = models.PositiveBigIntegerField(unique=True)
    invoice = models.ForeignKey(Invoice, on_delete=models.PROTECT, related_name="credit_notes")
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    reason = models.CharField(max_length=500)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = CreditNoteQuerySet.as_manager()

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="credit_note_positive"),
        ]

    def __str__(self) -> str:
        return self.display_number

    def save(self, *args, **kwargs):
        if self.pk is not None and not kwargs.get("force_insert"):
            raise ImmutableBillingRecordError("Credit notes are immutable; issue another.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableBillingRecordError("Credit notes are immutable; issue another.")

    @property
    def display_number(self) -> str:
        return f"CN-{self.number:07d}"


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


class InvoiceRunFailureQuerySet(models.QuerySet):
    def outstanding(self):
        """Failures not yet mended: the driver still has no invoice for that week."""
        invoiced = Invoice.objects.filter(
            driver_id=models.OuterRef("driver_id"), week_start=models.OuterRef("week_start")
        )
        return self.exclude(models.Exists(invoiced))


class InvoiceRunFailure(models.Model):
    """A driver's week the weekly run could not invoice (issue 35). The run records it and
    invoices everyone else; staff see it in the back office, mend the figures, and the next
    run (the beat task or ``manage.py invoices_generate``) invoices the driver."""

    driver = models.ForeignKey("drivers.Driver", on_delete=models.CASCADE, related_name="+")
    week_start = models.DateField(help_text="Monday of the billing week (Europe/London).")
    error = models.TextField()
    failed_at = models.DateTimeField(default=timezone.now)

    objects = InvoiceRunFailureQuerySet.as_manager()

    class Meta:
        ordering = ["-week_start", "driver_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["driver", "week_start"], name="invoice_run_failure_one_per_week"
            ),
        ]

    def __str__(self) -> str:
        return f"driver {self.driver_id}, week of {self.week_start}"
