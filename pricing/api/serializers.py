"""Input and output serializers of the quote endpoints (seed 2.1-2.3, contract 2.1-2.2).

Class names are unique across the project: drf-spectacular names schema components after
them (STYLE.md).
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.input_serializers import InputSerializer
from pricing.gazetteer import PRECISIONS
from pricing.models import TariffBasis, TariffKind
from pricing.routing import distance_range_miles
from pricing.suggestions import LIMIT, LIMIT_MAX, QUERY_MAX, QUERY_MIN
from pricing.vehicles import MAX_PASSENGERS, VehicleType


class QuoteV1RequestSerializer(InputSerializer):
    pickup = serializers.CharField(
        max_length=300,
        help_text=(
            "Address, venue, station, postcode, town or airport (name or IATA code). "
            "Where it resolved to comes back as pickupPlace."
        ),
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
        default=False,
        help_text=(
            f"Airport meet and greet, adds {settings.PRICING_MEET_AND_GREET_GBP} GBP. Only for "
            "a pickup that resolves to an "
            "airport (pickupPlace.precision airport); elsewhere 400 invalid_input."
        ),
    )
    worldwide = serializers.BooleanField(default=False, help_text="True for journeys abroad.")


QUOTE_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def quote_time(value: dt.datetime | None) -> str | None:
    """A quote's time as :class:`QuoteTimeField` renders it: UTC to the second with a
    ``Z``, a naive one taken as UTC, None for none."""
    if not value:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        value = value.replace(tzinfo=dt.UTC)
    return value.astimezone(dt.UTC).strftime(QUOTE_TIME_FORMAT)


class QuoteTimeField(serializers.DateTimeField):
    """UTC to the second with a ``Z`` (contract 1, 2.1)."""

    def __init__(self, **kwargs):
        super().__init__(
            format=QUOTE_TIME_FORMAT, default_timezone=dt.UTC, read_only=True, **kwargs
        )


def quote_booking_url(quote_id) -> str:
    """The prefilled website booking page for the quote (seed 2.3)."""
    return f"{settings.SITE_URL}/book/?quote={quote_id}"


@extend_schema_field(OpenApiTypes.URI)
class BookingUrlField(serializers.Field):
    """The prefilled website booking page for the quote (seed 2.3)."""

    def __init__(self, **kwargs):
        super().__init__(source="pk", read_only=True, **kwargs)

    def to_representation(self, quote_id):
        return quote_booking_url(quote_id)


class FrozenJSONSerializer(serializers.Serializer):
    """A part of the quote frozen as JSON when it was priced (appliedRules, tariffSource),
    already in the shape its fields document: rendered as stored, so the breakdown a
    client sees is exactly the one the fare was computed from."""

    def to_representation(self, instance):
        return instance


class AppliedRuleSerializer(FrozenJSONSerializer):
    code = serializers.CharField()
    label = serializers.CharField()
    amountGBP = serializers.FloatField()


class EstimateSourceSerializer(FrozenJSONSerializer):
    """A published figure an estimate rests on, with its publisher and date."""

    url = serializers.URLField()
    publisher = serializers.CharField()
    date = serializers.CharField(help_text="The date of the figure or report, as published.")
    secondary = serializers.BooleanField(help_text="A press or trade report, not the authority.")


class EstimateSerializer(FrozenJSONSerializer):
    """How an estimated fare (basis uprated or calibrated) was reached: the method, its
    measured error and the published figures it rests on (contract 2.1)."""

    method = serializers.CharField()
    errorPct = serializers.FloatField(
        help_text="The method's measured error: how far the meter may differ (percent)."
    )
    sources = EstimateSourceSerializer(many=True)


class TariffSourceSerializer(FrozenJSONSerializer):
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
    licensingAuthority = serializers.CharField(
        allow_null=True,
        help_text=(
            "The licensing authority whose area holds the pickup, whatever priced the "
            "fare; null outside the UK."
        ),
    )
    basis = serializers.ChoiceField(
        choices=TariffBasis.choices,
        required=False,
        help_text=(
            "How the fare was reached, best first: table (the authority's complete table "
            "in force), uprated (its last complete table with every later published change "
            "applied), calibrated (its published fares fitted to a reference meter), "
            "network (nothing of the authority's is known: the network's approved rate). "
            "Absent only for a fare the sending partner set."
        ),
    )
    estimate = EstimateSerializer(
        required=False,
        help_text="For uprated and calibrated: the method, its measured error and sources.",
    )


class AlternativePlaceSerializer(FrozenJSONSerializer):
    """Another fair reading of the same text (contract 2.1 ``alternatives``)."""

    label = serializers.CharField()
    lat = serializers.FloatField()
    lng = serializers.FloatField()
    precision = serializers.ChoiceField(choices=list(PRECISIONS))


class ResolvedPlaceSerializer(FrozenJSONSerializer):
    """Where an end of the journey was placed (contract 2.1), stored when it was priced;
    null for quotes and bookings made before places were kept."""

    label = serializers.CharField()
    lat = serializers.FloatField()
    lng = serializers.FloatField()
    precision = serializers.ChoiceField(choices=list(PRECISIONS))
    source = serializers.CharField(help_text="gazetteer, postcodes, nominatim or photon.")
    alternatives = AlternativePlaceSerializer(
        many=True,
        required=False,
        help_text=(
            "Present where the text had other fair readings ('Victoria': London Victoria, "
            "Manchester Victoria; 'Newport'): the ones not used, so that a passenger or an "
            "agent can send the intended one instead. The reading used is the one near the "
            "journey's other end, else the most important."
        ),
    )

    def to_representation(self, instance):
        return instance or None


class DistanceRangeSerializer(serializers.Serializer):
    low = serializers.FloatField()
    high = serializers.FloatField()


@extend_schema_field(DistanceRangeSerializer(allow_null=True))
class DistanceRangeField(serializers.Field):
    """Where an estimated distance most likely lies (issue 22); null when routed."""

    def __init__(self, **kwargs):
        super().__init__(source="*", read_only=True, **kwargs)

    def to_representation(self, quote):
        return distance_range_miles(quote.distance_miles, quote.distance_source)


class QuoteV1ResponseSerializer(serializers.Serializer):
    quote_id = serializers.UUIDField(source="pk")
    fareGBP = serializers.FloatField(source="fare")
    currency = serializers.CharField()
    distanceMiles = serializers.FloatField(source="distance_miles")
    durationMinutes = serializers.IntegerField(source="duration_minutes")
    distanceSource = serializers.ChoiceField(
        choices=["road", "estimate"],
        source="distance_source",
        help_text="road: measured by a routing backend; estimate: straight line (through "
        "the known estuary crossings and motorway detours) x a road factor fitted to "
        "published road distances; see distanceRangeMiles.",
    )
    distanceRangeMiles = DistanceRangeField(
        help_text="For distanceSource estimate: the road miles the journey most likely "
        "measures (8 in 10 real journeys lie in this range); null when routed."
    )
    vehicleType = serializers.ChoiceField(choices=VehicleType.choices, source="vehicle_type")
    passengers = serializers.IntegerField()
    departAt = QuoteTimeField(source="depart_at")
    appliedRules = AppliedRuleSerializer(
        many=True, source="applied_rules", help_text="Sums to fareGBP."
    )
    tariffSource = TariffSourceSerializer(source="tariff_source")
    pickupPlace = ResolvedPlaceSerializer(source="pickup_place", allow_null=True)
    dropoffPlace = ResolvedPlaceSerializer(source="dropoff_place", allow_null=True)
    bookingUrl = BookingUrlField()
    expiresAt = QuoteTimeField(source="expires_at")

    def to_representation(self, quote):
        """What the fields above give, written out: 10 us a quote against 26 us for DRF's
        loop over them (issue 41). The fields stay the schema's source;
        ``pricing/tests/test_quote_rendering.py`` holds this to DRF's own rendering of
        them, byte for byte. A field added above must be added here."""
        pk = quote.pk
        return {
            "quote_id": _or_none(str, pk),
            "fareGBP": _or_none(float, quote.fare),
            "currency": _or_none(str, quote.currency),
            "distanceMiles": _or_none(float, quote.distance_miles),
            "durationMinutes": _or_none(int, quote.duration_minutes),
            "distanceSource": _or_none(str, quote.distance_source),
            "distanceRangeMiles": distance_range_miles(quote.distance_miles, quote.distance_source),
            "vehicleType": _or_none(str, quote.vehicle_type),
            "passengers": _or_none(int, quote.passengers),
            "departAt": quote_time(quote.depart_at),
            "appliedRules": _or_none(list, quote.applied_rules),
            "tariffSource": quote.tariff_source,
            "pickupPlace": quote.pickup_place or None,
            "dropoffPlace": quote.dropoff_place or None,
            "bookingUrl": None if pk is None else quote_booking_url(pk),
            "expiresAt": quote_time(quote.expires_at),
        }


def _or_none(convert, value):
    """A DRF field's rendering of a value: None stays None, the rest is converted."""
    return None if value is None else convert(value)


