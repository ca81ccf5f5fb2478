"""Partner, operator and supplier intake, reconciliation, and the inbound status hook.

Contract 4 and 5.2. Each view authenticates, checks the account may use this door, rate
limits, validates, and hands the jobs to partners.services.intake.
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import exceptions
from rest_framework import status as http_status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.input_serializers import input_serializer
from api.models import ScreeningRejection
from api.problems import Problem, validation_problem
from api.ratelimits import caller_key, ratelimit_enforce
from api.schema import problem_responses
from api.screening import FREE_TEXT_FIELDS, screen_fields
from api.views import PublicAPIView
from partners.api.serializers import (
    PARTNER_JOB_FIELDS,
    BookingStatusReportInputSerializer,
    BookingStatusReportOutputSerializer,
    IntakeOutcomeOutputSerializer,
    JobReconciliationOutputSerializer,
    OperatorIntakeGuideOutputSerializer,
    PartnerJobInputSerializer,
    PartnerJobsEnvelopeInputSerializer,
)
from partners.authentication import (
    AccountKeyAuthentication,
    HmacSignatureAuthentication,
    hmac_verify,
)
from partners.models import Account
from partners.selectors import booking_driver_summary, job_get_for_sender
from partners.services.intake import (
    MAX_BATCH,
    IntakeJob,
    JobAction,
    JobOutcome,
    JobResult,
    intake_batch_apply,
    intake_summary,
)
from partners.services.status import booking_status_report

logger = logging.getLogger("partners.intake")

# Screened PartnerJob text: the shared free-text list plus the passenger's email/phone
# are not prose; driver details in status reports are.
JOB_SCREENED_FIELDS = tuple(f for f in FREE_TEXT_FIELDS if f in PARTNER_JOB_FIELDS)

EXAMPLE_JOB = {
    "jobRef": "ACME-1001",
    "action": "new",
    "pickup": "Leeds station",
    "dropoff": "Leeds Bradford Airport",
    "pickupTime": "2026-12-01T07:30:00Z",
    "passengerName": "Sam Taylor",
    "passengerPhone": "+447700900123",
    "passengerEmail": "sam.taylor@example.com",
    "passengers": 2,
    "vehicleType": "saloon",
    "flightNumber": "LS123",
    "fare": 32.5,
    "notes": "2 large suitcases",
}

INTAKE_REQUEST = PolymorphicProxySerializer(
    component_name="PartnerJobBody",
    serializers=[
        PartnerJobInputSerializer,
        PartnerJobInputSerializer(many=True),
        PartnerJobsEnvelopeInputSerializer,
    ],
    resource_type_field_name=None,
    many=False,
)

INTAKE_EXAMPLES = [
    OpenApiExample("One job", value=EXAMPLE_JOB, request_only=True),
    OpenApiExample(
        "A batch (at most 100)",
        value=[EXAMPLE_JOB, {"jobRef": "ACME-0999", "action": "cancel"}],
        request_only=True,
    ),
    OpenApiExample(
        "Envelope",
        value={"jobs": [{"jobRef": "ACME-1001", "action": "amend", "passengers": 3}]},
        request_only=True,
    ),
    OpenApiExample(
        "Mixed result",
        value={
            "results": [
                {
                    "index": 0,
                    "jobRef": "ACME-1001",
                    "outcome": "created",
                    "bookingReference": "DTD-7K3QX9PA",
                },
                {
                    "index": 1,
                    "jobRef": "ACME-1002",
                    "outcome": "rejected",
                    "code": "invalid_input",
                    "errors": {"pickupTime": ["This field is required."]},
                },
            ],
            "summary": {"received": 2, "accepted": 1, "rejected": 1},
        },
        response_only=True,
        status_codes=["207"],
    ),
]


def intake_outcome_responses(*statuses: int, **descriptions: str) -> dict:
    return {
        200: OpenApiResponse(IntakeOutcomeOutputSerializer, description="Every job accepted."),
        207: OpenApiResponse(
            IntakeOutcomeOutputSerializer, description="Mixed: at least one job rejected."
        ),
        **problem_responses(*statuses, **descriptions),
    }


# --- body shape and per-job validation ---------------------------------------------------


def intake_body_jobs(body: Any) -> tuple[list[Any], bool]:
    """The raw jobs of a body (one PartnerJob, an array, or {"jobs": [...]}), and whether it
    was a single job. 400 invalid_body for any other shape, batch_too_large past 100."""
    if isinstance(body, list):
        jobs, single = body, False
    elif isinstance(body, dict) and "jobs" in body and "jobRef" not in body:
        jobs, single = body["jobs"], False
        if not isinstance(jobs, list):
            raise Problem(400, "invalid_body", '"jobs" must be an array of PartnerJob objects.')
    elif isinstance(body, dict):
        jobs, single = [body], True
    else:
        raise Problem(
            400,
            "invalid_body",
            'Send one PartnerJob object, an array of them, or {"jobs": [...]}.',
        )
    if not jobs:
        raise Problem(400, "invalid_body", "The batch holds no jobs.")
    if len(jobs) > MAX_BATCH:
        raise Problem(
            400,
            "batch_too_large",
            f"A batch holds at most {MAX_BATCH} jobs; this one has {len(jobs)}.",
        )
    return jobs, single


def intake_jobs_validate(request, raw_jobs: list[Any]) -> tuple[list[IntakeJob], list[JobResult]]:
    """Validate and screen each job on its own; a bad job is a rejected result, never a
    failure of the batch (contract 4.1). Screening hits are logged with the caller."""
    valid: list[IntakeJob] = []
    rejected: list[JobResult] = []
    for index, raw in enumerate(raw_jobs):
        if not isinstance(raw, dict):
            rejected.append(
                JobResult.rejected(
                    index=index,
                    job_ref=None,
                    code="invalid_input",
                    errors={"non_field_errors": ["Expected a PartnerJob object."]},
                )
            )
            continue
        job_ref = raw.get("jobRef") if isinstance(raw.get("jobRef"), str) else None
        hit = screen_fields(raw, JOB_SCREENED_FIELDS)
        if hit is not None:
            caller = caller_key(request)
            logger.warning(
                "screening rejected %s job=%s field=%s rule=%s",
                caller,
                job_ref,
                hit.field,
                hit.rule,
            )
            ScreeningRejection.objects.create(
                caller=caller[:200],
                path=request.path[:255],
                field=hit.field,
                rule=hit.rule,
                excerpt=hit.excerpt,
            )
            rejected.append(
                JobResult.rejected(
                    index=index,
                    job_ref=job_ref,
                    code="content_rejected",
                    errors={hit.field: ["Content rejected by screening."]},
                )
            )
            continue
        serializer = input_serializer(PartnerJobInputSerializer, raw)
        if not serializer.is_valid():
            rejected.append(
                JobResult.rejected(
                    index=index,
                    job_ref=job_ref,
                    code="invalid_input",
                    errors=validation_problem(serializer.errors).errors,
                )
            )
            continue
        valid.append(serializer.intake_job(index=index))
    return valid, rejected


def job_result_body(result: JobResult) -> dict[str, Any]:
    body: dict[str, Any] = {
        "index": result.index,
        "jobRef": result.job_ref,
        "outcome": result.outcome,
    }
    if result.outcome == JobOutcome.REJECTED:
        body["code"] = result.code
        body["errors"] = result.errors or {}
    else:
        body["bookingReference"] = result.booking_reference
    return body


# --- intake -----------------------------------------------------------------------------


class IntakeMixin:
    """The shared intake flow; subclasses say which kind of account may use the door."""

    account_kind: str = Account.Kind.PARTNER
    # Contract 4.2: on the operator endpoint a single job with invalid fields is 400.
    single_invalid_is_400 = False

    def intake_account(self, request) -> Account:
        account = getattr(request, "account", None)
        if account is None or account.kind != self.account_kind:
            # A key of another kind of account is as good as no key here (contract 1.2).
            raise Problem(
                401,
                "unauthenticated",
                f"Send a {self.account_kind} API key (Authorization: Bearer or x-api-key) or "
                "an HMAC signature (x-partner / x-operator and x-signature).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        account_intake_allowed(account)
        return account

    def intake(self, request, account: Account) -> Response:
        raw_jobs, single = intake_body_jobs(request.data)
        jobs, rejected = intake_jobs_validate(request, raw_jobs)
        if single and rejected and self.single_invalid_is_400:
            only = rejected[0]
            raise Problem(
                400,
                only.code or "invalid_input",
                "The job has invalid fields; see errors."
                if only.code == "invalid_input"
                else "The job was rejected; see errors.",
                errors=only.errors,
            )
        now = timezone.now()
        results = rejected + intake_batch_apply(account=account, jobs=jobs, now=now)
        results.sort(key=lambda r: r.index)
        summary = intake_summary(results)
        logger.info(
            "intake %s account=%s received=%d accepted=%d rejected=%d",
            request.path,
            account.slug,
            summary["received"],
            summary["accepted"],
            summary["rejected"],
        )
        body = {"results": [job_result_body(r) for r in results], "summary": summary}
        status = http_status.HTTP_200_OK if not summary["rejected"] else 207
        return Response(body, status=status)


def account_intake_allowed(account: Account) -> None:
    """403 for a paused bridge (any kind) or an operator not approved for live intake."""
    if account.paused:
        raise Problem(403, "bridge_paused", f"Intake for {account.name} is paused.")
    if account.kind == Account.Kind.OPERATOR and not account.approved:
        raise Problem(
            403,
            "operator_not_approved",
            f"{account.name} is not yet approved for live intake; ask the network operator.",
        )


def _driver_feed_view():
    """The driver app's job feed (contract 6), which shares the /v1/jobs path for GET."""
    try:
        from drivers.api.views import DriverJobsFeedView
    except ImportError:
        return None
    return DriverJobsFeedView


