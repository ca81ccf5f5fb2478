"""RFC 9457 problem details: the one place where errors become responses.

Services raise :class:`core.errors.DomainError`, which carries a ``code`` and no HTTP
status; ``STATUS_BY_CODE`` below is the one table that gives each code its status. The
edge itself (authentication, parsing) may raise :class:`Problem` directly. The DRF
exception handler and the Django-level handlers below turn every error under ``/api/``
into ``application/problem+json`` with a stable ``code`` (contract section 1.1).
"""

from __future__ import annotations

import json
import logging
import sys
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404, HttpResponse
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework import exceptions as drf_exceptions
from rest_framework.views import exception_handler as drf_exception_handler

from api.input_serializers import input_errors
from core.errors import DomainError, LimitReached
from core.request_ids import current_request_id

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"

# Default title for every code the API uses; a Problem may give a more specific one.
TITLES = {
    "invalid_input": "Invalid input",
    "invalid_body": "Invalid request body",
    "pickup_in_past": "Pickup time is in the past",
    "email_rejected": "Email address rejected",
    "vehicle_too_small": "Vehicle too small for the party",
    "content_rejected": "Content rejected",
    "batch_too_large": "Batch too large",
    "unauthenticated": "Authentication required",
    "permission_denied": "Permission denied",
    "email_mismatch": "Email does not match the booking",
    "passenger_blocked": "Passenger blocked",
    "partner_not_allowed": "Partner not allowed to book",
    "bridge_paused": "Operator bridge paused",
    "operator_not_approved": "Operator not approved for live intake",
    "not_found": "Not found",
    "booking_not_found": "Booking not found",
    "quote_not_found": "Quote not found",
    "job_not_found": "Job not found",
    "offer_not_found": "Offer not found",
    "tariff_not_found": "Tariff not found",
    "method_not_allowed": "Method not allowed",
    "not_acceptable": "Not acceptable",
    "quote_already_redeemed": "Quote already redeemed",
    "not_cancellable": "Booking cannot be cancelled",
    "invalid_transition": "Status change not allowed",
    "offer_closed": "Offer no longer open",
    "driver_busy": "Driver at maximum job load",
    "not_settleable": "Booking cannot be settled in its state",
    "offer_link_expired": "Offer link expired",
    "idempotency_conflict": "Request with this Idempotency-Key is in progress",
    "quote_expired": "Quote expired",
    "payload_too_large": "Request body too large",
    "unsupported_media_type": "Unsupported media type",
    "address_not_found": "Address not found",
    "address_not_precise": "Address not precise enough",
    "fare_not_allowed": "Caller may not set the fare",
    "insufficient_scope": "Insufficient scope",
    "not_job_holder": "Not the job's holder",
    "settlement_exceeds_fare": "Settlements exceed what the passenger owes",
    "not_at_pickup": "Not at the pickup",
    "position_unknown": "No recent position report",
    "service_unavailable": "Service unavailable",
    "outside_service_area": "Outside service area",
    "idempotency_key_reuse": "Idempotency-Key reused with a different request",
    "tariff_incomplete": "Tariff cannot price this journey",
    "not_airport_pickup": "Not an airport pickup",
    "flight_update_closed": "Booking no longer awaits its flight",
    "no_show_too_early": "Free waiting not over",
    "no_show_too_far": "Too far from the pickup for a no-show",
    "pickup_code_mismatch": "Wrong pickup code",
    "position_implausible": "Position implausible",
    "rate_limited": "Too many requests",
    "email_limit": "Too many requests for this email",
    "daily_job_limit": "Daily job limit reached",
    "daily_bridge_limit": "Daily operator bridge limit reached",
    "submission_limit": "Too many tables sent in",
    "server_error": "Internal server error",
}

# The HTTP status of every domain error code (contract 1.1): the only place where a
# code meets a status. A code missing here is a programming error (a 500 in tests).
STATUS_BY_CODE = {
    "invalid_input": 400,
    "invalid_body": 400,
    "pickup_in_past": 400,
    "email_rejected": 400,
    "vehicle_too_small": 400,
    "content_rejected": 400,
    "batch_too_large": 400,
    "unauthenticated": 401,
    "permission_denied": 403,
    "email_mismatch": 403,
    "passenger_blocked": 403,
    "partner_not_allowed": 403,
    "bridge_paused": 403,
    "operator_not_approved": 403,
    "fare_not_allowed": 403,
    "insufficient_scope": 403,
    "not_job_holder": 403,
    "not_found": 404,
    "booking_not_found": 404,
    "quote_not_found": 404,
    "job_not_found": 404,
    "offer_not_found": 404,
    "tariff_not_found": 404,
    "quote_already_redeemed": 409,
    "not_cancellable": 409,
    "invalid_transition": 409,
    "offer_closed": 409,
    "driver_busy": 409,
    "not_settleable": 409,
    "idempotency_conflict": 409,
    "flight_update_closed": 409,
    "no_show_too_early": 409,
    "no_show_too_far": 409,
    "not_at_pickup": 409,
    "position_unknown": 409,
    "settlement_exceeds_fare": 409,
    "quote_expired": 410,
    "payload_too_large": 413,
    "offer_link_expired": 410,
    "link_expired": 410,
    "address_not_found": 422,
    "outside_service_area": 422,
    "address_not_precise": 422,
    "tariff_incomplete": 422,
    "not_airport_pickup": 422,
    "idempotency_key_reuse": 422,
    "pickup_code_mismatch": 422,
    "position_implausible": 422,
    "rate_limited": 429,
    "email_limit": 429,
    "daily_job_limit": 429,
    "daily_bridge_limit": 429,
    "submission_limit": 429,
    "service_unavailable": 503,
    # The edge's own answers (bare statuses, the MCP gate, the ingest) and the last resort;
    # every code raised anywhere is in this table (api/tests/test_error_codes.py).
    "method_not_allowed": 405,
    "not_acceptable": 406,
    "unsupported_media_type": 415,
    "server_error": 500,
}


