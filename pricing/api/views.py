"""POST /api/public/v1/quote (seed 2.1) and POST /api/public/quotes/estimate (seed 2.2)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from api.input_serializers import validated_input
from api.problems import Problem
from api.schema import problem_responses
from api.screening import screening_enforce
from api.views import PublicAPIView
from pricing.api import serializers as s
from pricing.models import Quote
from pricing.services import quote_create

# Snake_case names of the alias form, for errors raised by the service (contract 1.1).
ALIAS_FIELD_NAMES = {
    "pickup": "pickup_address",
    "dropoff": "dropoff_address",
    "vehicleType": "vehicle_type",
    "passengers": "passenger_count",
    "departAt": "depart_at",
}


def _utc(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _depart_at_check(depart_at: dt.datetime | None, field: str) -> None:
    # A quote for a time already gone cannot be booked; a few minutes of clock skew is fine.
    tolerance = dt.timedelta(seconds=getattr(settings, "PRICING_PAST_TOLERANCE_SECONDS", 300))
    if depart_at is not None and depart_at < timezone.now() - tolerance:
        raise Problem(
            400,
            "pickup_in_past",
            "The departure time is in the past.",
            errors={field: ["Must not be in the past."]},
        )


def quote_v1_body(quote: Quote) -> dict:
    """The 200 body of POST /v1/quote (contract 2.1); money as JSON numbers."""
    return {
        "quote_id": str(quote.pk),
        "fareGBP": float(quote.fare),
        "currency": quote.currency,
        "distanceMiles": float(quote.distance_miles),
        "durationMinutes": quote.duration_minutes,
        "vehicleType": quote.vehicle_type,
        "passengers": quote.passengers,
        "departAt": _utc(quote.depart_at),
        "appliedRules": quote.applied_rules,
        "tariffSource": quote.tariff_source,
        "bookingUrl": f"{settings.SITE_URL}/book/?quote={quote.pk}",
        "expiresAt": _utc(quote.expires_at),
    }


class QuoteV1View(PublicAPIView):
    ratelimit_scope = "quote_v1"  # seed 8: 30 quote requests per hour per caller

    @extend_schema(
        operation_id="quote_v1",
        summary="Price a journey (current form)",
        request=s.QuoteV1RequestSerializer,
        responses={200: s.QuoteV1ResponseSerializer, **problem_responses(400, 401, 422, 429)},
        tags=["quotes"],
    )
    def post(self, request):
        if isinstance(request.data, dict):
            screening_enforce(request, request.data)
        data = validated_input(s.QuoteV1RequestSerializer, request.data)
        _depart_at_check(data.get("departAt"), "departAt")
        quote = quote_create(
            pickup=data["pickup"],
            dropoff=data["dropoff"],
            passengers=data["passengers"],
            vehicle_type=data.get("vehicleType") or data.get("vehicle_type"),
            depart_at=data.get("departAt"),
            meet_and_greet=data["meetAndGreet"],
            worldwide=data["worldwide"],
            account=getattr(request, "account", None),
            source=Quote.Source.V1,
        )
        return Response(quote_v1_body(quote))


class QuoteEstimateView(PublicAPIView):
    ratelimit_scope = "quote_alias"

    @extend_schema(
        operation_id="quote_estimate",
        summary="Price a journey (simple alias form, snake_case)",
        request=s.QuoteEstimateRequestSerializer,
        responses={200: s.QuoteEstimateResponseSerializer, **problem_responses(400, 401, 422, 429)},
        tags=["quotes"],
    )
    def post(self, request):
        if isinstance(request.data, dict):
            screening_enforce(request, request.data)
        data = validated_input(s.QuoteEstimateRequestSerializer, request.data)
        _depart_at_check(data.get("depart_at"), "depart_at")
        quote = quote_create(
            pickup=data["pickup_address"],
            dropoff=data["dropoff_address"],
            passengers=data["passenger_count"],
            vehicle_type=data.get("vehicle_type"),
            depart_at=data.get("depart_at"),
            account=getattr(request, "account", None),
            source=Quote.Source.ALIAS,
            field_names=ALIAS_FIELD_NAMES,
        )
        return Response(
            {
                "quote_id": str(quote.pk),
                "fare": float(quote.fare),
                "currency": quote.currency,
                "expires_at": _utc(quote.expires_at),
            }
        )
