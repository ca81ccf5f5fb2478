"""The Suntransfers door: ST SPEC v1's endpoints, hosted under /api/suppliers/suntransfers/.

Each view authenticates as the spec states (HTTP Basic: the account's slug as the
username, one of its API keys as the password), calls one use case of
``partners.intake_formats.st_spec_v1`` and renders what the spec promises: its JSON
bodies, and its ``ProblemDetails`` with only the statuses each operation documents (a
refusal is 400, a failure the marketplace should retry is 500 with Retry-After, an
unknown booking 404 where the operation has one). The spec is Suntransfers', so these
endpoints stay out of this service's own OpenAPI document.
"""

from __future__ import annotations

import base64
import binascii
from http import HTTPStatus

from django.db import DatabaseError
from django.urls import path, re_path
from drf_spectacular.utils import extend_schema
from rest_framework import authentication, exceptions, permissions
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from api.callers import caller_from_request
from api.principals import AccountPrincipal, request_account
from api.problems import problem_from_exception
from partners.authentication import account_key_lookup
from partners.intake_formats import st_spec_v1 as st
from partners.models import Account, AccountKey, IntakeFormat

# What the spec calls each status's problem (its examples' ``type`` values).
PROBLEM_TYPES = {
    400: "validation-error",
    401: "authentication-error",
    404: "resource-not-found",
    405: "method-not-allowed",
    500: "internal-error",
}
RETRY_AFTER_SECONDS = 60
# "DO NOT specify any details about username, password, or authentication method."
INVALID_CREDENTIALS = "Invalid credentials."


class SuntransfersBasicAuthentication(authentication.BaseAuthentication):
    """``Authorization: Basic base64(slug:api-key)`` of a supplier account whose intake
    format is ST SPEC v1; anything else is 401 with the same words."""

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower() != b"basic":
            return None
        try:
            slug, _, raw_key = base64.b64decode(parts[1], validate=True).decode().partition(":")
        except (IndexError, binascii.Error, UnicodeDecodeError):
            raise exceptions.AuthenticationFailed(INVALID_CREDENTIALS) from None
        try:
            key = account_key_lookup(raw_key) if raw_key else None
        except AccountKey.DoesNotExist:
            key = None
        account = key.account if key is not None else None
        if (
            account is None
            or key.has_expired
            or account.slug != slug
            or account.kind != Account.Kind.SUPPLIER
            or account.intake_format != IntakeFormat.ST_SPEC_V1
        ):
            raise exceptions.AuthenticationFailed(INVALID_CREDENTIALS)
        return (None, AccountPrincipal(account=account, key=key))

    def authenticate_header(self, request):
        return 'Basic realm="suppliers"'


class IsSuntransfersAccount(permissions.BasePermission):
    def has_permission(self, request, view) -> bool:
        if request_account(request) is None:
            raise exceptions.NotAuthenticated(INVALID_CREDENTIALS)
        return True


class JsonOnly(DefaultContentNegotiation):
    """The spec answers in application/json whatever the client accepts."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def st_problem(request, status: int, detail: str, *, retry: bool = False) -> Response:
    """The spec's ProblemDetails (type, title, status, detail, instance)."""
    body = {
        "type": PROBLEM_TYPES.get(status, "validation-error"),
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": (detail or HTTPStatus(status).phrase)[:2048],
        "instance": request.build_absolute_uri()[:256],
    }
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)} if retry else None
    return Response(body, status=status, headers=headers)


@extend_schema(exclude=True)
class SuntransfersView(APIView):
    authentication_classes = [SuntransfersBasicAuthentication]
    permission_classes = [IsSuntransfersAccount]
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonOnly
    # The statuses this operation documents besides 400, 401 and 500 (ST SPEC v1).
    not_found_documented: frozenset[str] = frozenset()

    def handle_exception(self, exc):
        if isinstance(exc, DatabaseError):
            return st_problem(self.request, 500, "Try again later.", retry=True)
        if isinstance(exc, exceptions.MethodNotAllowed):
            return st_problem(self.request, 405, str(exc.detail))
        problem = problem_from_exception(exc)
        if problem is None:
            raise exc
        status = problem.status
        if status == 401:
            response = st_problem(self.request, 401, INVALID_CREDENTIALS)
            response["WWW-Authenticate"] = SuntransfersBasicAuthentication().authenticate_header(
                self.request
            )
            return response
        if status == 404 and self.request.method in self.not_found_documented:
            return st_problem(self.request, 404, problem.detail)
        if status >= 500 or status == 429:
            # Limits and outages: the spec's way to say "retry later" is a 500.
            return st_problem(self.request, 500, problem.detail, retry=True)
        return st_problem(self.request, 400, problem.detail)


def _outcome(outcome: st.StOutcome) -> dict:
    return {
        "bookingReference": outcome.booking_reference,
        "supplierReferences": outcome.supplier_references,
    }


class BookingsView(SuntransfersView):
    """POST /v1/bookings (CreateBooking)."""

    def post(self, request):
        outcome = st.st_booking_create(caller=caller_from_request(request), payload=request.data)
        return Response(_outcome(outcome), status=201)


class BookingView(SuntransfersView):
    """PUT (AmendBooking), DELETE (CancelBooking), GET (GetBooking) /v1/bookings/{ref}."""

    not_found_documented = frozenset({"DELETE", "GET"})

    def put(self, request, reference: str):
        outcome = st.st_booking_amend(
            caller=caller_from_request(request), reference=reference, payload=request.data
        )
        return Response(_outcome(outcome), status=201 if outcome.created else 200)

    def delete(self, request, reference: str):
        outcome = st.st_booking_cancel(
            caller=caller_from_request(request), reference=reference, payload=request.data
        )
        return Response(_outcome(outcome), status=200)

    def get(self, request, reference: str):
        return Response(st.st_booking_get(caller=caller_from_request(request), reference=reference))


class BookingEventsView(SuntransfersView):
    """GET /v1/bookings/{ref}/events (GetBookingEvents)."""

    not_found_documented = frozenset({"GET"})

    def get(self, request, reference: str):
        return Response(
            st.st_booking_events(
                caller=caller_from_request(request),
                reference=reference,
                query=request.query_params.dict(),
            )
        )


class QuotesView(SuntransfersView):
    """POST /v1/quotes (CreateQuote)."""

    def post(self, request):
        quotes = st.st_quotes_create(caller=caller_from_request(request), payload=request.data)
        return Response(quotes, status=201)


# A reference is any text of 1 to 32 characters (the spec's BookingReference), slashes
# and line breaks included; an empty one reaches the view and is refused there as the
# spec would refuse it.
urlpatterns = [
    path("v1/quotes", QuotesView.as_view()),
    path("v1/bookings", BookingsView.as_view()),
    re_path(r"^v1/bookings/(?P<reference>[\s\S]+)/events$", BookingEventsView.as_view()),
    re_path(r"^v1/bookings/(?P<reference>[\s\S]*)$", BookingView.as_view()),
]