class Problem(DomainError):
    """An error raised by the HTTP edge itself (authentication, parsing), with its status.

    Services raise :class:`DomainError` instead; a Problem is one too, so code that handles
    domain errors (a page, a task, an intake batch) handles the edge's as well.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str = "",
        *,
        title: str | None = None,
        errors: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code, detail, errors=errors, extra=extra)
        self.status = status
        self.title = title or TITLES.get(code) or HTTPStatus(status).phrase
        self.headers = headers or {}

    def as_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": problem_type_url(self.code),
            "title": self.title,
            "status": self.status,
            "detail": self.detail or self.title,
            "code": self.code,
        }
        if self.errors is not None:
            body["errors"] = self.errors
        body.update(self.extra)
        # The request (or task) this answers, as in X-Request-ID and the logs (contract 10.1).
        request_id = current_request_id()
        if request_id:
            body["requestId"] = request_id
        return body


class RateLimited(Problem):
    def __init__(self, retry_after: int, code: str = "rate_limited", detail: str = "") -> None:
        retry_after = max(1, int(retry_after))
        super().__init__(
            429,
            code,
            detail or f"Rate limit exceeded; retry in {retry_after} seconds.",
            headers={"Retry-After": str(retry_after)},
            extra={"retryAfter": retry_after},
        )


def problem_type_url(code: str) -> str:
    return f"{settings.SITE_URL}/problems/{code.replace('_', '-')}"


def problem_response(problem: Problem) -> HttpResponse:
    response = HttpResponse(
        json.dumps(problem.as_body()), status=problem.status, content_type=PROBLEM_CONTENT_TYPE
    )
    for name, value in problem.headers.items():
        response[name] = value
    if problem.status == 503 and not response.has_header("Retry-After"):
        # Every 503 says when to try again (contract 1.1).
        response["Retry-After"] = str(settings.SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)
    return response


# A backing service that refused or dropped the connection (PostgreSQL down or restarting,
# its connection pool exhausted, Redis gone): 503 service_unavailable, never a 500. Django
# wraps psycopg's errors, the pool's PoolTimeout included, in its own OperationalError.
BACKING_SERVICE_DOWN = (
    DatabaseOperationalError,
    DatabaseInterfaceError,
    RedisConnectionError,
    RedisTimeoutError,
)


def service_unavailable_problem() -> Problem:
    return Problem(
        503, "service_unavailable", "A backing service is unavailable; please retry shortly."
    )


def validation_problem(errors: Any, detail: str = "") -> DomainError:
    """400 ``invalid_input`` naming the fields of DRF's (possibly nested) errors."""
    return input_errors(errors, detail)


def http_status(error: DomainError) -> int:
    """The HTTP status a page or view answers this error with."""
    return error.status if isinstance(error, Problem) else STATUS_BY_CODE[error.code]


def problem_from_domain_error(error: DomainError) -> Problem:
    """The problem a domain error is answered with over HTTP."""
    if isinstance(error, LimitReached):
        return RateLimited(error.retry_after, code=error.code, detail=error.detail)
    return Problem(
        STATUS_BY_CODE[error.code],
        error.code,
        error.detail,
        title=error.title,
        errors=error.errors,
        extra=error.extra,
    )


def problem_from_exception(exc: Exception) -> Problem | None:
    """Map a domain, DRF or Django exception to a Problem; None for anything unexpected."""
    if isinstance(exc, Problem):
        return exc
    if isinstance(exc, DomainError):
        return problem_from_domain_error(exc)
    if isinstance(exc, drf_exceptions.ValidationError):
        return problem_from_domain_error(validation_problem(exc.detail))
    if isinstance(exc, drf_exceptions.ParseError):
        return Problem(400, "invalid_body", f"The body is not valid JSON: {exc.detail}")
    if isinstance(exc, drf_exceptions.AuthenticationFailed | drf_exceptions.NotAuthenticated):
        return Problem(
            401, "unauthenticated", str(exc.detail), headers={"WWW-Authenticate": "Bearer"}
        )
    if isinstance(exc, drf_exceptions.PermissionDenied | PermissionDenied):
        return Problem(403, "permission_denied", str(getattr(exc, "detail", "")) or "")
    if isinstance(exc, drf_exceptions.NotFound | Http404):
        return Problem(404, "not_found", "No such resource.")
    if isinstance(exc, drf_exceptions.MethodNotAllowed):
        return Problem(405, "method_not_allowed", str(exc.detail))
    if isinstance(exc, drf_exceptions.NotAcceptable):
        return Problem(406, "not_acceptable", str(exc.detail))
    if isinstance(exc, drf_exceptions.UnsupportedMediaType):
        return Problem(415, "unsupported_media_type", str(exc.detail))
    if isinstance(exc, drf_exceptions.Throttled):
        return RateLimited(int(exc.wait or 60))
    if isinstance(exc, drf_exceptions.APIException):
        return Problem(exc.status_code, "invalid_input", str(exc.detail))
    if isinstance(exc, BACKING_SERVICE_DOWN):
        logger.error("backing service unavailable: %s: %s", type(exc).__name__, exc)
        return service_unavailable_problem()
    return None


