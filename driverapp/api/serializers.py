"""Input and output serializers of the driver app API (unique names: drf-spectacular)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.models import FlightStatus
from bookings.transitions import DRIVER_MOVES
from drivers.positions import LATITUDE_LIMIT

MONEY = {"max_digits": 10, "decimal_places": 2, "coerce_to_string": False}

# How the driver was paid; stored on the payment record.
SETTLEMENT_METHODS = ("cash", "card", "payment_link", "bank_transfer", "account")


class DriverLoginInputSerializer(InputSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class DriverVehicleOutputSerializer(serializers.Serializer):
    make = serializers.CharField()
    model = serializers.CharField()
    colour = serializers.CharField()
    registration = serializers.CharField()
    vehicleClass = serializers.CharField(source="vehicle_class")
    seats = serializers.IntegerField()
    wheelchairAccessible = serializers.BooleanField(source="wheelchair_accessible")


class DriverProfileOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    stage = serializers.CharField(help_text="signed_up, approved, trial, billed or suspended")
    # The trial lives on the driver's subscription (billing); null until it exists.
    trialEndsAt = serializers.DateTimeField(source="subscription.trial_ends_at", allow_null=True)
    online = serializers.BooleanField()
    currentJobs = serializers.IntegerField(source="current_jobs")
    maxJobs = serializers.IntegerField(source="max_jobs")
    licensingAuthority = serializers.CharField(source="licensing_authority")
    licenceExpiry = serializers.DateField(source="licence_expiry")


class DriverLoginOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")
    driver = DriverProfileOutputSerializer()


class DriverFeedPassengerOutputSerializer(serializers.Serializer):
    name = serializers.CharField(source="passenger_name")
    phone = serializers.CharField(source="passenger_phone")


class AirportPickupOutputSerializer(serializers.Serializer):
    """An airport pickup's flight and meeting point (issue 15)."""

    airport = serializers.CharField(help_text="IATA code.")
    airportName = serializers.CharField()
    meetingPoint = serializers.CharField()
    flightNumber = serializers.CharField(allow_null=True)
    flightStatus = serializers.ChoiceField(choices=FlightStatus.choices, allow_null=True)
    terminal = serializers.CharField(allow_blank=True)
    landingAt = serializers.DateTimeField(allow_null=True)
    landed = serializers.BooleanField()


class DriverOfferDecisionOutputSerializer(serializers.Serializer):
    offerId = serializers.IntegerField(source="pk")
    status = serializers.CharField(help_text="accepted or declined")
    bookingReference = serializers.CharField(source="booking.reference")
    bookingStatus = serializers.CharField(source="booking.status")


class DriverJobStatusInputSerializer(InputSerializer):
    status = serializers.ChoiceField(choices=[str(s) for s in DRIVER_MOVES])
    lat = serializers.FloatField(
        min_value=-90,
        max_value=90,
        required=False,
        allow_null=True,
        help_text="The driver's position, kept on the event; required for no_show (evidence).",
    )
    lng = serializers.FloatField(min_value=-180, max_value=180, required=False, allow_null=True)
    pickupCode = serializers.CharField(
        max_length=10,
        required=False,
        allow_blank=True,
        help_text="For on_board: the 4-digit code the passenger tells you (their booking "
        "shows it). Required when the booking has one; a wrong one is 422 "
        "pickup_code_mismatch.",
    )


class DriverJobStatusOutputSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="reference")
    status = serializers.CharField()


class DriverSettlementInputSerializer(InputSerializer):
    amountGBP = serializers.DecimalField(
        min_value=Decimal("0.01"),
        help_text="More than 0 and at most 99999.99.",
        **MONEY,
    )
    method = serializers.ChoiceField(choices=SETTLEMENT_METHODS)
    reference = serializers.CharField(max_length=100, required=False, allow_blank=True, default="")
    processorFeeGBP = serializers.DecimalField(
        max_digits=8,
        decimal_places=2,
        coerce_to_string=False,
        min_value=Decimal("0.00"),
        required=False,
        default=Decimal("0.00"),
        help_text="Card processor fee, passed through on the weekly invoice; at most "
        "amountGBP (else 409 settlement_exceeds_fare).",
    )


class DriverSettlementRecordOutputSerializer(serializers.Serializer):
    amountGBP = serializers.DecimalField(source="amount", **MONEY)
    kind = serializers.CharField()
    method = serializers.CharField()
    reference = serializers.CharField()
    processorFeeGBP = serializers.DecimalField(source="processor_fee", **MONEY)
    occurredAt = serializers.DateTimeField(source="occurred_at")