class QuoteEstimateRequestSerializer(InputSerializer):
    pickup_address = serializers.CharField(max_length=300)
    dropoff_address = serializers.CharField(max_length=300)
    passenger_count = serializers.IntegerField(min_value=1, max_value=MAX_PASSENGERS)
    depart_at = serializers.DateTimeField(required=False, allow_null=True)
    vehicle_type = serializers.ChoiceField(
        choices=VehicleType.choices, required=False, allow_null=True
    )


class QuoteEstimateResponseSerializer(serializers.Serializer):
    quote_id = serializers.UUIDField(source="pk")
    fare = serializers.FloatField()
    currency = serializers.CharField()
    expires_at = QuoteTimeField()


class PlacesQuerySerializer(serializers.Serializer):
    """``GET /api/public/v1/places`` query (issue 22)."""

    q = serializers.CharField(
        min_length=QUERY_MIN,
        max_length=QUERY_MAX,
        trim_whitespace=True,
        help_text="The start of a place name, a station, an airport or terminal, or a "
        "postcode (full or outward), as a passenger types it.",
    )
    limit = serializers.IntegerField(
        min_value=1, max_value=LIMIT_MAX, default=LIMIT, help_text="How many places at most."
    )


class PlaceSuggestionSerializer(serializers.Serializer):
    label = serializers.CharField(
        help_text="Send this as pickup or dropoff: it resolves to this place."
    )
    precision = serializers.ChoiceField(choices=list(PRECISIONS), source="kind")
    kindLabel = serializers.CharField(source="kind_label")
    lat = serializers.FloatField()
    lng = serializers.FloatField()


class PlacesResponseSerializer(serializers.Serializer):
    places = PlaceSuggestionSerializer(many=True, source="*")