class _DriverFeedSchema(dict):
    """Lets drf-spectacular find the driver feed's @extend_schema for GET /v1/jobs without
    importing the drivers app when this module loads."""

    def get(self, key, default=None):
        feed = _driver_feed_view() if key == "schema" else None
        if feed is None:
            return default
        return getattr(feed.get, "kwargs", {}).get("schema", default)


SAFE_METHODS = ("GET", "HEAD")


class PartnerJobsView(IntakeMixin, PublicAPIView):
    """POST: partner intake. GET: the driver-scoped job feed, served by the drivers app."""

    ratelimit_scope = "intake"
    account_kind = Account.Kind.PARTNER

    def get_authenticators(self):
        if self.request is not None and self.request.method in SAFE_METHODS:
            feed = _driver_feed_view()
            return [auth() for auth in feed.authentication_classes] if feed else []
        return [AccountKeyAuthentication(), HmacSignatureAuthentication()]

    def initial(self, request, *args, **kwargs):
        if request.method in SAFE_METHODS:
            # The feed authenticates and rate-limits itself once delegated to.
            APIView.initial(self, request, *args, **kwargs)
            return
        super().initial(request, *args, **kwargs)

    def perform_authentication(self, request):
        if request.method in SAFE_METHODS:
            return
        super().perform_authentication(request)

    def get(self, request, *args, **kwargs):
        feed = _driver_feed_view()
        if feed is None:
            raise Problem(404, "not_found", "The driver job feed is not available.")
        return feed.as_view()(request._request)

    get.kwargs = _DriverFeedSchema()

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
        return self.intake(request, self.intake_account(request))


