"""Partner, operator and supplier intake, reconciliation, and the inbound status hook.

Contract 4 and 5.2. Each view authenticates (partners.authentication), parses, calls one
service (partners.services.batches, .reconciliation, .status) and renders the output
serializer that the OpenAPI schema documents.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.callers import caller_from_request
from api.input_serializers import validated_input
from api.permissions import RequiresAccountKind
from api.schema import (
    JUST_NOW,
    LANDING_TOMORROW,
    TOMORROW_DATE,
    problem_responses,
)
from api.views import PublicAPIView
from driverapp.api.feed_serializers import DriverJobsFeedOutputSerializer
from driverapp.api.jobs import DriverJobsFeedView
from partners.api.serializers import (
    BookingStatusReportInputSerializer,
    BookingStatusReportOutputSerializer,
    FlightStatusReportInputSerializer,
    FlightStatusReportOutputSerializer,
    IntakeOutcomeOutputSerializer,
    JobReconciliationOutputSerializer,
    JobsChangedOutputSerializer,
    JobsChangedQuerySerializer,
    OperatorIntakeGuideOutputSerializer,
)
from partners.api.status_hook_examples import BOOKING_STATUS
from partners.authentication import (
    AccountKeyAuthentication,
    HmacSignatureAuthentication,
    SupplierAuthentication,
)
from partners.intake_formats.partner_job.guide import (
    INTAKE_EXAMPLES,
    INTAKE_REQUEST,
    operator_intake_guide,
)
from partners.intake_formats.partner_job.payload import partner_job_batch_read
from partners.models import Account
from partners.services.batches import IntakeReceipt, intake_batch_receive
from partners.services.flights import flight_status_receive
from partners.services.operator import operator_intake_guide_admit
from partners.services.reconciliation import job_reconcile, jobs_changed_list
from partners.services.status import booking_status_hook_receive

# The senders of jobs: they push, reconcile, report statuses and flights. An agent's key
# has no jobs, so at these doors it is no key (or, for flights, partner_not_allowed).
INTAKE_KINDS = frozenset({Account.Kind.PARTNER, Account.Kind.OPERATOR, Account.Kind.SUPPLIER})
SIGNED_HINT = (
    "Send the account's API key (Bearer or x-api-key) or sign the request "
    "(x-partner / x-operator and x-signature)."
)
# Every door below keeps PublicAPIView's AllowAny first, so the schema still lists the
# anonymous caller beside the key schemes as it always has; RequiresAccountKind then
# answers 401 to anyone who is not one of the door's senders.
SENDERS = RequiresAccountKind(*INTAKE_KINDS, hint=SIGNED_HINT)


def intake_outcome_responses(*statuses: int, **descriptions: str) -> dict:
    return {
        200: OpenApiResponse(IntakeOutcomeOutputSerializer, description="Every job accepted."),
        207: OpenApiResponse(
            IntakeOutcomeOutputSerializer, description="Mixed: at least one job rejected."
        ),
        **problem_responses(*statuses, **descriptions),
    }


def intake_response(receipt: IntakeReceipt) -> Response:
    """200 when every job was accepted, 207 when any was rejected (contract 4.1)."""
    body = IntakeOutcomeOutputSerializer(receipt).data
    return Response(body, status=207 if receipt.any_rejected else 200)


def intake_receive(request, sender_kind: str) -> Response:
    """The PartnerJob door of ``sender_kind`` (the view requires an account of that
    kind): the body read by the native format."""
    caller = caller_from_request(request, source=sender_kind)
    receipt = intake_batch_receive(
        caller=caller, sender_kind=sender_kind, body=request.data, read=partner_job_batch_read
    )
    return intake_response(receipt)


SAFE_METHODS = ("GET", "HEAD")


def wants_driver_feed(request) -> bool:
    """GET /v1/jobs is the driver app's feed (contract 6), unless it asks for the senders'
    reconciliation feed with ``updatedSince`` (contract 4.2)."""
    return request.method in SAFE_METHODS and "updatedSince" not in request.GET


class PartnerJobsView(PublicAPIView):
    """POST: partner intake. GET with updatedSince: the sender's reconciliation feed.
    GET without: the driver-scoped job feed, served by the driver app's view."""

    permission_classes = [
        AllowAny,
        RequiresAccountKind(Account.Kind.PARTNER, hint=SIGNED_HINT, methods=["POST"]),
        RequiresAccountKind(*INTAKE_KINDS, hint=SIGNED_HINT, methods=SAFE_METHODS),
    ]

    def get_permissions(self):
        # The driver's feed is handed over whole: its view requires a driver (IsDriver).
        if self.request is not None and wants_driver_feed(self.request):
            return []
        return super().get_permissions()

    def get_authenticators(self):
        if self.request is not None and wants_driver_feed(self.request):
            return [auth() for auth in DriverJobsFeedView.authentication_classes]
        return [AccountKeyAuthentication(), HmacSignatureAuthentication()]

    def initial(self, request, *args, **kwargs):
        if wants_driver_feed(request):
            # The feed authenticates and rate-limits itself once delegated to.
            APIView.initial(self, request, *args, **kwargs)
            return
        super().initial(request, *args, **kwargs)

    def perform_authentication(self, request):
        if not wants_driver_feed(request):
            super().perform_authentication(request)

    @extend_schema(
        operation_id="jobs_feed",
        summary="The driver's job feed, or a sender's jobs changed since a time",
        description=(
            "Without `updatedSince`: the driver app's feed (contract 6): the driver's open "
            "offers (with offerId and offerExpiresAt; passenger details hidden) and the jobs "
            "they hold, with the token from /v1/driver/login. With `updatedSince` and the "
            "sender's credentials (partner, operator or supplier key, or HMAC over "
            "`{x-timestamp}.GET {path with query}`): the sender's own jobs whose state "
            "changed at or after that time, oldest change first, 100 a page; follow `next`."
        ),
        parameters=[JobsChangedQuerySerializer(partial=True)],
        responses={
            200: PolymorphicProxySerializer(
                component_name="JobsFeed",
                serializers=[DriverJobsFeedOutputSerializer, JobsChangedOutputSerializer],
                resource_type_field_name=None,
            ),
            **problem_responses(400, 401, 403, 409, 429),
        },
        auth=[
            {"tokenAuth": []},
            {"ApiKeyHeader": []},
            {"ApiKeyXHeader": []},
            {"BearerKey": []},
            {"HmacSignature": []},
        ],
    )
    def get(self, request, *args, **kwargs):
        if wants_driver_feed(request):
            return DriverJobsFeedView.as_view()(request._request)
        query = validated_input(JobsChangedQuerySerializer, request.query_params.dict())
        page = jobs_changed_list(
            caller=caller_from_request(request),
            updated_since=query["updatedSince"],
            cursor=query.get("cursor"),
        )
        context = {"updated_since": query["updatedSince"]}
        return Response(JobsChangedOutputSerializer(page, context=context).data)

    @extend_schema(
        operation_id="partner_jobs_push",
        summary="Push partner jobs (one, an array of at most 100, or {jobs: [...]})",
        description=(
            "Partner intake (seed 2.10, contract 4). Idempotent on (partner, jobRef): a "
            "repeat is `unchanged` with the same bookingReference. `action` new, amend or "
            "cancel; amend changes only the fields sent. With `fare` the job is priced on "
            "the sender's fare, otherwise on the tariffs. 200 when every job is accepted, "
            "207 when any is rejected (see `results[].errors`). Auth: partner API key "
            "(Bearer or x-api-key), or `x-partner` + `x-signature` (hex HMAC-SHA256 of the "
            "raw body, or of `{x-timestamp}.{body}` when x-timestamp is sent)."
        ),
        request=INTAKE_REQUEST,
        responses=intake_outcome_responses(
            400,
            401,
            403,
            409,
            429,
            s403="Partner intake paused (bridge_paused).",
            s409="Idempotency-Key in flight.",
            s429="Rate limited, or daily_job_limit reached (Retry-After: until UK midnight).",
        ),
        examples=INTAKE_EXAMPLES,
    )
    def post(self, request, *args, **kwargs):
        return intake_receive(request, Account.Kind.PARTNER)


