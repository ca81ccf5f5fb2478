"""Driver app API (contract 6): login, logout, availability, position reports and fare
table submissions, and ``DriverAPIView``, the base of the driver's own endpoints.

Each view authenticates the driver's token, rate limits per driver (scope ``driver``),
validates its input serializer and calls one service. The feed, offers, job status,
settlement and earnings (dispatch's use cases) are ``driverapp.api.jobs``; the
subscription (billing's) is ``driverapp.api.subscription``.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.callers import caller_from_request, client_ip
from api.idempotency import IdempotentViewMixin
from api.input_serializers import validated_input
from api.permissions import IsDriver
from api.principals import request_driver
from api.schema import FIX_FIVE_SECONDS_AGO, FIX_TEN_SECONDS_AGO, problem_responses
from driverapp.api import examples
from driverapp.api.authentication import (
    DriverPositionTokenAuthentication,
    DriverTokenAuthentication,
    driver_login,
)
from driverapp.api.serializers import (
    DRIVER_LOCATION_REPORT,
    DriverAvailabilityInputSerializer,
    DriverAvailabilityOutputSerializer,
    DriverLocationOutputSerializer,
    DriverLoginInputSerializer,
    DriverLoginOutputSerializer,
    OsmandJsonBodySerializer,
    TariffSubmissionInputSerializer,
    TariffSubmissionListOutputSerializer,
    TariffSubmissionOutputSerializer,
)
from drivers import services
from drivers.api import ingest
from drivers.tokens import driver_tokens_end
from pricing.models import SubmitterKind
from pricing.submissions.figures import authorities
from pricing.submissions.sending import Submitter, submissions_of, tariff_submission_create

TAGS = ["driver app"]
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="1 to 255 characters: the same key and body within 24 h replay the first "
    "answer (`Idempotent-Replayed: true`) and record nothing again; another body is 422.",
)
OSMAND_DESCRIPTION = (
    "The OsmAnd protocol as Traccar Client (and OsmAnd) sends it: paste the server URL "
    "that `manage.py tracker_device_issue` prints into the app. Each fix is recorded as a "
    "driver app report would be; the device identifier must be the token's. Counted "
    "against the driver's RATELIMIT_DRIVER_LOCATION with the app's reports."
)
OSMAND_RESPONSES = {
    200: OpenApiResponse(
        description="Recorded (or a report without a position, taken): an empty body, as "
        "Traccar's own server answers."
    ),
    **problem_responses(
        400,
        401,
        409,
        422,
        429,
        503,
        s400="invalid_input naming the parameter (a value out of range, a time more than "
        "a day old), invalid_body, batch_too_large.",
        s401="unauthenticated: an unknown token, or a device identifier not the token's.",
        s409="idempotency_conflict (POST with an Idempotency-Key still being recorded).",
        s422="idempotency_key_reuse (POST: the Idempotency-Key came with another request); "
        "position_implausible: a fix further from the one before it than "
        "POSITIONS_MAX_PLAUSIBLE_SPEED_KMH allows (nothing recorded).",
        s429="rate_limited: the driver's RATELIMIT_DRIVER_LOCATION, or this address's "
        "RATELIMIT_INGEST_TOKEN of refused tokens; see Retry-After.",
        s503="service_unavailable: the position store did not answer; see Retry-After.",
    ),
}


class DriverView(APIView):
    """A driver's own endpoint: the app's token, a driver's login (``IsDriver``), and one
    call counted against the driver's request budget (``drivers.services.
    driver_request_admit``, the limit's one home)."""

    authentication_classes = [DriverTokenAuthentication]
    permission_classes = [IsDriver]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        services.driver_request_admit(driver=self.driver)

    @property
    def driver(self):
        return request_driver(self.request)


class DriverAPIView(IdempotentViewMixin, DriverView):
    """A driver's own endpoints: token authentication, limited per driver, Idempotency-Key
    scoped to the driver."""

    # That docstring is the published description of the operations without their own
    # (drf-spectacular reads it): DriverView's token and limit, plus the Idempotency-Key.

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        self.idempotency_begin(request)

    def idempotency_caller(self, request) -> str:
        return f"driver:{self.driver.pk}"