class PartnerJobDetailView(PublicAPIView):
    """Reconciliation read of one pushed job (contract 4.2)."""

    ratelimit_scope = "intake"

    @extend_schema(
        operation_id="partner_job_get",
        summary="Reconcile one pushed job by the sender's jobRef",
        description=(
            "With the sender's own credentials (partner, operator or supplier key, or "
            "HMAC of the empty body). `sequence` is the booking's event sequence number, "
            "also carried by its webhooks: the highest one is the latest state."
        ),
        responses={
            200: JobReconciliationOutputSerializer,
            **problem_responses(
                401, 404, 429, s404="No such job from this sender (job_not_found)."
            ),
        },
    )
    def get(self, request, job_ref: str):
        account = getattr(request, "account", None)
        if account is None or account.kind not in INTAKE_KINDS:
            raise Problem(
                401,
                "unauthenticated",
                "Send the credentials the job was pushed with.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        booking = job_get_for_sender(account=account, job_ref=job_ref)
        return Response(
            {
                "jobRef": booking.job_ref,
                "bookingReference": booking.reference,
                "status": booking.status,
                "pickupTime": booking.pickup_time,
                "driver": booking_driver_summary(booking),
                "sequence": booking.sequence,
            }
        )


INTAKE_KINDS = frozenset({Account.Kind.PARTNER, Account.Kind.OPERATOR, Account.Kind.SUPPLIER})


class OperatorJobsView(IntakeMixin, PublicAPIView):
    """GET: how to connect (no key). POST: operator bridge intake into its own queue."""

    ratelimit_scope = "intake"
    account_kind = Account.Kind.OPERATOR
    single_invalid_is_400 = True

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
        responses={200: OperatorIntakeGuideOutputSerializer},
    )
    def get(self, request):
        return Response(operator_intake_guide())

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
        return self.intake(request, self.intake_account(request))