# Renders a dispatch.services.jobs.Settlement.
class DriverSettlementOutputSerializer(serializers.Serializer):
    """The settlement recorded, and the booking's payment state after it."""

    bookingReference = serializers.CharField(source="booking_reference")
    paymentState = serializers.CharField(
        source="payment_state", help_text="unpaid, part_paid, paid or refunded"
    )
    record = DriverSettlementRecordOutputSerializer()


class DriverAvailabilityInputSerializer(InputSerializer):
    online = serializers.BooleanField()
    lat = serializers.FloatField(
        min_value=-LATITUDE_LIMIT, max_value=LATITUDE_LIMIT, required=False, allow_null=True
    )
    lng = serializers.FloatField(min_value=-180, max_value=180, required=False, allow_null=True)


class DriverAvailabilityOutputSerializer(serializers.Serializer):
    online = serializers.BooleanField()
    lat = serializers.FloatField(source="last_lat", allow_null=True)
    lng = serializers.FloatField(source="last_lng", allow_null=True)
    lastSeenAt = serializers.DateTimeField(source="last_seen_at", allow_null=True)
    currentJobs = serializers.IntegerField(source="current_jobs")
    maxJobs = serializers.IntegerField(source="max_jobs")


class DriverLocationFixSerializer(InputSerializer):
    """One fix of a batch. Documents the shape only: the ingest parses reports by hand
    (``drivers.api.ingest.fix_parse``, the same ranges)."""

    lat = serializers.FloatField(min_value=-LATITUDE_LIMIT, max_value=LATITUDE_LIMIT)
    lng = serializers.FloatField(min_value=-180, max_value=180)
    heading = serializers.FloatField(
        min_value=0,
        max_value=360,
        required=False,
        allow_null=True,
        help_text="Direction of travel in degrees clockwise from north, when the device knows.",
    )
    speed = serializers.FloatField(
        min_value=0, max_value=150, required=False, allow_null=True, help_text="Metres per second."
    )
    accuracy = serializers.FloatField(
        min_value=0, max_value=100000, required=False, allow_null=True, help_text="Metres."
    )
    at = serializers.DateTimeField(
        help_text="When the device measured it (ISO 8601; UTC without an offset); at most a "
        "day old and not ahead of the server's clock by more than 5 minutes."
    )


class DriverLocationInputSerializer(DriverLocationFixSerializer):
    """A report of one fix (``at``: the server's time when absent)."""

    at = serializers.DateTimeField(
        required=False,
        help_text="When the device measured it; the server's time when absent. At most a day "
        "old and not ahead of the server's clock by more than 5 minutes.",
    )


class DriverLocationBatchInputSerializer(InputSerializer):
    """A report of the fixes the phone buffered while the signal was gone."""

    fixes = serializers.ListField(
        child=DriverLocationFixSerializer(),
        min_length=1,
        max_length=settings.POSITIONS_BATCH_MAX,
        help_text=f"At most POSITIONS_BATCH_MAX ({settings.POSITIONS_BATCH_MAX}) fixes, each "
        "with its own `at`, in any order: the newest becomes the live position.",
    )


# The body of POST /v1/driver/location: one fix, or a batch (documents the shape only: the
# ingest parses reports by hand, drivers.api.ingest.location_fixes).
DRIVER_LOCATION_REPORT = PolymorphicProxySerializer(
    component_name="DriverLocationReport",
    serializers=[DriverLocationInputSerializer, DriverLocationBatchInputSerializer],
    resource_type_field_name=None,
)


class OsmandCoordsBodySerializer(serializers.Serializer):
    latitude = serializers.FloatField(min_value=-LATITUDE_LIMIT, max_value=LATITUDE_LIMIT)
    longitude = serializers.FloatField(min_value=-180, max_value=180)
    accuracy = serializers.FloatField(required=False, help_text="Metres.")
    speed = serializers.FloatField(required=False, help_text="Metres per second; -1: unknown.")
    heading = serializers.FloatField(required=False, help_text="Degrees; -1: unknown.")
    altitude = serializers.FloatField(required=False, help_text="Metres; not kept.")


class OsmandLocationBodySerializer(serializers.Serializer):
    timestamp = serializers.DateTimeField(
        required=False, help_text="When measured (ISO 8601); the server's time when absent."
    )
    coords = OsmandCoordsBodySerializer()


class OsmandJsonBodySerializer(serializers.Serializer):
    """Traccar Client 9's JSON, for the OpenAPI description only (not an input serializer:
    ``drivers.api.osmand`` reads it, and takes and ignores the SDK's other fields such as
    ``is_moving``, ``odometer``, ``battery``, ``activity`` and ``extras``)."""

    device_id = serializers.CharField(
        max_length=64, help_text="The device identifier the token was issued for."
    )
    location = OsmandLocationBodySerializer(
        help_text="One location, or a list of them (a buffered batch, at most "
        f"POSITIONS_BATCH_MAX, {settings.POSITIONS_BATCH_MAX})."
    )


