"""Input and output serializers of the booking endpoints (seed 2.5-2.9, contract 3)."""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.passengers import phone_assessed
from bookings.selectors import dispatch_opens_at, driver_public_summary
from bookings.services import booking_pay_driver_url, booking_status_url, payment_state
from pricing.api.serializers import ResolvedPlaceSerializer
from pricing.vehicles import MAX_PASSENGERS, VehicleType

# The alias forms list six classes (seed 2.2, 2.6); every class of the current form is
# accepted there too, as on the quote endpoints, so one agent can use either spelling.
ALIAS_VEHICLE_TYPES = V1_VEHICLE_TYPES = VehicleType.choices
ALIAS_PAYMENT_METHODS = ["cash_to_driver", "card_to_driver", "account"]
V1_PAYMENT_METHODS = ["cash", "card", "pay_driver", "bank_transfer"]
V1_QUOTE_PAYMENT_METHODS = [*V1_PAYMENT_METHODS, "direct_to_driver", *ALIAS_PAYMENT_METHODS]


class PhoneField(serializers.CharField):
    """A phone number, returned in E.164 (contract 3: not a valid number is 400). The
    booking actions apply the same rule (and, on the current form, require a mobile),
    reading the verdict the returned number carries instead of parsing it again."""

    default_error_messages = {"phone": "Enter a valid phone number in international format."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        phone = phone_assessed(value)
        if phone is None:
            self.fail("phone")
        return phone


# --- simple alias forms (snake_case) ---------------------------------------------------


class AliasRedeemRequestSerializer(InputSerializer):
    quote_id = serializers.UUIDField()
    passenger_name = serializers.CharField(max_length=200)
    passenger_phone_whatsapp = PhoneField(max_length=40)
    payment_method = serializers.ChoiceField(choices=ALIAS_PAYMENT_METHODS)
    passenger_email = serializers.EmailField(required=False, allow_blank=True)
    flight_number = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)


# --- output: rendered from the Booking the action returns -----------------------------


class UTCDateTimeField(serializers.DateTimeField):
    """ISO 8601 in UTC with a ``Z`` suffix (contract 1), whatever the current time zone."""

    def __init__(self, **kwargs):
        super().__init__(default_timezone=UTC, read_only=True, **kwargs)


@extend_schema_field(OpenApiTypes.URI)
class StatusUrlField(serializers.Field):
    """The booking's tracking page (contract 3)."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, booking):
        return booking_status_url(booking)


@extend_schema_field(OpenApiTypes.URI)
class PayDriverUrlField(StatusUrlField):
    """The page where the passenger pays the driver directly (contract 3)."""

    def to_representation(self, booking):
        return booking_pay_driver_url(booking)


class AliasRedeemResponseSerializer(serializers.Serializer):
    booking_reference = serializers.CharField(source="reference")
    status = serializers.CharField()
    status_url = StatusUrlField()


class AliasInstantRequestSerializer(InputSerializer):
    pickup_address = serializers.CharField(max_length=300)
    dropoff_address = serializers.CharField(max_length=300)
    passenger_name = serializers.CharField(max_length=200)
    passenger_phone_whatsapp = PhoneField(max_length=40)
    passenger_count = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS, default=1)
    passenger_email = serializers.EmailField(required=False, allow_blank=True)
    depart_at = serializers.DateTimeField(required=False, allow_null=True)
    vehicle_type = serializers.ChoiceField(choices=ALIAS_VEHICLE_TYPES, required=False)
    payment_method = serializers.ChoiceField(
        choices=ALIAS_PAYMENT_METHODS, default="cash_to_driver"
    )
    flight_number = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    agent = serializers.CharField(max_length=100, required=False, allow_blank=True)


class AliasInstantResponseSerializer(serializers.Serializer):
    booking_reference = serializers.CharField(source="reference")
    fare = serializers.FloatField()
    currency = serializers.CharField()
    status_url = StatusUrlField()
    status = serializers.CharField()


# --- current form (camelCase) ----------------------------------------------------------


class V1BookingRequestSerializer(InputSerializer):
    pickup = serializers.CharField(max_length=300)
    dropoff = serializers.CharField(max_length=300)
    departAt = serializers.DateTimeField(
        help_text="Pickup time, ISO 8601 UTC; not in the past, at most a year ahead."
    )
    passengerName = serializers.CharField(max_length=200)
    passengerEmail = serializers.EmailField(help_text="A real, reachable address.")
    passengerPhone = PhoneField(max_length=40, help_text="Mobile number, international format.")
    passengers = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS, default=1)
    vehicleType = serializers.ChoiceField(choices=V1_VEHICLE_TYPES, required=False)
    flightNumber = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    fareGBP = serializers.DecimalField(
        max_digits=8,
        decimal_places=2,
        min_value=0,
        required=False,
        allow_null=True,
        help_text=(
            "The sender's own fare, from partner, operator and supplier accounts allowed to "
            "price (anyone else: 403 fare_not_allowed); more than 0, at most 99999.99. "
            "When omitted the published tariffs price the job."
        ),
    )
    paymentMethod = serializers.ChoiceField(choices=V1_PAYMENT_METHODS, default="cash")

    # The prose examples write vehicle_type; the schema names it vehicleType (seed 2.1).
    field_aliases = {"vehicle_type": "vehicleType"}


class V1RedeemRequestSerializer(InputSerializer):
    """The quote-redeeming form of the current booking endpoint (seed 2.7 prose)."""

    quote_id = serializers.UUIDField()
    passenger_name = serializers.CharField(max_length=200)
    passenger_email = serializers.EmailField()
    passenger_phone = PhoneField(max_length=40)
    payment_method = serializers.ChoiceField(choices=V1_QUOTE_PAYMENT_METHODS, default="cash")
    flight_number = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)


class PickupCodeField(serializers.CharField):
    """The booking's pickup code (bookings.pickup_codes), null when it has none."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "pickup_code")
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault(
            "help_text",
            "The 4-digit code the passenger tells the driver to start the trip; null when "
            "the booking has none (the sending account opted out).",
        )
        super().__init__(**kwargs)

    def to_representation(self, value):
        return value or None


