"""Driver and partner subscriptions, their trial and stage, and what they are billed for
(SMS job cards, partner job fees); seed 3 and 8."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


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