class DriverLoginView(APIView):
    """POST /api/public/v1/driver/login: username and password for a DRF token."""

    authentication_classes: list = []
    permission_classes: list = []

    @extend_schema(
        operation_id="driver_login",
        tags=TAGS,
        request=DriverLoginInputSerializer,
        examples=examples.DRIVER_LOGIN,
        responses={200: DriverLoginOutputSerializer, **problem_responses(400, 401, 429)},
        auth=[],
    )
    def post(self, request: Request) -> Response:
        services.driver_login_admit(caller=caller_from_request(request))
        credentials = validated_input(DriverLoginInputSerializer, request.data)
        token, driver = driver_login(request, **credentials)
        return Response(DriverLoginOutputSerializer({"token": token.key, "driver": driver}).data)


class DriverAvailabilityView(DriverAPIView):
    @extend_schema(
        operation_id="driver_availability",
        tags=TAGS,
        request=DriverAvailabilityInputSerializer,
        examples=[
            OpenApiExample(
                "Online at Leeds station",
                value={"online": True, "lat": 53.7955, "lng": -1.5491},
                request_only=True,
            )
        ],
        responses={
            200: DriverAvailabilityOutputSerializer,
            **problem_responses(400, 401, 403, 429, 503),
        },
    )
    def post(self, request: Request) -> Response:
        body = validated_input(DriverAvailabilityInputSerializer, request.data)
        driver = services.driver_availability_set(
            driver=self.driver, online=body["online"], lat=body.get("lat"), lng=body.get("lng")
        )
        return Response(DriverAvailabilityOutputSerializer(driver).data)


class DriverLocationView(APIView):
    """POST /api/public/v1/driver/location through Django (the web process, the local
    configuration); the ingest process answers the same path alike without Django
    (``drivers.api.ingest_wsgi``). Limited per driver and once per Idempotency-Key as the
    other driver endpoints, through the cache rather than the database
    (``drivers.services.report_limit``, ``drivers.api.ingest.report_once``)."""

    authentication_classes = [DriverPositionTokenAuthentication]
    permission_classes: list = []

    @extend_schema(
        operation_id="driver_location",
        tags=TAGS,
        request=DRIVER_LOCATION_REPORT,
        parameters=[IDEMPOTENCY_KEY],
        responses={
            200: OpenApiResponse(
                DriverLocationOutputSerializer,
                description="Recorded: the newest fix of the report. A repeat with the same "
                "Idempotency-Key and body is this answer again, with "
                "`Idempotent-Replayed: true`.",
            ),
            **problem_responses(
                400,
                401,
                403,
                409,
                422,
                429,
                503,
                s400="invalid_input (the fields named in `errors`), invalid_body, "
                "batch_too_large (more than POSITIONS_BATCH_MAX fixes).",
                s403="permission_denied: the login is not a driver's.",
                s409="idempotency_conflict: a report with this Idempotency-Key is still "
                "being recorded.",
                s422="idempotency_key_reuse: the Idempotency-Key came with another body; "
                "position_implausible: a fix further from the one before it (the driver's "
                "latest report, or the batch's previous fix) than a car could drive at "
                "POSITIONS_MAX_PLAUSIBLE_SPEED_KMH (nothing recorded).",
                s429="rate_limited: more than RATELIMIT_DRIVER_LOCATION reports from this "
                "driver (the app's and a tracker's together), or more than "
                "RATELIMIT_INGEST_TOKEN refused tokens from this address; see Retry-After.",
                s503="service_unavailable: the position store did not answer; send the "
                "report again after Retry-After.",
            ),
        },
        description=(
            "The car's position, every 5 s or so while the driver is working: one fix, or a "
            "batch of fixes the phone buffered while the signal was gone (`fixes`, each "
            "with its own `at`). The newest is kept as the live position: the matcher "
            "searches it, the sender's account (when it opted in) gets "
            "booking.driver_location events with it at most every 15 s per booking, and "
            "the passenger's tracking page shows it. While the driver holds a job, one fix "
            "per 30 s is kept as the trip's evidence. Does not change `online`; use "
            "/v1/driver/availability for that."
        ),
        examples=[
            OpenApiExample(
                "Heading north-east",
                value={"lat": 53.7955, "lng": -1.5491, "heading": 45},
                request_only=True,
            ),
            OpenApiExample(
                "A buffered batch",
                value={
                    "fixes": [
                        {"lat": 53.7950, "lng": -1.5480, "at": FIX_TEN_SECONDS_AGO},
                        {
                            "lat": 53.7955,
                            "lng": -1.5491,
                            "heading": 45,
                            "speed": 8.5,
                            "accuracy": 6,
                            "at": FIX_FIVE_SECONDS_AGO,
                        },
                    ]
                },
                request_only=True,
            ),
        ],
    )
    def post(self, request: Request) -> HttpResponse:
        answer = ingest.location_report_answer(
            credential=request.auth,
            body=request.body,
            idempotency_key=request.META.get("HTTP_IDEMPOTENCY_KEY"),
        )
        return ingest_response(answer)