class PartnerJobDetailView(PublicAPIView):
    """Reconciliation read of one pushed job (contract 4.2)."""

    permission_classes = [
        AllowAny,
        RequiresAccountKind(*INTAKE_KINDS, hint="Send the credentials the job was pushed with."),
    ]

    @extend_schema(
        operation_id="partner_job_get",
        summary="Reconcile one pushed job by the sender's jobRef",
        description=(
            "With the sender's own credentials (partner, operator or supplier key, or "
            "HMAC over `{x-timestamp}.GET {path}` with x-timestamp). `sequence` is the "
            "booking's event sequence number, also carried by its webhooks: the highest one "
            "is the latest state."
        ),
        responses={
            200: JobReconciliationOutputSerializer,
            **problem_responses(
                401,
                404,
                409,
                429,
                s404="No such job from this sender (job_not_found).",
                s409="A copy of this signed request is still being answered.",
            ),
        },
    )
    def get(self, request, job_ref: str):
        booking = job_reconcile(caller=caller_from_request(request), job_ref=job_ref)
        return Response(JobReconciliationOutputSerializer(booking).data)


class OperatorJobsView(PublicAPIView):
    """GET: how to connect (no key). POST: operator bridge intake into its own queue."""

    permission_classes = [
        AllowAny,
        RequiresAccountKind(Account.Kind.OPERATOR, hint=SIGNED_HINT, methods=["POST"]),
    ]

    def get_authenticators(self):
        if self.request is not None and self.request.method in SAFE_METHODS:
            return []
        return [AccountKeyAuthentication(), HmacSignatureAuthentication()]

    def initial(self, request, *args, **kwargs):
        if request.method in SAFE_METHODS:
            APIView.initial(self, request, *args, **kwargs)
            return
        super().initial(request, *args, **kwargs)

    @extend_schema(
        operation_id="operator_jobs_guide",
        summary="How an operator connects its bridge (no key needed)",
        auth=[],
        responses={
            200: OperatorIntakeGuideOutputSerializer,
            **problem_responses(
                406, 429, s406="The client accepts no JSON (send Accept: application/json)."
            ),
        },
    )
    def get(self, request):
        operator_intake_guide_admit(caller=caller_from_request(request))
        return Response(OperatorIntakeGuideOutputSerializer(operator_intake_guide()).data)

    @extend_schema(
        operation_id="operator_jobs_push",
        summary="Push operator jobs into the operator's own dashboard and fleet",
        description=(
            "Operator bridge intake (seed 4 rule 2, contract 4.2): accepted jobs go to the "
            "operator's own queue, calendar and fleet, not to central dispatch. One job (a "
            "single job with invalid fields is 400), an array of at most 100, or "
            '{"jobs": [...]}. Auth: operator bridge key, or `x-operator` + `x-signature`.'
        ),
        request=INTAKE_REQUEST,
        responses=intake_outcome_responses(
            400,
            401,
            403,
            409,
            429,
            s403="bridge_paused, or operator_not_approved for live intake.",
            s409="Idempotency-Key in flight.",
            s429="Rate limited, or daily_bridge_limit reached (Retry-After: until UK midnight).",
        ),
        examples=INTAKE_EXAMPLES,
    )
    def post(self, request):
        return intake_receive(request, Account.Kind.OPERATOR)