def problem_exception_handler(exc: Exception, context: dict) -> HttpResponse | None:
    """DRF EXCEPTION_HANDLER: every error raised inside an API view becomes problem JSON."""
    problem = problem_from_exception(exc)
    if problem is None:
        # Let DRF (or Django's 500 handler) deal with truly unexpected errors.
        return drf_exception_handler(exc, context)
    return problem_response(problem)


def _is_api(request) -> bool:
    return request.path.startswith("/api/") or request.path.startswith("/mcp")


# The problem a bare status is answered with when no view said more (a URL that matches
# nothing, Django's own error pages).
CODE_BY_BARE_STATUS = {
    400: "invalid_body",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
}


class ProblemResponsesMiddleware:
    """Under /api/, every error is problem JSON, DEBUG or not (issue 13).

    With DEBUG on, Django answers an unmatched URL or an unexpected exception with its
    HTML debug pages and never calls the handlers below; this swaps any HTML error
    response under /api/ for the problem of its status. It also reads the body first, so
    that DATA_UPLOAD_MAX_MEMORY_SIZE holds for every API call (DRF streams the body and
    would skip Django's size check) and an oversized body is 413 here.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not _is_api(request):
            return self.get_response(request)
        if (
            request.method in {"POST", "PUT", "PATCH"}
            and request.content_type == "multipart/form-data"
        ):
            # A file upload (a photo of a fare table) is streamed by the parser, not read
            # whole: Django's own limit covers its other fields, this one the file.
            most = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + settings.TARIFF_SUBMISSION_MAX_BYTES
            if _content_length(request) > most:
                return problem_response(
                    Problem(413, "payload_too_large", f"The request body is over {most} bytes.")
                )
        elif request.method in {"POST", "PUT", "PATCH"}:
            try:
                request.body  # noqa: B018
            except RequestDataTooBig:
                return problem_response(
                    Problem(413, "payload_too_large", "The request body is too large.")
                )
        response = self.get_response(request)
        if response.status_code >= 400 and response.get("Content-Type", "").startswith("text/html"):
            return problem_response(_bare_status_problem(response.status_code))
        return response

    def process_exception(self, request, exception):
        """A view that met a backing service down answers 503, pages and API alike, DEBUG
        or not (an error raised in a middleware reaches handler500 below instead)."""
        if isinstance(exception, BACKING_SERVICE_DOWN):
            return _service_unavailable_response(request, exception)
        return None


def _content_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _service_unavailable_response(request, exception: Exception) -> HttpResponse:
    logger.error("backing service unavailable: %s: %s", type(exception).__name__, exception)
    if _is_api(request):
        return problem_response(service_unavailable_problem())
    response = HttpResponse(
        "The service is briefly unavailable. Please try again in a few seconds.",
        status=503,
        content_type="text/plain",
    )
    response["Retry-After"] = str(settings.SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS)
    return response


def _bare_status_problem(status: int) -> Problem:
    if status >= 500:
        return Problem(status, "server_error", "Something went wrong on our side.")
    code = CODE_BY_BARE_STATUS.get(status, "invalid_input")
    return Problem(status, code, TITLES[code] + ".")


def handler400(request, exception=None):
    if isinstance(exception, RequestDataTooBig) or "RequestDataTooBig" in type(exception).__name__:
        problem = Problem(413, "payload_too_large", "The request body is too large.")
    else:
        problem = Problem(400, "invalid_body", "The request could not be understood.")
    if _is_api(request):
        return problem_response(problem)
    return HttpResponse(problem.title, status=problem.status, content_type="text/plain")


def handler403(request, exception=None):
    problem = Problem(403, "permission_denied", "You may not do that.")
    if _is_api(request):
        return problem_response(problem)
    from django.views.defaults import permission_denied

    return permission_denied(request, exception)


def handler404(request, exception=None):
    if _is_api(request):
        return problem_response(Problem(404, "not_found", f"No API resource at {request.path}."))
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler500(request):
    exception = sys.exc_info()[1]
    if isinstance(exception, BACKING_SERVICE_DOWN):
        return _service_unavailable_response(request, exception)
    if _is_api(request):
        return problem_response(Problem(500, "server_error", "Something went wrong on our side."))
    from django.views.defaults import server_error

    return server_error(request)