class DriverLogoutView(DriverView):
    """POST /api/public/v1/driver/logout: the app's token ends (contract 6)."""

    @extend_schema(
        operation_id="driver_logout",
        tags=TAGS,
        request=None,
        responses={
            204: OpenApiResponse(description="The token has ended; log in again for a new one."),
            **problem_responses(401, 403, 429),
        },
        description=(
            "Ends the app's token (and any other token of this login). A password change "
            "ends them too, and a token stops working DRIVER_TOKEN_MAX_AGE_HOURS after its "
            "login."
        ),
    )
    def post(self, request: Request) -> Response:
        driver_tokens_end(user=request.user)
        return Response(status=204)


def ingest_response(answer: ingest.Answer) -> HttpResponse:
    response = HttpResponse(answer.body, status=answer.status, content_type=answer.content_type)
    for name, value in answer.headers.items():
        response[name] = value
    return response


OSMAND_PARAMETERS = [
    OpenApiParameter(
        "token", str, OpenApiParameter.PATH, description="The tracker device's token."
    ),
    OpenApiParameter(
        "id", str, description="The device identifier (or `deviceid`); the token's own."
    ),
    OpenApiParameter("lat", float, description="Latitude (or `location=lat,lon`)."),
    OpenApiParameter("lon", float, description="Longitude."),
    OpenApiParameter(
        "timestamp",
        str,
        description="Seconds or milliseconds since 1970, ISO 8601, or `yyyy-MM-dd HH:mm:ss` "
        "(UTC); the server's time when absent.",
    ),
    OpenApiParameter("speed", float, description="Knots."),
    OpenApiParameter("bearing", float, description="Degrees (or `heading`)."),
    OpenApiParameter("accuracy", float, description="Metres."),
    OpenApiParameter(
        "valid", str, description="`false` or `0`: not a fix; taken, nothing recorded."
    ),
]