class SupplierHookView(PublicAPIView):
    """POST /hooks/{supplier}-booking: a corporate supplier's single or batch jobs."""

    authentication_classes = [SupplierAuthentication]
    permission_classes = [AllowAny, RequiresAccountKind(Account.Kind.SUPPLIER, hint=SIGNED_HINT)]

    @extend_schema(
        operation_id="supplier_booking_hook",
        summary="Supplier job intake (one job, an array, or {jobs: [...]})",
        description=(
            "`{supplier}` is the supplier's account slug. Auth: header `x-{supplier}-secret` "
            "with one of the supplier's API keys (never the signing secret), or "
            "`x-signature` (HMAC as for partner intake). Same outcomes as partner intake; "
            "idempotent on jobRef."
        ),
        parameters=[OpenApiParameter("supplier", OpenApiTypes.STR, OpenApiParameter.PATH)],
        request=INTAKE_REQUEST,
        responses=intake_outcome_responses(
            400,
            401,
            403,
            404,
            409,
            429,
            s403="Supplier intake paused (bridge_paused).",
            s404="Unknown supplier.",
            s409="Idempotency-Key in flight.",
            s429="Rate limited, or daily_job_limit reached.",
        ),
        examples=INTAKE_EXAMPLES,
        auth=[],
    )
    def post(self, request, supplier: str):
        return intake_receive(request, Account.Kind.SUPPLIER)


