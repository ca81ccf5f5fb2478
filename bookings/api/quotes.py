"""POST /api/public/v1/quote (seed 2.1) and POST /api/public/quotes/estimate (seed 2.2).

Each view parses, calls one use case of ``bookings.actions`` (where the quote's policies
live: rate limit, screening, pickup time) and renders with the documented serializer.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from api.callers import caller_from_request
from api.input_serializers import validated_input
from api.output import render
from api.schema import problem_responses
from api.views import PublicAPIView
from bookings import actions
from bookings.api import examples
from pricing.api import serializers as s

# What both quote operations have always published: drf-spectacular took it from the
# shared base's docstring while these views had none of their own (until issue 38, which
# removed the dead ``ratelimit_scope`` hook it names). Kept word for word so the published
# description does not change; the quote's limit is ``bookings.policies``' (RATELIMIT_QUOTE).
PUBLISHED_DESCRIPTION = (
    "Anonymous or keyed (contract 1.2); rate limited per key or IP under ``ratelimit_scope``."
    "\n\nA signed (HMAC) request is good once: a repeat gets the first outcome "
    "(SignedOnceMixin).\nAn Idempotency-Key is scoped to the authenticated caller "
    "(contract 1.3)."
)


class QuoteV1View(PublicAPIView):
    @extend_schema(
        operation_id="quote_v1",
        summary="Price a journey (current form)",
        description=PUBLISHED_DESCRIPTION,
        request=s.QuoteV1RequestSerializer,
        examples=examples.QUOTE_V1,
        responses={
            200: s.QuoteV1ResponseSerializer,
            **problem_responses(
                400,
                401,
                422,
                429,
                s400="Invalid input, e.g. meetAndGreet for a pickup that is not an airport.",
                s422=(
                    "address_not_found (an end cannot be placed, or a postcode that does "
                    "not exist), outside_service_area, or address_not_precise (both ends "
                    "on one point; an end placed only as far as the town its text names "
                    "something inside, e.g. a street without its postcode where no street "
                    "geocoder is configured; or a town's centre for a journey inside it)."
                ),
            ),
        },
        tags=["quotes"],
    )
    def post(self, request):
        data = validated_input(s.QuoteV1RequestSerializer, request.data)
        quote = actions.quote_request(
            caller=caller_from_request(request),
            pickup=data["pickup"],
            dropoff=data["dropoff"],
            depart_at=data.get("departAt"),
            passengers=data["passengers"],
            vehicle_type=data.get("vehicleType") or data.get("vehicle_type"),
            meet_and_greet=data["meetAndGreet"],
            worldwide=data["worldwide"],
        )
        return Response(render(s.QuoteV1ResponseSerializer, quote))


class QuoteEstimateView(PublicAPIView):
    @extend_schema(
        operation_id="quote_estimate",
        summary="Price a journey (simple alias form, snake_case)",
        description=PUBLISHED_DESCRIPTION,
        request=s.QuoteEstimateRequestSerializer,
        examples=examples.QUOTE_ESTIMATE,
        responses={200: s.QuoteEstimateResponseSerializer, **problem_responses(400, 401, 422, 429)},
        tags=["quotes"],
    )
    def post(self, request):
        data = validated_input(s.QuoteEstimateRequestSerializer, request.data)
        quote = actions.quote_estimate(
            caller=caller_from_request(request),
            pickup=data["pickup_address"],
            dropoff=data["dropoff_address"],
            passengers=data["passenger_count"],
            depart_at=data.get("depart_at"),
            vehicle_type=data.get("vehicle_type"),
        )
        return Response(render(s.QuoteEstimateResponseSerializer, quote))
