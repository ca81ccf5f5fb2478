"""Input and output serializers of the partner, operator and supplier endpoints.

Names are unique across the project because drf-spectacular merges same-named components.
Field names are the seed's camelCase (2.10); per-job errors use those names.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.models import BookingStatus, FlightStatus
from bookings.selectors import driver_public_summary
from partners.intake_formats.partner_job.payload import (  # the request schema, documented here
    PARTNER_JOB_FIELDS,
    PartnerJobInputSerializer,
    PartnerJobsEnvelopeInputSerializer,
)
from partners.services.intake_request import JobOutcome
from partners.services.status import FLEET_DECLINED

__all__ = [
    "PARTNER_JOB_FIELDS",
    "PartnerJobInputSerializer",
    "PartnerJobsEnvelopeInputSerializer",
]


# Renders a partners.services.intake_request.JobResult.
class JobResultOutputSerializer(serializers.Serializer):
    """One job's outcome: bookingReference when accepted, code and errors when rejected."""

    index = serializers.IntegerField(help_text="Position of the job in the request.")
    jobRef = serializers.CharField(source="job_ref", allow_null=True)
    outcome = serializers.ChoiceField(choices=JobOutcome.choices)
    bookingReference = serializers.CharField(
        source="booking_reference", required=False, help_text="Present unless rejected."
    )
    pickupCode = serializers.CharField(
        source="pickup_code",
        required=False,
        allow_null=True,
        help_text="Present unless rejected: the 4-digit code your passenger tells the driver "
        "to start the trip; null when your account has pickup codes off.",
    )
    code = serializers.CharField(
        required=False,
        help_text="Rejected only: invalid_input, content_rejected, fare_not_allowed, "
        "pickup_in_past, job_not_found, address_not_found, outside_service_area, "
        "vehicle_too_small, not_cancellable, daily_job_limit, daily_bridge_limit.",
    )
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Rejected only: messages by PartnerJob field name.",
    )

    def to_representation(self, instance):
        body = super().to_representation(instance)
        if instance.outcome == JobOutcome.REJECTED:
            body.pop("bookingReference")
            body.pop("pickupCode")
            body["errors"] = body["errors"] or {}
        else:
            body.pop("code")
            body.pop("errors")
        return body


class IntakeSummaryOutputSerializer(serializers.Serializer):
    received = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()


class IntakeOutcomeOutputSerializer(serializers.Serializer):
    """One result per job, in request order, then the counts."""

    results = JobResultOutputSerializer(many=True)
    summary = IntakeSummaryOutputSerializer()


class DriverVehicleOutputSerializer(serializers.Serializer):
    make = serializers.CharField()
    model = serializers.CharField()
    colour = serializers.CharField()
    registration = serializers.CharField()


class JobDriverOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    vehicle = DriverVehicleOutputSerializer(allow_null=True)
    licensingAuthority = serializers.CharField()


class JobReconciliationOutputSerializer(serializers.Serializer):
    """A pushed job read back by its sender."""

    jobRef = serializers.CharField(source="job_ref")
    bookingReference = serializers.CharField(source="reference")
    status = serializers.ChoiceField(choices=BookingStatus.choices)
    pickupTime = serializers.DateTimeField(source="pickup_time")
    driver = serializers.SerializerMethodField()
    sequence = serializers.IntegerField(
        help_text="The booking's event sequence number, also carried by its webhooks."
    )
    pickupCode = serializers.SerializerMethodField(
        help_text="The 4-digit code the passenger tells the driver to start the trip; null "
        "when your account has pickup codes off."
    )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_pickupCode(self, booking) -> str | None:
        return booking.pickup_code or None

    @extend_schema_field(JobDriverOutputSerializer(allow_null=True))
    def get_driver(self, booking) -> dict | None:
        return driver_public_summary(booking.driver, booking.vehicle)


class OperatorIntakeGuideOutputSerializer(serializers.Serializer):
    endpoint = serializers.URLField()
    acceptedFields = serializers.ListField(child=serializers.CharField())
    fields = serializers.DictField(child=serializers.DictField())
    actions = serializers.ListField(child=serializers.CharField())
    maxBatch = serializers.IntegerField()
    bodyForms = serializers.ListField(child=serializers.CharField())
    auth = serializers.DictField()
    outcomes = serializers.ListField(child=serializers.CharField())
    statusWebhooks = serializers.DictField()
    examplePayload = serializers.DictField()


class ReportedVehicleInputSerializer(InputSerializer):
    make = serializers.CharField(max_length=50, required=False, allow_blank=True)
    model = serializers.CharField(max_length=50, required=False, allow_blank=True)
    colour = serializers.CharField(max_length=30, required=False, allow_blank=True)
    registration = serializers.CharField(max_length=12, required=False, allow_blank=True)