def operator_intake_guide() -> dict[str, Any]:
    endpoint = settings.SITE_URL + "/api/public/v1/operator/jobs"
    field_notes = {
        "jobRef": ("string", True, "your own unique reference: idempotency, amend, cancel"),
        "action": ("string", False, "new (default), amend or cancel"),
        "pickup": ("string", True, "required for new"),
        "dropoff": ("string", True, "required for new"),
        "pickupTime": ("string, date-time", True, "ISO 8601; required for new"),
        "passengerName": ("string", False, ""),
        "passengerPhone": ("string", False, "stored in E.164"),
        "passengerEmail": ("string, email", False, ""),
        "passengers": ("integer", False, "1 to 8"),
        "vehicleType": (
            "string",
            False,
            "saloon, estate, executive, luxury, 5seater, 6seater, 7seater, mpv, wav",
        ),
        "flightNumber": ("string", False, ""),
        "fare": ("number", False, "agreed fare in GBP if you price the job"),
        "notes": ("string", False, ""),
    }
    return {
        "endpoint": endpoint,
        "acceptedFields": list(PARTNER_JOB_FIELDS),
        "fields": {
            name: {"type": kind, "required": required, "notes": notes}
            for name, (kind, required, notes) in field_notes.items()
        },
        "actions": [a.value for a in JobAction],
        "maxBatch": MAX_BATCH,
        "bodyForms": ["PartnerJob", "[PartnerJob, ...]", '{"jobs": [PartnerJob, ...]}'],
        "auth": {
            "apiKey": {
                "headers": ["Authorization: Bearer <bridge key>", "x-api-key: <bridge key>"],
            },
            "hmac": {
                "headers": [
                    "x-operator: <your account slug>",
                    "x-signature: <hex>",
                    "x-timestamp: <unix seconds> (optional)",
                ],
                "algorithm": "HMAC-SHA256 with your signing secret, hex (optionally sha256=)",
                "signs": "the raw body, or '{x-timestamp}.{body}' when x-timestamp is sent "
                "(then within 300 s of now)",
            },
        },
        "outcomes": [o.value for o in JobOutcome],
        "statusWebhooks": {
            "standard": "Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)",
            "signatureKey": "the UTF-8 bytes of your whole signing secret, whsec_ prefix included",
            "events": [
                "booking.created",
                "booking.status_changed",
                "booking.cancelled",
                "booking.completed",
                "booking.amended",
            ],
            "inboundStatus": settings.SITE_URL + "/api/public/hooks/booking-status",
        },
        "examplePayload": {"jobs": [EXAMPLE_JOB]},
    }