class V1BookingResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="reference")
    status = serializers.CharField()
    statusUrl = StatusUrlField()
    payDriverUrl = PayDriverUrlField()
    fareGBP = serializers.FloatField(source="fare")
    currency = serializers.CharField()
    pickupTime = UTCDateTimeField(source="pickup_time")
    pickupPlace = ResolvedPlaceSerializer(source="pickup_place", allow_null=True)
    dropoffPlace = ResolvedPlaceSerializer(source="dropoff_place", allow_null=True)
    pickupCode = PickupCodeField()


class BookingCancelRequestSerializer(InputSerializer):
    action = serializers.ChoiceField(choices=["cancel"])
    email = serializers.EmailField()
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True)


class BookingCancelResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="reference")
    status = serializers.CharField()


class BookingLookupQuerySerializer(serializers.Serializer):
    email = serializers.EmailField()


class VehicleOutSerializer(serializers.Serializer):
    make = serializers.CharField()
    model = serializers.CharField()
    colour = serializers.CharField()
    registration = serializers.CharField()


class DriverOutSerializer(serializers.Serializer):
    name = serializers.CharField()
    vehicle = VehicleOutSerializer(allow_null=True)
    licensingAuthority = serializers.CharField()


class PaymentRecordOutSerializer(serializers.Serializer):
    amountGBP = serializers.FloatField(source="amount")
    kind = serializers.ChoiceField(choices=["payment", "refund", "fee"])
    method = serializers.CharField()
    reference = serializers.CharField()
    occurredAt = UTCDateTimeField(source="occurred_at")


class PaymentOutSerializer(serializers.Serializer):
    """The booking's payment state and its immutable settlement log (contract 3.2)."""

    state = serializers.SerializerMethodField()
    method = serializers.CharField(source="payment_method")
    records = PaymentRecordOutSerializer(source="payment_records.all", many=True)

    @extend_schema_field(
        serializers.ChoiceField(choices=["unpaid", "paid", "part_paid", "refunded"])
    )
    def get_state(self, booking) -> str:
        return payment_state(list(booking.payment_records.all()), booking.fare_due)


class FareLineOutSerializer(serializers.Serializer):
    code = serializers.CharField()
    label = serializers.CharField()
    amountGBP = serializers.FloatField()


class FinalFareOutSerializer(serializers.Serializer):
    """The fare as settled when the passenger boarded: the booked fare's lines plus a
    ``waiting`` line for waiting beyond the free minutes (issue 15)."""

    amountGBP = serializers.FloatField()
    lines = FareLineOutSerializer(many=True)


class BookingLookupResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="reference")
    status = serializers.CharField()
    pickupTime = UTCDateTimeField(source="pickup_time")
    pickup = serializers.CharField()
    dropoff = serializers.CharField()
    pickupPlace = ResolvedPlaceSerializer(source="pickup_place", allow_null=True)
    dropoffPlace = ResolvedPlaceSerializer(source="dropoff_place", allow_null=True)
    passengers = serializers.IntegerField()
    vehicleType = serializers.CharField(source="vehicle_type")
    fareGBP = serializers.FloatField(source="fare")
    currency = serializers.CharField()
    statusUrl = StatusUrlField()
    payDriverUrl = PayDriverUrlField()
    pickupCode = PickupCodeField()
    driver = serializers.SerializerMethodField()
    payment = PaymentOutSerializer(source="*")
    dispatchStartsAt = serializers.SerializerMethodField(
        help_text="When dispatch starts (or started) looking for a driver: the booking's "
        "dispatch window, a lead time before pickup. Until then the booking stays "
        "confirmed. Null for jobs the operator's own fleet dispatches."
    )

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_dispatchStartsAt(self, booking) -> str | None:
        opens_at = dispatch_opens_at(booking)
        return None if opens_at is None else UTCDateTimeField().to_representation(opens_at)

    finalFare = serializers.SerializerMethodField(method_name="final_fare_out")

    @extend_schema_field(DriverOutSerializer(allow_null=True))
    def get_driver(self, booking) -> dict | None:
        return driver_public_summary(booking.driver, booking.vehicle)

    @extend_schema_field(FinalFareOutSerializer(allow_null=True))
    def final_fare_out(self, booking) -> dict | None:
        if booking.final_fare is None:
            return None
        lines = [
            {**line, "amountGBP": float(Decimal(str(line["amountGBP"])))}
            for line in booking.final_fare_lines
        ]
        return {"amountGBP": float(booking.final_fare), "lines": lines}


class PassengerVerifyRequestSerializer(InputSerializer):
    email = serializers.CharField(max_length=254)


class PassengerVerifyResponseSerializer(serializers.Serializer):
    email = serializers.CharField()
    valid = serializers.BooleanField()
    disposable = serializers.BooleanField()
    role = serializers.BooleanField()
    verified = serializers.BooleanField()
    verificationSent = serializers.BooleanField(source="verification_sent")
