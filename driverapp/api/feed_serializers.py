"""The driver app's feed as the API renders it (contract 6): dispatch's offers and the
jobs a driver holds, with an airport pickup's flight (``dispatch.airports``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dispatch.airports import airport_pickup_summary
from driverapp.api.serializers import (
    MONEY,
    AirportPickupOutputSerializer,
    DriverFeedPassengerOutputSerializer,
    DriverProfileOutputSerializer,
)


class DriverFeedItemOutputSerializer(serializers.Serializer):
    offerId = serializers.IntegerField(source="offer.pk", allow_null=True, default=None)
    offerExpiresAt = serializers.DateTimeField(
        source="offer.expires_at", allow_null=True, default=None
    )
    bookingReference = serializers.CharField(source="booking.reference")
    status = serializers.CharField(source="booking.status")
    pickup = serializers.CharField(source="booking.pickup")
    dropoff = serializers.CharField(source="booking.dropoff")
    pickupTime = serializers.DateTimeField(source="booking.pickup_time")
    # Where to navigate to (the phone's maps app); null when an address was not located.
    pickupLat = serializers.FloatField(source="booking.pickup_lat", allow_null=True)
    pickupLng = serializers.FloatField(source="booking.pickup_lng", allow_null=True)
    dropoffLat = serializers.FloatField(source="booking.dropoff_lat", allow_null=True)
    dropoffLng = serializers.FloatField(source="booking.dropoff_lng", allow_null=True)
    passengers = serializers.IntegerField(source="booking.passengers")
    vehicleType = serializers.CharField(source="booking.vehicle_type")
    fareGBP = serializers.DecimalField(source="booking.fare", **MONEY)
    currency = serializers.CharField(source="booking.currency")
    paymentMethod = serializers.CharField(source="booking.payment_method")
    flightNumber = serializers.CharField(source="booking.flight_number")
    airportPickup = serializers.SerializerMethodField(
        method_name="airport_pickup_out",
        help_text="At an airport: the flight's latest arrival, terminal and meeting point.",
    )
    notes = serializers.CharField(source="booking.notes")
    deadMiles = serializers.DecimalField(
        source="offer.dead_miles",
        max_digits=7,
        decimal_places=1,
        coerce_to_string=False,
        allow_null=True,
        default=None,
    )
    passenger = serializers.SerializerMethodField(
        help_text="Name and phone once the job is yours; null while it is only offered."
    )

    @extend_schema_field(DriverFeedPassengerOutputSerializer(allow_null=True))
    def get_passenger(self, item) -> dict | None:
        if not item.assigned:
            return None
        return DriverFeedPassengerOutputSerializer(item.booking).data

    @extend_schema_field(AirportPickupOutputSerializer(allow_null=True))
    def airport_pickup_out(self, item) -> dict | None:
        summary = airport_pickup_summary(item.booking)
        return None if summary is None else AirportPickupOutputSerializer(summary).data


class DriverCancelledJobOutputSerializer(serializers.Serializer):
    bookingReference = serializers.CharField(source="reference")
    pickup = serializers.CharField()
    dropoff = serializers.CharField()
    pickupTime = serializers.DateTimeField(source="pickup_time")
    cancelledAt = serializers.DateTimeField(source="updated_at")
    reason = serializers.CharField(source="cancel_reason")


class DriverJobsFeedOutputSerializer(serializers.Serializer):
    driver = DriverProfileOutputSerializer()
    results = DriverFeedItemOutputSerializer(many=True)
    cancelled = DriverCancelledJobOutputSerializer(
        many=True,
        help_text=(
            "Jobs cancelled while you held them or had them on offer (the last hours, "
            "latest first): do not go to these pickups."
        ),
    )