class SupplierHookView(IntakeMixin, PublicAPIView):
    """POST /hooks/{supplier}-booking: a corporate supplier's single or batch jobs."""

    authentication_classes: list = []
    account_kind = Account.Kind.SUPPLIER

    @extend_schema(
        operation_id="supplier_booking_hook",
        summary="Supplier job intake (one job, an array, or {jobs: [...]})",
        description=(
            "`{supplier}` is the supplier's account slug. Auth: header `x-{supplier}-secret` "
            "with the supplier's shared secret, or `x-signature` (HMAC as for partner "
            "intake). Same outcomes as partner intake; idempotent on jobRef."
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
        account = Account.objects.filter(slug=supplier, kind=Account.Kind.SUPPLIER).first()
        if account is None:
            raise Problem(404, "not_found", f"No supplier hook named {supplier!r}.")
        supplier_authenticate(request, account)
        django_request = request._request
        django_request.account = account
        django_request.account_key = None
        account_intake_allowed(account)
        ratelimit_enforce(request, "intake")
        return self.intake(request, account)


def supplier_authenticate(request, account: Account) -> None:
    """``x-{slug}-secret`` (the account's signing secret, constant-time) or HMAC."""
    header = "HTTP_X_" + account.slug.upper().replace("-", "_") + "_SECRET"
    presented = request.META.get(header, "")
    if presented:
        if any(
            hmac.compare_digest(presented.encode(), s.encode()) for s in account.signing_secrets()
        ):
            return
        raise Problem(401, "unauthenticated", f"Wrong x-{account.slug}-secret.")
    if request.META.get("HTTP_X_SIGNATURE"):
        try:
            hmac_verify(account, request)
        except exceptions.AuthenticationFailed as exc:
            raise Problem(401, "unauthenticated", str(exc.detail)) from None
        return
    raise Problem(
        401,
        "unauthenticated",
        f"Send x-{account.slug}-secret or an x-signature HMAC.",
    )


class BookingStatusHookView(PublicAPIView):
    """POST /hooks/booking-status: status from the platform or fleet holding a job."""

    ratelimit_scope = "intake"

    @extend_schema(
        operation_id="booking_status_hook",
        summary="Report a job's status from the platform or fleet that holds it",
        description=(
            "Signed like intake (`x-partner` + `x-signature`, or an API key). Only legal "
            "transitions apply (else 409 invalid_transition); repeating the current status "
            "is a no-op 200 with `changed: false`. A partner fleet answers a job offered to "
            "it (webhook `booking.offered`) by `bookingReference` with `accepted` (it takes "
            "the job and reports progress here afterwards) or `declined` (dispatch moves "
            "on); `declined` is accepted by this hook only. Answering an offer that is no "
            "longer open is 409 offer_closed."
        ),
        request=BookingStatusReportInputSerializer,
        responses={
            200: BookingStatusReportOutputSerializer,
            **problem_responses(
                400,
                401,
                404,
                409,
                429,
                s404="No such booking sent by, held by or offered to this account.",
                s409="invalid_transition, or offer_closed (a fleet's offer timed out, was "
                "withdrawn or already answered).",
            ),
        },
    )
    def post(self, request):
        account = getattr(request, "account", None)
        if account is None or account.kind not in INTAKE_KINDS:
            raise Problem(
                401,
                "unauthenticated",
                "Sign the request (x-partner + x-signature).",
                headers={"WWW-Authenticate": "Bearer"},
            )
        if not isinstance(request.data, dict):
            raise Problem(400, "invalid_body", "Send one JSON object.")
        serializer = BookingStatusReportInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        driver = data.get("driver") or None
        if driver:
            hit = screen_fields(driver, ("name", "licensingAuthority"))
            if hit is not None:
                raise Problem(
                    400,
                    "content_rejected",
                    "The driver details were rejected.",
                    errors={f"driver.{hit.field}": ["Content rejected by screening."]},
                )
        applied = booking_status_report(
            account=account,
            status=data["status"],
            occurred_at=data["occurredAt"],
            booking_reference=data.get("bookingReference"),
            job_ref=data.get("jobRef"),
            driver=dict(driver) if driver else None,
        )
        booking = applied.booking
        holds_job = account.pk in (booking.account_id, booking.subcontracted_to_id)
        return Response(
            {
                "bookingReference": booking.reference,
                # The sender's own reference is for those holding the job, not for a fleet
                # that declined it.
                "jobRef": (booking.job_ref or None) if holds_job else None,
                "status": booking.status,
                "previousStatus": applied.previous_status,
                "sequence": booking.sequence,
                "changed": applied.changed,
            }
        )
