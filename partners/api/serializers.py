"""Input and output serializers of the partner, operator and supplier endpoints.

Names are unique across the project because drf-spectacular merges same-named components.
Field names are the seed's camelCase (2.10); per-job errors use those names.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.utils import timezone
from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.models import BookingStatus
from bookings.passengers import phone_to_e164
from partners.services.intake import MAX_BATCH, IntakeJob, JobAction, JobOutcome
from partners.services.status import FLEET_DECLINED
from pricing.vehicles import VehicleType

# A pickup a little in the past is still a live job (a sender's clock, a late push);
# anything older cannot be dispatched.
PICKUP_PAST_TOLERANCE_MINUTES = 15
MAX_FARE = Decimal("99999.99")
NEW_JOB_REQUIRED = ("pickup", "dropoff", "pickupTime")

# camelCase request name -> booking engine name (seed 2.10).
PARTNER_JOB_FIELDS = {
    "jobRef": "job_ref",
    "action": "action",
    "pickup": "pickup",
    "dropoff": "dropoff",
    "pickupTime": "pickup_time",
    "passengerName": "passenger_name",
    "passengerPhone": "passenger_phone",
    "passengerEmail": "passenger_email",
    "passengers": "passengers",
    "vehicleType": "vehicle_type",
    "flightNumber": "flight_number",
    "fare": "fare",
    "notes": "notes",
}


class PartnerJobInputSerializer(InputSerializer):
    """PartnerJob (seed 2.10). For ``new``, pickup, dropoff and pickupTime are required;
    ``amend`` changes only the fields sent; ``cancel`` needs only jobRef."""

    jobRef = serializers.CharField(
        max_length=100, help_text="The sender's own unique reference (idempotency key)."
    )
    action = serializers.ChoiceField(choices=JobAction.choices, default=JobAction.NEW)
    pickup = serializers.CharField(max_length=300, required=False)
    dropoff = serializers.CharField(max_length=300, required=False)
    pickupTime = serializers.DateTimeField(required=False, help_text="ISO 8601.")
    passengerName = serializers.CharField(
        max_length=200, required=False, allow_blank=True, allow_null=True
    )
    passengerPhone = serializers.CharField(
        max_length=40,
        required=False,
        allow_blank=True,
        allow_null=True,
        help_text="Stored in E.164; national UK numbers are accepted.",
    )
    passengerEmail = serializers.EmailField(required=False, allow_blank=True, allow_null=True)
    passengers = serializers.IntegerField(min_value=1, max_value=8, required=False)
    vehicleType = serializers.ChoiceField(
        choices=VehicleType.choices,
        required=False,
        allow_null=True,
        help_text="Case-insensitive. Omitted: the smallest class that seats the party.",
    )
    flightNumber = serializers.CharField(
        max_length=20, required=False, allow_blank=True, allow_null=True
    )
    fare = serializers.DecimalField(
        max_digits=None,
        decimal_places=None,
        required=False,
        allow_null=True,
        min_value=Decimal("0"),
        help_text="Agreed fare in GBP when the sender prices the job.",
    )
    notes = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, allow_null=True
    )

    def to_internal_value(self, data):
        if isinstance(data, dict) and isinstance(data.get("vehicleType"), str):
            data = {**data, "vehicleType": data["vehicleType"].strip().lower()}
        try:
            return super().to_internal_value(data)
        except serializers.ValidationError as exc:
            # Report missing required fields together with bad ones, not in a second round.
            is_new = isinstance(data, dict) and data.get("action", JobAction.NEW) == JobAction.NEW
            if is_new and isinstance(exc.detail, dict):
                for name in NEW_JOB_REQUIRED:
                    if data.get(name) in (None, "") and name not in exc.detail:
                        exc.detail[name] = [
                            serializers.ErrorDetail("This field is required.", code="required")
                        ]
            raise

    def validate_jobRef(self, value: str) -> str:  # noqa: N802 (the seed's field name)
        value = value.strip()
        if not value:
            raise serializers.ValidationError("This field may not be blank.")
        return value

    def validate_passengerPhone(self, value: str | None) -> str | None:  # noqa: N802
        if not value:
            return value
        e164 = phone_to_e164(value)
        if e164 is None:
            raise serializers.ValidationError(
                "Enter a valid phone number, in international format (+44...)."
            )
        return e164

    def validate_fare(self, value: Decimal | None) -> Decimal | None:
        if value is None:
            return None
        if not value.is_finite():
            raise serializers.ValidationError("A valid number is required.")
        value = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        if value > MAX_FARE:
            raise serializers.ValidationError(f"Ensure this value is at most {MAX_FARE}.")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, list[str]] = {}
        if attrs.get("action", JobAction.NEW) == JobAction.NEW:
            for name in NEW_JOB_REQUIRED:
                if not attrs.get(name):
                    errors[name] = ["This field is required."]
        pickup_time = attrs.get("pickupTime")
        if pickup_time is not None and attrs.get("action") != JobAction.CANCEL:
            earliest = timezone.now() - timedelta(minutes=PICKUP_PAST_TOLERANCE_MINUTES)
            if pickup_time < earliest:
                errors["pickupTime"] = ["Pickup time is in the past."]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def intake_job(self, *, index: int) -> IntakeJob:
        """The validated job in the booking engine's names; only fields actually sent."""
        data = self.validated_data
        fields = {
            PARTNER_JOB_FIELDS[name]: value
            for name, value in data.items()
            if name not in {"jobRef", "action"} and name in self.initial_data
        }
        # Blank optional text means "none"; None from JSON null likewise.
        fields = {name: ("" if value is None else value) for name, value in fields.items()}
        for name in ("fare", "vehicle_type", "passengers"):
            if fields.get(name) == "":
                fields.pop(name)
        return IntakeJob(index=index, job_ref=data["jobRef"], action=data["action"], fields=fields)


class PartnerJobsEnvelopeInputSerializer(InputSerializer):
    jobs = PartnerJobInputSerializer(many=True, max_length=MAX_BATCH)


class JobResultOutputSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="Position of the job in the request.")
    jobRef = serializers.CharField(allow_null=True)
    outcome = serializers.ChoiceField(choices=JobOutcome.choices)
    bookingReference = serializers.CharField(
        required=False, help_text="Present unless the outcome is rejected."
    )
    code = serializers.CharField(
        required=False,
        help_text="Rejected only: invalid_input, content_rejected, job_not_found, "
        "address_not_found, outside_service_area, vehicle_too_small, not_cancellable, "
        "daily_job_limit, daily_bridge_limit.",
    )
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Rejected only: messages by PartnerJob field name.",
    )


class IntakeSummaryOutputSerializer(serializers.Serializer):
    received = serializers.IntegerField()
    accepted = serializers.IntegerField()
    rejected = serializers.IntegerField()


class IntakeOutcomeOutputSerializer(serializers.Serializer):
    """Contract 4.1: one result per job, then the counts."""

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
    jobRef = serializers.CharField()
    bookingReference = serializers.CharField()
    status = serializers.ChoiceField(choices=BookingStatus.choices)
    pickupTime = serializers.DateTimeField()
    driver = JobDriverOutputSerializer(allow_null=True)
    sequence = serializers.IntegerField(
        help_text="The booking's event sequence number, also carried by its webhooks."
    )


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
    bookingReference = serializers.CharField()
    jobRef = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=BookingStatus.choices)
    previousStatus = serializers.ChoiceField(choices=BookingStatus.choices)
    sequence = serializers.IntegerField()
    changed = serializers.BooleanField(help_text="False when the status was already current.")
