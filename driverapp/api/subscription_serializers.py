"""Output of the driver app's subscription endpoint (contract 6)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from rest_framework import serializers

MONEY = {"max_digits": 10, "decimal_places": 2, "coerce_to_string": False}
APP_STAGE_CHOICES = ["trial", "billed", "paused", "cancelled"]


class DriverInvoiceOutputSerializer(serializers.Serializer):
    number = serializers.CharField(source="display_number")
    weekStart = serializers.DateField(source="week_start")
    totalGBP = serializers.DecimalField(source="total", **MONEY)
    status = serializers.CharField()
    url = serializers.SerializerMethodField()

    def get_url(self, invoice) -> str:
        """The invoice page (driver login required)."""
        return settings.SITE_URL + reverse("billing:invoice", args=[invoice.pk])


class DriverCurrentWeekOutputSerializer(serializers.Serializer):
    start = serializers.DateField(help_text="Monday of the week under way (UK time).")
    earningsGBP = serializers.DecimalField(source="earnings", **MONEY)
    feeDueGBP = serializers.DecimalField(
        source="fee_due",
        help_text="The software fee this week costs if it ended now (0 during the trial "
        "and while earnings are not over freeBelowGBP).",
        **MONEY,
    )


class DriverSubscriptionOutputSerializer(serializers.Serializer):
    stage = serializers.ChoiceField(
        choices=APP_STAGE_CHOICES,
        help_text="trial (also before approval: trialEndsAt is then null), billed, paused "
        "(suspended by the back office) or cancelled.",
    )
    trialEndsAt = serializers.DateTimeField(source="trial_ends_at", allow_null=True)
    weeklyFeeGBP = serializers.DecimalField(source="schedule.weekly_fee", **MONEY)
    freeBelowGBP = serializers.DecimalField(
        source="schedule.free_earnings_threshold",
        help_text="A week whose earnings are not over this is free.",
        **MONEY,
    )
    currentWeek = DriverCurrentWeekOutputSerializer(source="current_week")
    invoices = DriverInvoiceOutputSerializer(
        many=True, help_text="Invoiced weeks, newest first (free weeks have no invoice)."
    )