class BookingStatusHookView(PublicAPIView):
    """POST /hooks/booking-status: status from the platform or fleet holding a job."""

    permission_classes = [AllowAny, SENDERS]

    @extend_schema(
        operation_id="booking_status_hook",
        summary="Report a job's status from the platform or fleet that holds it",
        description=(
            "Signed like intake (`x-partner` + `x-signature`, or an API key). Only legal "
            "transitions apply (else 409 invalid_transition), and only the job's holder (the "
            "fleet it was handed to, or an operator for its own-fleet job) reports its "
            "progress: the sender of a job the network's drivers serve may report "
            "`cancelled` only (else 403 not_job_holder). Repeating the current status "
            "is a no-op 200 with `changed: false`. A partner fleet answers a job offered to "
            "it (webhook `booking.offered`) by `bookingReference` with `accepted` (it takes "
            "the job and reports progress here afterwards) or `declined` (dispatch moves "
            "on); `declined` is accepted by this hook only. Answering an offer that is no "
            "longer open is 409 offer_closed."
        ),
        request=BookingStatusReportInputSerializer,
        examples=BOOKING_STATUS,
        responses={
            200: BookingStatusReportOutputSerializer,
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                429,
                s403="not_job_holder: the job is served by the network's own drivers, so its "
                "sender may report cancelled only.",
                s404="No such booking sent by, held by or offered to this account.",
                s409="invalid_transition, or offer_closed (a fleet's offer timed out, was "
                "withdrawn or already answered).",
            ),
        },
    )
    def post(self, request):
        report = validated_input(BookingStatusReportInputSerializer, request.data)
        receipt = booking_status_hook_receive(
            caller=caller_from_request(request),
            status=report["status"],
            occurred_at=report["occurredAt"],
            booking_reference=report.get("bookingReference"),
            job_ref=report.get("jobRef"),
            driver=report.get("driver") or None,
        )
        return Response(BookingStatusReportOutputSerializer(receipt).data)


FLIGHT_EXAMPLES = [
    OpenApiExample(
        "Delayed, every pickup on the flight",
        value={
            "flightNumber": "BA1234",
            "scheduledDate": TOMORROW_DATE,
            "status": "delayed",
            "estimatedArrival": LANDING_TOMORROW,
            "terminal": "5",
        },
        request_only=True,
    ),
    OpenApiExample(
        "Landed, one booking",
        value={
            "flightNumber": "EZY12",
            "bookingReference": "DTD-7K3QX9PA",
            "status": "landed",
            "actualArrival": JUST_NOW,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Pickup moved",
        value={
            "flightNumber": "BA1234",
            "status": "delayed",
            "bookings": [
                {
                    "bookingReference": "DTD-7K3QX9PA",
                    "pickupTime": "2026-12-01T11:35:00Z",
                    "previousPickupTime": "2026-12-01T10:45:00Z",
                    "moved": True,
                    "changed": True,
                    "terminal": "5",
                    "landingAt": "2026-12-01T10:50:00Z",
                }
            ],
        },
        response_only=True,
        status_codes=["200"],
    ),
]


class FlightStatusView(PublicAPIView):
    """POST /v1/flights/status: a flight's arrival, from the sender of airport pickups."""

    permission_classes = [
        AllowAny,
        RequiresAccountKind(
            *INTAKE_KINDS,
            hint=SIGNED_HINT,
            other_kind="partner_not_allowed",
            other_kind_detail="Flight updates come from the partner, operator or supplier "
            "that sent the booking.",
        ),
    ]

    @extend_schema(
        operation_id="flight_status_report",
        summary="Report a flight's arrival: the airport pickups on it follow it",
        description=(
            "For partners, operators and suppliers (API key or HMAC signature, as intake), "
            "when no flight status provider is configured or the sender knows better. The "
            "pickup of each of the sender's bookings on the flight (one by "
            "`bookingReference`, or all on `scheduledDate`) moves to the landing (actual, "
            "else estimated) plus the airport's collection allowance; the driver and the "
            "passenger are told. The free waiting at the airport counts from the landing. "
            "A repeat is a no-op (`changed: false`)."
        ),
        request=FlightStatusReportInputSerializer,
        responses={
            200: FlightStatusReportOutputSerializer,
            **problem_responses(
                400,
                401,
                403,
                404,
                409,
                422,
                429,
                s400="invalid_input (a bad flight number, a missing time), content_rejected.",
                s403="partner_not_allowed: a key of an account that sends no jobs.",
                s404="booking_not_found: no booking of yours on that flight and date.",
                s409="flight_update_closed: the passenger is on board or the booking ended.",
                s422="not_airport_pickup: the booking is not picked up at an airport.",
            ),
        },
        examples=FLIGHT_EXAMPLES,
    )
    def post(self, request):
        report = validated_input(FlightStatusReportInputSerializer, request.data)
        receipt = flight_status_receive(
            caller=caller_from_request(request),
            flight_number=report["flightNumber"],
            status=report["status"],
            scheduled_date=report.get("scheduledDate"),
            booking_reference=report.get("bookingReference"),
            estimated_arrival=report.get("estimatedArrival"),
            actual_arrival=report.get("actualArrival"),
            terminal=report["terminal"],
        )
        return Response(FlightStatusReportOutputSerializer(receipt).data)
