"""Weekly invoices, their lines and credit notes, numbered without gaps (seed 8).

Each billing week (Monday 00:00 to Sunday 24:00, Europe/London) gets at most one
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
    # BILLING_PAYMENT_RETRY_DAYS), refunded through the provider, or disputed by the driver
    # (billing.services.disputes).
    FAILED = "failed"
    REFUNDED = "refunded"
    DISPUTED = "disputed"
    # The driver's bank decided a dispute for the driver: the money went back, the week is
    # owed again and not charged again automatically (billing.services.disputes).
    DISPUTE_LOST = "dispute_lost", "Dispute lost"


# Weeks the driver still owes: shown as outstanding, settled by a payment recorded by staff
# or by a credit note for the whole total.
INVOICE_STATUSES_OWED = (
    InvoiceStatus.ISSUED,
    InvoiceStatus.DUE,
    InvoiceStatus.FAILED,
    InvoiceStatus.DISPUTE_LOST,
)


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
    status = models.CharField(max_length=12, choices=InvoiceStatus.choices)
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
    # The provider's dispute of this week's payment and its latest status (one per charge
    # at Stripe); a closed dispute's outcome is final, so late events cannot reopen it.
    dispute_id = models.CharField(max_length=100, blank=True)
    dispute_status = models.CharField(max_length=30, blank=True)

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
        update_fields = kwargs.get("update_fields")
        # A save that names only collection fields writes nothing protected: no check (and
        # no query) needed. The charge path saves twice per invoice (issue 36, benchmark).
        only_collection = update_fields is not None and not (
            {f.removesuffix("_id") for f in self.PROTECTED_FIELDS}
            & {f.removesuffix("_id") for f in update_fields}
        )
        if self.pk is not None and not kwargs.get("force_insert") and not only_collection:
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
