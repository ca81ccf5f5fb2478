"""TOMP bodies read into what the shared services take: a journey to price, the customer
of a booking, and the typed intake request (``partners.services.intake_request``)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from api.input_serializers import validated_input
from bookings.admission import BookingRequest
from bookings.services import PassengerDetails
from partners.services.intake_request import IntakeBatch, IntakeJob, JobAction
from pricing.models import Quote
from pricing.vehicles import MAX_PASSENGERS

# A TOMP booking id is the planning option's id (our quote's) behind this prefix; it is
# also the intake job's jobRef, so a repeated COMMIT is idempotent on (account, jobRef).
JOB_REF_PREFIX = "TOMP-"

PLACE_NEEDS_TEXT = (
    "Give the place's name or physicalAddress: coordinates alone are not located "
    "(conditionRequireBookingData FROM-ADDRESS, TO-ADDRESS)."
)


class TompInputSerializer(serializers.Serializer):
    # Not api.input_serializers.InputSerializer: TOMP's schemas allow members beyond the
    # ones a taxi operator reads (travelers, radius, extraInfo, ...), and a MaaS provider
    # sends them; they are accepted and not used, as the specification intends.
    pass


class TompAddressInputSerializer(TompInputSerializer):
    streetAddress = serializers.CharField(max_length=300, required=False, allow_blank=True)
    postalCode = serializers.CharField(max_length=20, required=False, allow_blank=True)
    city = serializers.CharField(max_length=100, required=False, allow_blank=True)


class TompPlaceInputSerializer(TompInputSerializer):
    name = serializers.CharField(max_length=300, required=False, allow_blank=True)
    physicalAddress = TompAddressInputSerializer(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        address = attrs.get("physicalAddress") or {}
        parts = [address.get(k, "").strip() for k in ("streetAddress", "city", "postalCode")]
        text = ", ".join(p for p in parts if p) or attrs.get("name", "").strip()
        if not text:
            raise serializers.ValidationError(PLACE_NEEDS_TEXT)
        return {"text": text}


class TompPlanningInputSerializer(TompInputSerializer):
    to = TompPlaceInputSerializer()
    departureTime = serializers.DateTimeField(required=False)
    nrOfTravelers = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS, required=False)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        origin = TompPlaceInputSerializer(data=data.get("from") if isinstance(data, dict) else None)
        if not origin.is_valid():
            raise serializers.ValidationError({"from": origin.errors})
        values["from"] = origin.validated_data
        return values


class TompPhoneInputSerializer(TompInputSerializer):
    number = serializers.CharField(max_length=40)


class TompCustomerInputSerializer(TompInputSerializer):
    firstName = serializers.CharField(max_length=100, required=False, allow_blank=True)
    lastName = serializers.CharField(max_length=100, required=False, allow_blank=True)
    email = serializers.EmailField(required=False, allow_blank=True)
    phones = TompPhoneInputSerializer(many=True, required=False)


class TompBookingRequestInputSerializer(TompInputSerializer):
    id = serializers.CharField(max_length=100)
    customer = TompCustomerInputSerializer(required=False)


OPERATIONS = ("COMMIT", "CANCEL", "DENY", "EXTEND_EXPIRY_TIME")


class TompBookingOperationInputSerializer(TompInputSerializer):
    operation = serializers.ChoiceField(choices=OPERATIONS)


@dataclass(frozen=True)
class TompJourney:
    """What a planning request asks to price."""

    pickup: str
    dropoff: str
    depart_at: dt.datetime | None
    passengers: int


def tomp_journey_read(body: Any) -> TompJourney:
    """A planningRequest's journey; 400 ``invalid_input`` with TOMP's field names."""
    values = validated_input(TompPlanningInputSerializer, body)
    return TompJourney(
        pickup=values["from"]["text"],
        dropoff=values["to"]["text"],
        depart_at=values.get("departureTime"),
        passengers=values.get("nrOfTravelers") or 1,
    )


def tomp_booking_request_read(body: Any) -> tuple[str, PassengerDetails]:
    """A bookingRequest: the option's id, and its customer as our passenger details."""
    values = validated_input(TompBookingRequestInputSerializer, body)
    customer = values.get("customer") or {}
    name = " ".join(
        part for part in (customer.get("firstName", ""), customer.get("lastName", "")) if part
    )
    phones = customer.get("phones") or []
    passenger = PassengerDetails(
        name=name, email=customer.get("email", ""), phone=phones[0]["number"] if phones else ""
    )
    return values["id"], passenger


