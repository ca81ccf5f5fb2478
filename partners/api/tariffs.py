"""GET /api/public/v1/tariffs/{tariffId}: a council tariff or operator rate as connected
dispatch platforms receive it in ``tariff.updated`` (contract 5.3)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api.callers import caller_from_request
from api.permissions import RequiresAccountKind
from api.schema import problem_responses
from api.views import PublicAPIView
from partners.models import Account
from partners.services.tariff_fanout import tariff_get_for_platform
from pricing.api.serializers import EstimateSerializer

WINDOW = serializers.ListField(
    child=serializers.DictField(),
    help_text=(
        'Europe/London windows: {"type": "weekly", "days", "start", "end"}, '
        '{"type": "weekly_span", "from", "to"}, {"type": "annual", "from", "to"} or '
        '{"type": "public_holiday"}.'
    ),
)


class PublishedTariffBandSerializer(serializers.Serializer):
    name = serializers.CharField()
    windows = WINDOW
    excludes = WINDOW
    appliesAfterDistanceM = serializers.FloatField(allow_null=True)
    untilDistanceM = serializers.FloatField(allow_null=True)
    flagFallGBP = serializers.FloatField(allow_null=True)
    flagFallDistanceM = serializers.FloatField(allow_null=True)
    flagFallSeconds = serializers.FloatField(allow_null=True)
    incrementDistanceM = serializers.FloatField(allow_null=True)
    incrementPriceGBP = serializers.FloatField(allow_null=True)
    waitingSecondsPerIncrement = serializers.FloatField(allow_null=True)
    waitingIncrementPriceGBP = serializers.FloatField(
        allow_null=True,
        help_text=(
            "What one waiting increment (waitingSecondsPerIncrement) costs where the table "
            "prices waiting in its own step; null: incrementPriceGBP."
        ),
    )
    multiplierOf = serializers.CharField(allow_null=True)
    multiplier = serializers.FloatField(allow_null=True)
    uncertain = serializers.ListField(child=serializers.CharField())


class PublishedTariffExtraSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    amountGBP = serializers.FloatField(allow_null=True)
    maxGBP = serializers.FloatField(allow_null=True)
    percent = serializers.FloatField(allow_null=True)
    passengerThreshold = serializers.IntegerField()
    windows = WINDOW
    uncertain = serializers.BooleanField()
    status = serializers.CharField(allow_null=True)


class PublishedTariffOutputSerializer(serializers.Serializer):
    """The ``data`` of the latest ``tariff.updated`` event of one tariff."""

    tariffId = serializers.CharField(help_text="The tariffSource.reference quotes show.")
    kind = serializers.ChoiceField(choices=["council", "operator"])
    authority = serializers.CharField(required=False, help_text="Council tariffs.")
    operator = serializers.CharField(required=False, help_text="Operator rates.")
    name = serializers.CharField()
    effectiveFrom = serializers.CharField(
        allow_null=True, help_text="ISO date, or the source's wording when partial."
    )
    version = serializers.IntegerField(help_text="Grows with every change; highest is current.")
    status = serializers.ChoiceField(
        choices=["current", "withdrawn"],
        help_text="withdrawn: deleted, switched off or superseded; no bands or extras.",
    )
    bands = PublishedTariffBandSerializer(many=True)
    extras = PublishedTariffExtraSerializer(many=True)
    basis = serializers.ChoiceField(
        choices=["uprated", "calibrated"],
        required=False,
        help_text="Only on an estimated table (not the authority's own): how it was built.",
    )
    estimate = EstimateSerializer(
        required=False, help_text="Only on an estimated table: its method, error and sources."
    )


EXAMPLE = {
    "tariffId": "network-standard",
    "kind": "operator",
    "operator": "Direct-to-Driver network",
    "name": "Direct-to-Driver network rate",
    "effectiveFrom": "2025-01-01",
    "version": 2,
    "status": "current",
    "bands": [
        {
            "name": "Day",
            "windows": [
                {
                    "type": "weekly",
                    "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                    "start": "06:00",
                    "end": "22:00",
                }
            ],
            "excludes": [{"type": "public_holiday"}],
            "appliesAfterDistanceM": None,
            "untilDistanceM": None,
            "flagFallGBP": 3.6,
            "flagFallDistanceM": 400,
            "flagFallSeconds": None,
            "incrementDistanceM": 160,
            "incrementPriceGBP": 0.2,
            "waitingSecondsPerIncrement": 36,
            "waitingIncrementPriceGBP": None,
            "multiplierOf": None,
            "multiplier": None,
            "uncertain": [],
        }
    ],
    "extras": [],
}


class TariffDetailView(PublicAPIView):
    """A tariff for a connected dispatch platform that missed an event or joins later."""

    # Any account's key gets in; the service then lets only dispatch platforms read.
    permission_classes = [
        AllowAny,
        RequiresAccountKind(
            *Account.Kind.values, hint="Send a connected dispatch platform's API key."
        ),
    ]

    @extend_schema(
        operation_id="tariff_get",
        summary="Read a council tariff or operator rate (connected dispatch platforms)",
        description=(
            "With the API key of an account marked as a connected dispatch platform. "
            "Returns exactly the `data` of the latest `tariff.updated` webhook of this "
            "tariff (Standard Webhooks, signed like status webhooks): kind `council` with "
            "`authority`, or `operator` with `operator`; `version` grows with every change. "
            "A withdrawn tariff answers `status: withdrawn` with no bands or extras."
        ),
        parameters=[
            OpenApiParameter(
                "tariffId",
                str,
                OpenApiParameter.PATH,
                description="The `tariffSource.reference` quotes show.",
            )
        ],
        responses={
            200: PublishedTariffOutputSerializer,
            **problem_responses(
                401,
                403,
                404,
                429,
                s401="No key, or an unknown, revoked or expired one (unauthenticated).",
                s403="The key's account is not a connected dispatch platform "
                "(partner_not_allowed).",
                s404="No tariff published under this id (tariff_not_found).",
            ),
        },
        examples=[OpenApiExample("Operator rate", value=EXAMPLE, response_only=True)],
    )
    def get(self, request, tariffId: str):  # noqa: N803 (the contract's path parameter)
        data = tariff_get_for_platform(caller=caller_from_request(request), tariff_id=tariffId)
        return Response(data)
