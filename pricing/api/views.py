"""GET /api/public/v1/places (issue 22): place suggestions for websites and agents, from
the same service as the landing page's (``pricing.suggestions``)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response

from api.callers import caller_from_request
from api.output import render
from api.problems import validation_problem
from api.schema import problem_responses
from api.views import PublicAPIView
from pricing.api import serializers as s
from pricing.suggestions import LIMIT, LIMIT_MAX, places_find


class PlacesView(PublicAPIView):
    @extend_schema(
        operation_id="places_v1",
        summary="Suggest places (addresses as passengers type them)",
        description=(
            "Places whose name starts with `q`: airports and terminals, rail stations and "
            "venues first, then towns by population; a postcode, full or outward, comes "
            "first as itself (precision postcode). Every `label` sent back as a quote's "
            "pickup or dropoff resolves to the place suggested. Rate limited per caller "
            "(`RATELIMIT_PLACES`)."
        ),
        parameters=[
            OpenApiParameter("q", str, required=True, description="2 to 100 characters."),
            OpenApiParameter(
                "limit", int, required=False, description=f"1 to {LIMIT_MAX}; {LIMIT} if omitted."
            ),
        ],
        responses={200: s.PlacesResponseSerializer, **problem_responses(400, 401, 429)},
        tags=["places"],
    )
    def get(self, request):
        query = s.PlacesQuerySerializer(data=request.query_params)
        if not query.is_valid():
            raise validation_problem(query.errors)
        found = places_find(
            caller=caller_from_request(request),
            query=query.validated_data["q"],
            limit=query.validated_data["limit"],
        )
        return Response(render(s.PlacesResponseSerializer, found))
