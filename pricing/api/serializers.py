"""Input and output serializers of the quote endpoints (seed 2.1-2.3, contract 2.1-2.2).

Class names are unique across the project: drf-spectacular names schema components after
them (STYLE.md).
"""

from __future__ import annotations

from rest_framework import serializers

from api.input_serializers import InputSerializer
from pricing.models import TariffKind
from pricing.vehicles import MAX_PASSENGERS, VehicleType


class QuoteV1RequestSerializer(InputSerializer):
    pickup = serializers.CharField(
        max_length=300, help_text="Address, station, postcode or airport."
    )
    dropoff = serializers.CharField(max_length=300)
    departAt = serializers.DateTimeField(
        required=False, allow_null=True, help_text="ISO 8601, UTC. Night rates apply automatically."
    )
    vehicleType = serializers.ChoiceField(
        choices=VehicleType.choices,
        required=False,
        allow_null=True,
        help_text="Omitted: the smallest class that seats the party.",
    )
    vehicle_type = serializers.ChoiceField(
        choices=VehicleType.choices,
        required=False,
        allow_null=True,
        help_text="Alias of vehicleType (the prose examples' spelling).",
    )
    passengers = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS, default=1)
    meetAndGreet = serializers.BooleanField(
        default=False, help_text="Airport meet and greet, adds 25 GBP."
    )
    worldwide = serializers.BooleanField(default=False, help_text="True for journeys abroad.")


class AppliedRuleSerializer(serializers.Serializer):
    code = serializers.CharField()
    label = serializers.CharField()
    amountGBP = serializers.FloatField()


class TariffSourceSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=TariffKind.choices)
    name = serializers.CharField()
    reference = serializers.CharField()
    effectiveFrom = serializers.CharField(allow_null=True, help_text="Date, or as published.")
    status = serializers.CharField(help_text="The source's own status wording.")
    uncertain = serializers.ListField(
        child=serializers.CharField(), help_text="What the source left unclear."
    )
    sourceUrl = serializers.URLField(allow_null=True)
    band = serializers.CharField(required=False, help_text="The tariff band that applied.")


class QuoteV1ResponseSerializer(serializers.Serializer):
    quote_id = serializers.UUIDField()
    fareGBP = serializers.FloatField()
    currency = serializers.CharField()
    distanceMiles = serializers.FloatField()
    durationMinutes = serializers.IntegerField()
    vehicleType = serializers.ChoiceField(choices=VehicleType.choices)
    passengers = serializers.IntegerField()
    departAt = serializers.DateTimeField()
    appliedRules = AppliedRuleSerializer(many=True, help_text="Sums to fareGBP.")
    tariffSource = TariffSourceSerializer()
    bookingUrl = serializers.URLField()
    expiresAt = serializers.DateTimeField()


class QuoteEstimateRequestSerializer(InputSerializer):
    pickup_address = serializers.CharField(max_length=300)
    dropoff_address = serializers.CharField(max_length=300)
    passenger_count = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS)
    depart_at = serializers.DateTimeField(required=False, allow_null=True)
    vehicle_type = serializers.ChoiceField(
        choices=VehicleType.choices, required=False, allow_null=True
    )


class QuoteEstimateResponseSerializer(serializers.Serializer):
    quote_id = serializers.UUIDField()
    fare = serializers.FloatField()
    currency = serializers.CharField()
    expires_at = serializers.DateTimeField()