class AnyAccept(BaseContentNegotiation):
    """Trackers send whatever Accept header their HTTP library sends; the answer is the
    protocol's (an empty 200 or problem JSON) whatever they say they accept."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class OsmandReportView(APIView):
    """/api/public/v1/osmand/<token>: Traccar Client's reports (query or form parameters,
    or its JSON), through Django; see ``drivers.api.osmand``. The tracker's token is in
    the path (the protocol has no header for it)."""

    authentication_classes: list = []
    permission_classes: list = []
    content_negotiation_class = AnyAccept

    @extend_schema(
        operation_id="driver_osmand_report",
        tags=TAGS,
        auth=[],
        parameters=OSMAND_PARAMETERS,
        request=None,
        responses=OSMAND_RESPONSES,
        description=OSMAND_DESCRIPTION,
    )
    def get(self, request: Request, token: str) -> HttpResponse:
        return self.report(request, token)

    @extend_schema(
        operation_id="driver_osmand_report_post",
        tags=TAGS,
        auth=[],
        parameters=[*OSMAND_PARAMETERS, IDEMPOTENCY_KEY],
        request={
            "application/json": OsmandJsonBodySerializer,
            "application/x-www-form-urlencoded": OpenApiTypes.OBJECT,
        },
        examples=[*examples.OSMAND_JSON, *examples.OSMAND_FORM],
        responses=OSMAND_RESPONSES,
        description=OSMAND_DESCRIPTION
        + " A POST may carry the query's parameters as a form body, or Traccar Client 9's "
        "JSON.",
    )
    def post(self, request: Request, token: str) -> HttpResponse:
        return self.report(request, token)

    def http_method_not_allowed(self, request, *args, **kwargs):
        # The original OsmAnd format comes with any method; only GET and POST are described.
        return self.report(request, kwargs["token"])

    @staticmethod
    def report(request, token: str) -> HttpResponse:
        answer = ingest.osmand_request_answer(
            token=token,
            method=request.method,
            idempotency_key=request.META.get("HTTP_IDEMPOTENCY_KEY"),
            query_string=request.META.get("QUERY_STRING", ""),
            body=request.body,
            content_type=request.META.get("CONTENT_TYPE", ""),
            address=client_ip(request),
        )
        return ingest_response(answer)


class DriverTariffSubmissionsView(DriverView):
    """GET/POST /api/public/v1/driver/tariff-submissions: the driver sends in their
    authority's fare table with a photo of it (issue 33, ``pricing.submissions``).

    No Idempotency-Key: the body is a file, streamed rather than held, and the service
    itself makes a retry of the same file the first submission (200, not 201)."""

    parser_classes = [MultiPartParser]

    @extend_schema(
        operation_id="driver_tariff_submissions",
        tags=TAGS,
        responses={
            200: TariffSubmissionListOutputSerializer,
            **problem_responses(401, 403, 429, 503),
        },
        description="The tables this driver sent in, newest first, with their review "
        "status and, for a rejected one, why; and the licensing authorities to choose from.",
    )
    def get(self, request: Request) -> Response:
        driver = request_driver(request)
        body = {"authorities": authorities(), "results": submissions_of(driver.user)}
        return Response(TariffSubmissionListOutputSerializer(body).data)

    @extend_schema(
        operation_id="driver_tariff_submission_create",
        tags=TAGS,
        request={"multipart/form-data": TariffSubmissionInputSerializer},
        examples=examples.TARIFF_SUBMISSION,
        responses={
            201: OpenApiResponse(
                TariffSubmissionOutputSerializer, description="Received: pending a staff check."
            ),
            200: OpenApiResponse(
                TariffSubmissionOutputSerializer,
                description="The same file was already sent and awaits review: that submission.",
            ),
            **problem_responses(
                400,
                401,
                403,
                413,
                415,
                429,
                503,
                s400="invalid_input naming the field: `authority`, `effectiveFrom`, "
                "`figures.bands[0].flagFallGBP` and the like, `examples[0].miles`, `photo` "
                "(not an image or a PDF by its content).",
                s413="payload_too_large: the photo is over TARIFF_SUBMISSION_MAX_BYTES.",
                s415="unsupported_media_type: the body is not multipart/form-data.",
                s429="submission_limit: TARIFF_SUBMISSIONS_PER_SUBMITTER tables in "
                "TARIFF_SUBMISSIONS_WINDOW_DAYS days; see Retry-After. rate_limited: the "
                "driver's request limit.",
            ),
        },
        description="The figures in the registry's form, the date the table came into "
        "force, the fares the card prints and a photo of the table in the cab (or the "
        "council's notice). Staff check it against the photo and a second staff member "
        "approves it; it then prices journeys from that date as a new table.",
    )
    def post(self, request: Request) -> Response:
        body = validated_input(TariffSubmissionInputSerializer, request.data)
        driver = request_driver(request)
        submission, created = tariff_submission_create(
            submitter=Submitter(user=driver.user, kind=SubmitterKind.DRIVER, name=driver.name),
            authority=body["authority"],
            effective_from=body["effectiveFrom"],
            figures=body["figures"],
            examples=body.get("examples"),
            photo=body["photo"],
        )
        return Response(
            TariffSubmissionOutputSerializer(submission).data, status=201 if created else 200
        )
