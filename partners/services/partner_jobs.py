"""PartnerJob (seed 2.10): the shape of a pushed job, and how one job is validated.

Every door that receives jobs (partner, operator and supplier intake over HTTP, and any
later one) validates a job with :class:`PartnerJobInputSerializer`, here in the service
layer so that ``partners.services.batches`` can validate each job of a batch on its own
(a bad job is a rejected outcome, never a failed batch). The HTTP edge re-exports these
classes so that the OpenAPI schema documents them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.passengers import phone_to_e164
from core.money import gbp
from partners.services.intake import MAX_BATCH, IntakeJob, JobAction
from pricing.vehicles import MAX_PASSENGERS, VehicleType

# Fares beyond this are refused by bookings.policies.fare_require_allowed (the one home of
# the rule); here it only bounds what is rounded (quantize() of 1e30 overflows).
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
    passengers = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS, required=False)
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
        help_text="Agreed fare in GBP when the sender prices the job: more than 0, at most "
        "99999.99.",
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
        """Parsed and rounded half-up to pence (contract 1); whether this sender may set a
        fare at all, and its range, are policies the intake service applies."""
        if value is None:
            return None
        if not value.is_finite():
            raise serializers.ValidationError("A valid number is required.")
        if abs(value) > MAX_FARE:
            return value  # out of range: refused by the policy, never rounded
        return gbp(value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        errors: dict[str, list[str]] = {}
        if attrs.get("action", JobAction.NEW) == JobAction.NEW:
            for name in NEW_JOB_REQUIRED:
                if not attrs.get(name):
                    errors[name] = ["This field is required."]
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