class DriverLocationOutputSerializer(serializers.Serializer):
    lat = serializers.FloatField()
    lng = serializers.FloatField()
    heading = serializers.FloatField(allow_null=True)
    reportedAt = serializers.DateTimeField(
        help_text="When the newest fix of the report was measured (the server's time for a "
        "fix without `at`)."
    )
    fixes = serializers.IntegerField(help_text="How many fixes the report carried.")


class DriverPeriodTotalsOutputSerializer(serializers.Serializer):
    """A day's or a week's totals (drivers.selectors.PeriodTotals)."""

    start = serializers.DateField(help_text="The day, or the Monday the week starts (UK).")
    jobs = serializers.IntegerField(help_text="Jobs picked up in the period, cancelled ones not.")
    paidGBP = serializers.DecimalField(source="payments", **MONEY)
    refundsGBP = serializers.DecimalField(source="refunds", **MONEY)
    earningsGBP = serializers.DecimalField(
        source="earnings", help_text="Payments recorded minus refunds.", **MONEY
    )
    processorFeesGBP = serializers.DecimalField(source="processor_fees", **MONEY)
    deadMiles = serializers.DecimalField(
        source="dead_miles", max_digits=9, decimal_places=1, coerce_to_string=False
    )


class DriverEarningsJobOutputSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="booking.reference")
    status = serializers.CharField(source="booking.status")
    pickupTime = serializers.DateTimeField(source="booking.pickup_time")
    pickup = serializers.CharField(source="booking.pickup")
    dropoff = serializers.CharField(source="booking.dropoff")
    earningsGBP = serializers.DecimalField(source="earnings", **MONEY)
    deadMiles = serializers.DecimalField(
        source="dead_miles", max_digits=7, decimal_places=1, coerce_to_string=False
    )


# Renders a drivers.selectors.DriverDashboard.
class DriverEarningsOutputSerializer(serializers.Serializer):
    """Earnings, dead mileage and weekly totals, as the driver dashboard shows them."""

    today = DriverPeriodTotalsOutputSerializer()
    thisWeek = DriverPeriodTotalsOutputSerializer(source="this_week")
    weeks = DriverPeriodTotalsOutputSerializer(many=True, help_text="Newest first, 8 weeks.")
    weekJobs = DriverEarningsJobOutputSerializer(source="week_jobs", many=True)


class TariffSubmissionInputSerializer(InputSerializer):
    authority = serializers.CharField(
        max_length=200, help_text="The licensing authority, as GET lists it in `authorities`."
    )
    effectiveFrom = serializers.DateField(help_text="The date the table came into force.")
    figures = serializers.JSONField(
        binary=True,
        help_text="A JSON object: `distanceUnit` (`m` or `yd`), `bands` (each `name`, `days`, "
        "`start`, `end`, `publicHolidays`, `flagFallGBP`, `flagFallDistance`, "
        "`incrementDistance`, `incrementPriceGBP`, `waitingSecondsPerIncrement`, optional "
        "`waitingIncrementPriceGBP`, `appliesAfterDistance`) and `extras` (each `name`, "
        "`amountGBP`, optional `when`).",
    )
    examples = serializers.JSONField(
        binary=True,
        required=False,
        help_text='The fares the card prints: a JSON list of {"miles", "fareGBP", "band"}.',
    )
    photo = serializers.FileField(
        help_text="A photo (JPEG, PNG, WebP) or a PDF of the table, at most "
        "TARIFF_SUBMISSION_MAX_BYTES; an image is stored without its EXIF."
    )


class TariffSubmissionOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    authority = serializers.CharField()
    effectiveFrom = serializers.DateField(source="effective_from")
    status = serializers.CharField(help_text="pending, checked, approved or rejected")
    rejectionReason = serializers.CharField(
        source="rejection_reason", help_text="Why staff rejected it; empty otherwise."
    )
    tariffReference = serializers.SerializerMethodField(
        help_text="The table its approval created (tariffSource.reference in quotes)."
    )
    figures = serializers.JSONField()
    examples = serializers.JSONField()
    createdAt = serializers.DateTimeField(source="created_at")

    def get_tariffReference(self, submission) -> str | None:
        return submission.tariff.reference if submission.tariff_id else None


class TariffSubmissionListOutputSerializer(serializers.Serializer):
    authorities = serializers.ListField(
        child=serializers.CharField(), help_text="Every UK taxi licensing authority."
    )
    results = TariffSubmissionOutputSerializer(many=True)
