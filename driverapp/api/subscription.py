"""The driver app's view of its subscription: GET /api/public/v1/driver/subscription
(contract 6). The page ``driver/billing/`` shows the same overview."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.schema import problem_responses
from billing.services.overview import driver_subscription_overview
from driverapp.api.subscription_serializers import DriverSubscriptionOutputSerializer
from driverapp.api.views import DriverView

EXAMPLE = {
    "stage": "billed",
    "trialEndsAt": "2026-08-24T09:00:00Z",
    "weeklyFeeGBP": 20.0,
    "freeBelowGBP": 500.0,
    "currentWeek": {"start": "2026-11-16", "earningsGBP": 612.5, "feeDueGBP": 20.0},
    "invoices": [
        {
            "number": "INV-0000042",
            "weekStart": "2026-11-09",
            "totalGBP": 20.3,
            "status": "due",
            "url": "https://taxi.example/driver/billing/invoices/42/",
        }
    ],
}


class DriverSubscriptionView(DriverView):
    @extend_schema(
        operation_id="driver_subscription",
        tags=["driver app"],
        responses={
            200: DriverSubscriptionOutputSerializer,
            **problem_responses(
                401, 403, 429, s403="permission_denied: the token's login is not a driver."
            ),
        },
        examples=[OpenApiExample("A billed driver", value=EXAMPLE, response_only=True)],
        description=(
            "The driver's subscription as the app shows it (seed 3, 8): stage, trial end, "
            "the weekly fee and the earnings under which a week is free, the week so far "
            "priced by the invoice rules, and past invoices. Authenticate with the token "
            "from /v1/driver/login."
        ),
    )
    def get(self, request: Request) -> Response:
        overview = driver_subscription_overview(driver=self.driver)
        return Response(DriverSubscriptionOutputSerializer(overview).data)
