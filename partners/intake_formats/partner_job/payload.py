"""PartnerJob (seed 2.10): a pushed body read into the typed intake request.

:func:`partner_job_batch_read` is the format's reader, handed to
``partners.services.batches.intake_batch_receive``: the body's shape (one PartnerJob, an
array, or ``{"jobs": [...]}``, at most 100) and each job validated on its own with
:class:`PartnerJobInputSerializer` (a bad job is a rejected outcome, never a failed batch)
into an :class:`~partners.services.intake_request.IntakeJob`. The HTTP edge re-exports the
serializers so that the OpenAPI schema documents them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.admission import BookingRequest
from bookings.passengers import phone_to_e164
from bookings.services import PassengerDetails
from core.errors import DomainError
from core.money import gbp
from partners.services.intake_request import (
    MAX_BATCH,
    IntakeBatch,
    IntakeJob,
    JobAction,
    JobResult,
    text_echo,
)
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
        """The validated job as the typed intake request; ``sent`` names only the fields
        actually sent (blank optional text and null mean "none")."""
        data = self.validated_data
        sent = {
            PARTNER_JOB_FIELDS[name]: value
            for name, value in data.items()
            if name not in {"jobRef", "action"} and name in self.initial_data
        }
        for name in ("fare", "vehicle_type", "passengers"):
            if sent.get(name) in (None, ""):
                sent.pop(name, None)
        text = {name: value or "" for name, value in sent.items()}
        request = BookingRequest(
            passenger=PassengerDetails(
                name=text.get("passenger_name", ""),
                email=text.get("passenger_email", ""),
                phone=text.get("passenger_phone", ""),
            ),
            flight_number=text.get("flight_number", ""),
            notes=text.get("notes", ""),
            pickup=text.get("pickup", ""),
            dropoff=text.get("dropoff", ""),
            depart_at=sent.get("pickup_time"),
            passengers=sent.get("passengers") or 1,
            vehicle_type=sent.get("vehicle_type"),
            fare=sent.get("fare"),
        )
        return IntakeJob(
            index=index,
            job_ref=data["jobRef"],
            action=data["action"],
            request=request,
            sent=frozenset(sent),
        )


class PartnerJobsEnvelopeInputSerializer(InputSerializer):
    jobs = PartnerJobInputSerializer(many=True, max_length=MAX_BATCH)


NOT_TEXT = "Not valid text: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)."


def partner_job_body_jobs(body: Any) -> tuple[list[Any], bool]:
    """The raw jobs of a body (one PartnerJob, an array, or {"jobs": [...]}), and whether it
    was a single job. 400 invalid_body for any other shape, batch_too_large past 100."""
    if isinstance(body, list):
        jobs, single = body, False
    elif isinstance(body, dict) and "jobs" in body and "jobRef" not in body:
        jobs, single = body["jobs"], False
        if not isinstance(jobs, list):
            raise DomainError("invalid_body", '"jobs" must be an array of PartnerJob objects.')
    elif isinstance(body, dict):
        jobs, single = [body], True
    else:
        raise DomainError(
            "invalid_body", 'Send one PartnerJob object, an array of them, or {"jobs": [...]}.'
        )
    if not jobs:
        raise DomainError("invalid_body", "The batch holds no jobs.")
    if len(jobs) > MAX_BATCH:
        raise DomainError(
            "batch_too_large",
            f"A batch holds at most {MAX_BATCH} jobs; this one has {len(jobs)}.",
        )
    return jobs, single


def _unreadable_fields(raw: dict) -> dict[str, list[str]]:
    """Fields (names or values) holding lone surrogates: no database stores them."""
    return {
        text_echo(name): [NOT_TEXT]
        for name, value in raw.items()
        if text_echo(name) != name or (isinstance(value, str) and text_echo(value) != value)
    }


def partner_job_read(*, index: int, raw: Any) -> IntakeJob:
    """One raw PartnerJob as the typed intake request; DomainError (with field errors)
    otherwise."""
    if not isinstance(raw, dict):
        raise DomainError(
            "invalid_input",
            "Expected a PartnerJob object.",
            errors={"non_field_errors": ["Expected a PartnerJob object."]},
        )
    unreadable = _unreadable_fields(raw)
    if unreadable:
        raise DomainError(
            "invalid_input", "The job holds text that is not valid.", errors=unreadable
        )
    serializer = PartnerJobInputSerializer(data=raw)
    if not serializer.is_valid():
        raise DomainError(
            "invalid_input",
            "The job has invalid fields; see errors.",
            errors={
                name: [str(message) for message in messages]
                for name, messages in serializer.errors.items()
            },
        )
    return serializer.intake_job(index=index)


def partner_job_batch_read(body: Any) -> IntakeBatch:
    """A PartnerJob body as the typed intake request: each job read on its own, a bad one
    a rejected result (contract 4.1); a body of another shape is refused whole."""
    raw_jobs, single = partner_job_body_jobs(body)
    jobs: list[IntakeJob] = []
    rejected: list[JobResult] = []
    for index, raw in enumerate(raw_jobs):
        try:
            jobs.append(partner_job_read(index=index, raw=raw))
        except DomainError as error:
            job_ref = text_echo(raw.get("jobRef")) if isinstance(raw, dict) else None
            rejected.append(JobResult.from_error(index=index, job_ref=job_ref, error=error))
    return IntakeBatch(jobs=jobs, rejected=rejected, single=single)
