"""The driver app's API for dispatch's use cases (contract 6): the job feed, answering
offers, moving a job, settling it, and the earnings. Each view stands on the driver app's
``DriverAPIView`` (token, limit per driver, Idempotency-Key) and calls one dispatch
service or selector.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from api.input_serializers import validated_input
from api.schema import problem_responses
from dispatch import selectors
from dispatch.services import jobs, offers
from driverapp.api.examples import SETTLEMENT
from driverapp.api.feed_serializers import DriverJobsFeedOutputSerializer
from driverapp.api.serializers import (
    DriverEarningsOutputSerializer,
    DriverJobStatusInputSerializer,
    DriverJobStatusOutputSerializer,
    DriverOfferDecisionOutputSerializer,
    DriverSettlementInputSerializer,
    DriverSettlementOutputSerializer,
)
from driverapp.api.views import TAGS, DriverAPIView


class DriverJobsFeedView(DriverAPIView):
    """GET /api/public/v1/jobs for driver-app clients: offered and accepted jobs.

    The path is shared with partner intake (POST); the partners app routes GET here.
    """

    @extend_schema(
        operation_id="driver_jobs_feed",
        tags=TAGS,
        responses={200: DriverJobsFeedOutputSerializer, **problem_responses(401, 403, 429)},
        description=(
            "The driver's open offers (with offerId and offerExpiresAt; passenger details "
            "hidden), the jobs they hold (with passenger name and phone), and the jobs "
            "cancelled under them in the last hours. Authenticate "
            "with the token from /v1/driver/login."
        ),
    )
    def get(self, request: Request) -> Response:
        feed = selectors.driver_app_feed(driver=self.driver)
        return Response(DriverJobsFeedOutputSerializer(feed).data)


class DriverOfferAcceptView(DriverAPIView):
    @extend_schema(
        operation_id="driver_offer_accept",
        tags=TAGS,
        request=None,
        responses={
            200: DriverOfferDecisionOutputSerializer,
            **problem_responses(
                401,
                403,
                404,
                409,
                429,
                s409="offer_closed: declined, withdrawn or timed out; driver_busy: at maximum load.",
            ),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        offer = offers.offer_accept(offer_id=pk, driver=self.driver)
        return Response(DriverOfferDecisionOutputSerializer(offer).data)


class DriverOfferDeclineView(DriverAPIView):
    @extend_schema(
        operation_id="driver_offer_decline",
        tags=TAGS,
        request=None,
        responses={
            200: DriverOfferDecisionOutputSerializer,
            **problem_responses(401, 403, 404, 409, 429, s409="offer_closed"),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        offer = offers.offer_decline(offer_id=pk, driver=self.driver)
        return Response(DriverOfferDecisionOutputSerializer(offer).data)


class DriverJobStatusView(DriverAPIView):
    @extend_schema(
        operation_id="driver_job_status",
        tags=TAGS,
        request=DriverJobStatusInputSerializer,
        responses={
            200: DriverJobStatusOutputSerializer,
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                429,
                422,
                s400="invalid_input (a no_show without lat and lng; on_board without the "
                "booking's pickupCode).",
                s422="pickup_code_mismatch: not the code the passenger's booking shows.",
                s429="rate_limited: the driver's limit, or 5 wrong pickup codes for this "
                "booking in 15 minutes (every try refused until Retry-After).",
                s409="invalid_transition; no_show_too_early: the free waiting is not over "
                "(noShowFrom says when it is); no_show_too_far: more than "
                "NO_SHOW_MAX_DISTANCE_M from the pickup; not_at_pickup (arrived): the "
                "app's own latest position report is more than ARRIVED_MAX_DISTANCE_M from "
                "the pickup; position_unknown: no position report in the last 2 minutes "
                "(arrived and no_show are judged by the driver's own reports).",
            ),
        },
        examples=[
            OpenApiExample(
                "Arrived",
                value={"status": "arrived", "lat": 53.7951, "lng": -1.5474},
                request_only=True,
            ),
            OpenApiExample(
                "On board, with the passenger's code",
                value={"status": "on_board", "pickupCode": "4821"},
                request_only=True,
            ),
            OpenApiExample(
                "No-show",
                value={"status": "no_show", "lat": 53.7951, "lng": -1.5474},
                request_only=True,
            ),
        ],
    )
    def post(self, request: Request, ref: str) -> Response:
        body = validated_input(DriverJobStatusInputSerializer, request.data)
        booking = jobs.driver_job_status_change(
            driver=self.driver,
            reference=ref,
            to_status=body["status"],
            lat=body.get("lat"),
            lng=body.get("lng"),
            pickup_code=body.get("pickupCode"),
        )
        return Response(DriverJobStatusOutputSerializer(booking).data)


class DriverJobSettlementView(DriverAPIView):
    @extend_schema(
        operation_id="driver_job_settlement",
        tags=TAGS,
        request=DriverSettlementInputSerializer,
        examples=SETTLEMENT,
        responses={
            201: DriverSettlementOutputSerializer,
            200: OpenApiResponse(
                DriverSettlementOutputSerializer,
                description="The same payment reference was already recorded: nothing new.",
            ),
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                429,
                s400="invalid_input: amountGBP must be more than 0 and at most 99999.99.",
                s409="not_settleable: the job is neither on board nor completed; "
                "settlement_exceeds_fare: the job's settlements would add up to more than "
                "the passenger owes (the final fare, else the booked fare), or "
                "processorFeeGBP is more than amountGBP.",
            ),
        },
    )
    def post(self, request: Request, ref: str) -> Response:
        body = validated_input(DriverSettlementInputSerializer, request.data)
        settlement = jobs.driver_job_settle(
            driver=self.driver,
            reference=ref,
            amount=body["amountGBP"],
            method=body["method"],
            payment_reference=body["reference"],
            processor_fee=body["processorFeeGBP"],
        )
        output = DriverSettlementOutputSerializer(settlement).data
        return Response(output, status=201 if settlement.created else 200)


class DriverEarningsView(DriverAPIView):
    @extend_schema(
        operation_id="driver_earnings",
        tags=TAGS,
        responses={200: DriverEarningsOutputSerializer, **problem_responses(401, 403, 429)},
        description=(
            "Today's and this week's jobs, earnings and dead mileage, and the last 8 weeks' "
            "totals (weeks run Monday to Sunday, UK time): what the driver dashboard shows. "
            "Earnings are the payments recorded for the driver minus refunds, never quoted "
            "fares."
        ),
    )
    def get(self, request: Request) -> Response:
        dashboard = selectors.driver_dashboard(driver=self.driver)
        return Response(DriverEarningsOutputSerializer(dashboard).data)
