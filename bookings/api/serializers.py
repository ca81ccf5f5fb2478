"""Input and output serializers of the booking endpoints (seed 2.5-2.9, contract 3)."""

from __future__ import annotations

from datetime import UTC

from rest_framework import serializers

from api.input_serializers import InputSerializer
from bookings.passengers import phone_to_e164
from pricing.vehicles import VehicleType

# The alias forms list six classes (seed 2.2, 2.6); every class of the current form is
# accepted there too, as on the quote endpoints, so one agent can use either spelling.
ALIAS_VEHICLE_TYPES = V1_VEHICLE_TYPES = VehicleType.choices
ALIAS_PAYMENT_METHODS = ["cash_to_driver", "card_to_driver", "account"]
V1_PAYMENT_METHODS = ["cash", "card", "pay_driver", "bank_transfer"]
V1_QUOTE_PAYMENT_METHODS = [*V1_PAYMENT_METHODS, "direct_to_driver", *ALIAS_PAYMENT_METHODS]


class PhoneField(serializers.CharField):
    """A phone number, returned in E.164 (contract 3: unparseable is 400)."""

    default_error_messages = {"phone": "Enter a valid phone number in international format."}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        e164 = phone_to_e164(value)
        if e164 is None:
            self.fail("phone")
        return e164


# --- simple alias forms (snake_case) ---------------------------------------------------


class AliasRedeemRequestSerializer(InputSerializer):
    quote_id = serializers.UUIDField()
    passenger_name = serializers.CharField(max_length=200)
    passenger_phone_whatsapp = PhoneField(max_length=40)
    payment_method = serializers.ChoiceField(choices=ALIAS_PAYMENT_METHODS)
    passenger_email = serializers.EmailField(required=False, allow_blank=True)
    flight_number = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)


class AliasRedeemResponseSerializer(serializers.Serializer):
    booking_reference = serializers.CharField()
    status = serializers.CharField()
    status_url = serializers.URLField()


class AliasInstantRequestSerializer(InputSerializer):
    pickup_address = serializers.CharField(max_length=300)
    dropoff_address = serializers.CharField(max_length=300)
    passenger_name = serializers.CharField(max_length=200)
    passenger_phone_whatsapp = PhoneField(max_length=40)
    passenger_count = serializers.IntegerField(min_value=1, max_value=8, default=1)
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
    booking_reference = serializers.CharField()
    fare = serializers.FloatField()
    currency = serializers.CharField()
    status_url = serializers.URLField()
    status = serializers.CharField()


# --- current form (camelCase) ----------------------------------------------------------


class V1BookingRequestSerializer(InputSerializer):
    pickup = serializers.CharField(max_length=300)
    dropoff = serializers.CharField(max_length=300)
    departAt = serializers.DateTimeField(help_text="Pickup time, ISO 8601 UTC; not in the past.")
    passengerName = serializers.CharField(max_length=200)
    passengerEmail = serializers.EmailField(help_text="A real, reachable address.")
    passengerPhone = PhoneField(max_length=40, help_text="Mobile number, international format.")
    passengers = serializers.IntegerField(min_value=1, max_value=8, default=1)
    vehicleType = serializers.ChoiceField(choices=V1_VEHICLE_TYPES, required=False)
    flightNumber = serializers.CharField(max_length=20, required=False, allow_blank=True)
    notes = serializers.CharField(max_length=1000, required=False, allow_blank=True)
    fareGBP = serializers.DecimalField(
        max_digits=8,
        decimal_places=2,
        min_value=0,
        required=False,
        allow_null=True,
        help_text="Partner-supplied fare; when omitted the published tariffs price the job.",
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


class V1BookingResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField()
    status = serializers.CharField()
    statusUrl = serializers.URLField()
    payDriverUrl = serializers.URLField()
    fareGBP = serializers.FloatField()
    currency = serializers.CharField()
    pickupTime = serializers.DateTimeField()


class BookingCancelRequestSerializer(InputSerializer):
    action = serializers.ChoiceField(choices=["cancel"])
    email = serializers.EmailField()
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True)


class BookingCancelResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField()
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
    amountGBP = serializers.FloatField()
    kind = serializers.ChoiceField(choices=["payment", "refund", "fee"])
    method = serializers.CharField()
    reference = serializers.CharField()
    occurredAt = serializers.DateTimeField()


class PaymentOutSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["unpaid", "paid", "part_paid", "refunded"])
    method = serializers.CharField()
    records = PaymentRecordOutSerializer(many=True)


class BookingLookupResponseSerializer(serializers.Serializer):
    bookingReference = serializers.CharField()
    status = serializers.CharField()
    pickupTime = serializers.DateTimeField()
    pickup = serializers.CharField()
    dropoff = serializers.CharField()
    passengers = serializers.IntegerField()
    vehicleType = serializers.CharField()
    fareGBP = serializers.FloatField()
    currency = serializers.CharField()
    statusUrl = serializers.URLField()
    payDriverUrl = serializers.URLField()
    driver = DriverOutSerializer(allow_null=True)
    payment = PaymentOutSerializer()


class PassengerVerifyRequestSerializer(InputSerializer):
    email = serializers.CharField(max_length=254)


class PassengerVerifyResponseSerializer(serializers.Serializer):
    email = serializers.CharField()
    valid = serializers.BooleanField()
    disposable = serializers.BooleanField()
    role = serializers.BooleanField()
    verified = serializers.BooleanField()
    verificationSent = serializers.BooleanField()


def iso_utc(value) -> str:
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")