def tomp_operation_read(body: Any) -> str:
    return validated_input(TompBookingOperationInputSerializer, body)["operation"]


def tomp_job_ref(option_id: str) -> str:
    return JOB_REF_PREFIX + option_id


def tomp_commit_batch(*, quote: Quote, passenger: PassengerDetails) -> IntakeBatch:
    """The committed option as the typed intake request: one new job, the quote's
    journey at its time, for the customer given when it was booked."""
    request = BookingRequest(
        passenger=passenger,
        pickup=quote.pickup,
        dropoff=quote.dropoff,
        depart_at=quote.depart_at,
        passengers=quote.passengers,
        vehicle_type=quote.vehicle_type,
    )
    sent = {"pickup", "dropoff", "pickup_time", "passengers", "vehicle_type"}
    sent |= {
        name
        for name, value in (
            ("passenger_name", passenger.name),
            ("passenger_email", passenger.email),
            ("passenger_phone", passenger.phone),
        )
        if value
    }
    job = IntakeJob(
        index=0,
        job_ref=tomp_job_ref(str(quote.pk)),
        action=JobAction.NEW,
        request=request,
        sent=frozenset(sent),
    )
    return IntakeBatch(jobs=[job], single=True)


def tomp_cancel_batch(*, option_id: str) -> IntakeBatch:
    job = IntakeJob(index=0, job_ref=tomp_job_ref(option_id), action=JobAction.CANCEL)
    return IntakeBatch(jobs=[job], single=True)


SUPPORT_TYPES = (
    "BROKEN_DOWN",
    "NOT_AT_LOCATION",
    "MISSING_AFTER_PAUSE",
    "NOT_CLEAN",
    "NOT_AVAILABLE",
    "UNABLE_TO_OPEN",
    "UNABLE_TO_CLOSE",
    "API_TECHNICAL",
    "API_FUNCTIONAL",
    "ACCIDENT",
    "OTHER",
)
SUPPORT_PRIORITIES = (
    "ERROR_CANNOT_CONTINUE",
    "ERROR_CAN_CONTINUE",
    "DISTURBING_ISSUE",
    "QUESTION",
    "OTHER",
)


class TompSupportRequestInputSerializer(TompInputSerializer):
    # The specification makes every member optional; a taxi operator helps on a booking,
    # so its id is required here (a damage report on an asset never booked is not ours).
    id = serializers.CharField(max_length=100)
    supportType = serializers.ChoiceField(choices=SUPPORT_TYPES, required=False)
    priority = serializers.ChoiceField(choices=SUPPORT_PRIORITIES, required=False)
    time = serializers.DateTimeField(required=False)
    comment = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    contactInformationEndUser = serializers.CharField(
        max_length=200, required=False, allow_blank=True
    )
    requestedResponseTime = serializers.FloatField(min_value=0, required=False)


@dataclass(frozen=True)
class TompSupportRequest:
    """A supportRequest as we keep it: the booking it is on, and the members we read,
    in TOMP's names (``request``), to answer them back in its supportStatus."""

    option_id: str
    support_type: str
    priority: str
    comment: str
    request: dict[str, Any]


def tomp_support_request_read(body: Any) -> TompSupportRequest:
    values = validated_input(TompSupportRequestInputSerializer, body)
    request = {**values, "supportType": values.get("supportType", "OTHER")}
    if "time" in request:
        request["time"] = request["time"].astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    return TompSupportRequest(
        option_id=values["id"],
        support_type=request["supportType"],
        priority=values.get("priority", ""),
        comment=values.get("comment", ""),
        request=request,
    )