class ReportedDriverInputSerializer(InputSerializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    phone = serializers.CharField(max_length=40, required=False, allow_blank=True)
    licensingAuthority = serializers.CharField(max_length=200, required=False, allow_blank=True)
    vehicle = ReportedVehicleInputSerializer(required=False, allow_null=True)


class BookingStatusReportInputSerializer(InputSerializer):
    """Contract 5.2: bookingReference or jobRef, the new status, when it happened.

    ``declined`` is not a booking status: a partner fleet turns down a tier-3 offer with it.
    """

    bookingReference = serializers.CharField(max_length=20, required=False)
    jobRef = serializers.CharField(max_length=100, required=False)
    status = serializers.ChoiceField(
        choices=[*BookingStatus.choices, (FLEET_DECLINED, "Declined (a fleet's offer answer)")],
        help_text=(
            "A booking status; a fleet answers a job offer (booking.offered) with accepted "
            "or declined."
        ),
    )
    occurredAt = serializers.DateTimeField()
    driver = ReportedDriverInputSerializer(required=False, allow_null=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("bookingReference") and not attrs.get("jobRef"):
            raise serializers.ValidationError(
                {"bookingReference": ["Send bookingReference or jobRef."]}
            )
        return attrs


class BookingStatusReportOutputSerializer(serializers.Serializer):
    """The booking after the report; jobRef only for the account holding the job."""

    bookingReference = serializers.CharField(source="booking.reference")
    jobRef = serializers.CharField(source="job_ref", allow_null=True)
    status = serializers.ChoiceField(source="booking.status", choices=BookingStatus.choices)
    previousStatus = serializers.ChoiceField(
        source="previous_status", choices=BookingStatus.choices
    )
    sequence = serializers.IntegerField(source="booking.sequence")
    changed = serializers.BooleanField(help_text="False when the status was already current.")


class JobsChangedQuerySerializer(serializers.Serializer):
    updatedSince = serializers.DateTimeField(
        help_text="ISO 8601: jobs whose state changed at or after this time."
    )
    cursor = serializers.CharField(
        max_length=200, required=False, help_text="From `next`: where the last page ended."
    )


class JobChangeOutputSerializer(serializers.Serializer):
    jobRef = serializers.CharField(source="job_ref")
    bookingReference = serializers.CharField(source="reference")
    status = serializers.ChoiceField(choices=BookingStatus.choices)
    sequence = serializers.IntegerField(
        help_text="The booking's event sequence number, also carried by its webhooks."
    )
    updatedAt = serializers.DateTimeField(source="updated_at")


# Renders a partners.services.reconciliation.JobsChangedPage; context: updated_since.
class JobsChangedOutputSerializer(serializers.Serializer):
    """The sender's own jobs changed since a time, oldest change first."""

    results = JobChangeOutputSerializer(many=True, source="jobs")
    next = serializers.SerializerMethodField(
        help_text="Absolute URL of the next page, or null on the last one."
    )

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_next(self, page) -> str | None:
        if page.next_cursor is None:
            return None
        query = urlencode(
            {"updatedSince": self.context["updated_since"].isoformat(), "cursor": page.next_cursor}
        )
        return f"{settings.SITE_URL}/api/public/v1/jobs?{query}"


class FlightStatusReportInputSerializer(InputSerializer):
    """A flight's arrival as a partner or operator reports it (issue 15)."""

    flightNumber = serializers.CharField(
        max_length=20, help_text="Airline code and 1-4 digits, e.g. BA1234, EZY12, U2 123."
    )
    scheduledDate = serializers.DateField(
        required=False,
        help_text="The flight's arrival date (UK): every pickup of yours on it is updated.",
    )
    bookingReference = serializers.CharField(
        max_length=20, required=False, help_text="Or one booking of yours."
    )
    status = serializers.ChoiceField(choices=FlightStatus.choices)
    estimatedArrival = serializers.DateTimeField(
        required=False, allow_null=True, help_text="The latest estimate of the landing."
    )
    actualArrival = serializers.DateTimeField(
        required=False, allow_null=True, help_text="The landing; required with status landed."
    )
    terminal = serializers.CharField(max_length=20, required=False, allow_blank=True, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, list[str]] = {}
        scheduled = attrs.get("scheduledDate")
        if not scheduled and not attrs.get("bookingReference"):
            errors["scheduledDate"] = ["Send scheduledDate or bookingReference."]
        if scheduled and abs(scheduled - timezone.now().date()) > dt.timedelta(days=366):
            errors["scheduledDate"] = ["Must be within a year of today."]
        status = attrs["status"]
        if status == FlightStatus.LANDED and not attrs.get("actualArrival"):
            errors["actualArrival"] = ["Required when the status is landed."]
        expected = status in (FlightStatus.SCHEDULED, FlightStatus.DELAYED)
        if expected and not attrs.get("estimatedArrival"):
            errors["estimatedArrival"] = [f"Required when the status is {status}."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class FlightBookingUpdateOutputSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="booking.reference")
    pickupTime = serializers.DateTimeField(source="booking.pickup_time")
    previousPickupTime = serializers.DateTimeField(source="previous_pickup_time")
    moved = serializers.BooleanField(help_text="The pickup time changed.")
    changed = serializers.BooleanField(help_text="False when the report repeated what we had.")
    terminal = serializers.CharField(source="arrival.terminal")
    landingAt = serializers.DateTimeField(source="arrival.landing_at", allow_null=True)


class FlightStatusReportOutputSerializer(serializers.Serializer):
    flightNumber = serializers.CharField(source="flight_number", help_text="Normalised.")
    status = serializers.ChoiceField(choices=FlightStatus.choices)
    bookings = FlightBookingUpdateOutputSerializer(source="updates", many=True)
