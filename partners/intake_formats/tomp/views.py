"""The TOMP door: each view authenticates a partner's API key (TOMP's Bearer or X-API-Key
schemes), reads the body (``payload``), calls one use case (``operations``) and renders
TOMP's shape (``shapes``). Errors are the project's problem documents, whose members
(type, title, status, detail) are TOMP's error object's.

Kept out of the public API's OpenAPI description: TOMP's is its own specification,
served as published at ``GET /api/tomp/openapi.yaml``.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.http import FileResponse
from rest_framework.response import Response

from api.callers import caller_from_request
from api.permissions import RequiresAccountKind
from api.problems import PROBLEM_CONTENT_TYPE
from api.views import PublicAPIView
from partners.authentication import AccountKeyAuthentication
from partners.intake_formats.tomp.operations import (
    SENDER_KIND,
    TompBookingState,
    tomp_booking_event,
    tomp_booking_get,
    tomp_booking_hold,
    tomp_planning_create,
    tomp_support_list,
    tomp_support_request_create,
)
from partners.intake_formats.tomp.payload import (
    tomp_booking_request_read,
    tomp_journey_read,
    tomp_operation_read,
    tomp_support_request_read,
)
from partners.intake_formats.tomp.shapes import (
    tomp_booking,
    tomp_errorcode,
    tomp_leg,
    tomp_meta,
    tomp_option,
    tomp_planning,
    tomp_support_status,
)

SPEC_FILE = Path(__file__).resolve().parent / "spec" / "TOMP-API-1.6.1.yaml"
HINT = "Send a TOMP partner account's API key (Authorization: Bearer, or X-API-Key)."


def _booking_body(state: TompBookingState) -> dict:
    if state.booking is not None:
        return tomp_booking(state.booking, option_id=state.option_id)
    return tomp_option(state.quote, state=state.pending_state)


class TompView(PublicAPIView):
    authentication_classes = [AccountKeyAuthentication]
    permission_classes = [RequiresAccountKind(SENDER_KIND, hint=HINT)]
    schema = None  # not part of the public API's description (see the module docstring)
    module = "booking"  # TOMP's module, the first digit of an errorcode
    documented: frozenset[int] = frozenset({400, 401, 403, 404})  # this path's errors

    def caller(self, request):
        return caller_from_request(request, source=SENDER_KIND)

    def finalize_response(self, request, response, *args, **kwargs):
        """A problem in TOMP's error shape: its members are TOMP's error object's, plus
        ``errorcode``; served as application/json, as TOMP documents errors. A refusal
        of what was sent whose status this path does not document (422: no such
        address) is TOMP's 400 (x002 Invalid); 401, 429 and 5xx are the transport's."""
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.status_code < 400 or not response.get("Content-Type", "").startswith(
            PROBLEM_CONTENT_TYPE
        ):
            return response
        problem = json.loads(response.content)
        problem["errorcode"] = tomp_errorcode(module=self.module, code=problem.get("code", ""))
        if response.status_code in (409, 422) and response.status_code not in self.documented:
            response.status_code = problem["status"] = 400
        response.content = json.dumps(problem)
        response["Content-Type"] = "application/json"
        return response


class TompPlanningsView(TompView):
    module = "planning"
    documented = frozenset({400, 401, 403})

    def post(self, request):
        caller = self.caller(request)
        quotes = tomp_planning_create(caller=caller, journey=tomp_journey_read(request.data))
        return Response(tomp_planning(quotes), status=201)


class TompBookingsView(TompView):
    documented = frozenset({400, 401, 403, 404, 409, 410, 428})

    def post(self, request):
        caller = self.caller(request)
        option_id, passenger = tomp_booking_request_read(request.data)
        state = tomp_booking_hold(caller=caller, option_id=option_id, passenger=passenger)
        return Response(_booking_body(state), status=201)


class TompBookingView(TompView):
    documented = frozenset({401, 404, 410})

    def get(self, request, booking_id: str):
        state = tomp_booking_get(caller=self.caller(request), option_id=booking_id)
        return Response(_booking_body(state))


class TompBookingEventsView(TompView):
    documented = frozenset({400, 401, 403, 404, 410})

    def post(self, request, booking_id: str):
        caller = self.caller(request)
        operation = tomp_operation_read(request.data)
        state = tomp_booking_event(caller=caller, option_id=booking_id, operation=operation)
        return Response(_booking_body(state))


class TompLegView(TompView):
    module = "execution"
    documented = frozenset({401, 403, 404})

    def get(self, request, leg_id: str):
        state = tomp_booking_get(caller=self.caller(request), option_id=leg_id)
        if state.booking is not None:
            return Response(tomp_leg(state.booking, option_id=leg_id))
        return Response(tomp_option(state.quote, state=state.pending_state)["legs"][0])


class TompSupportView(TompView):
    module = "support"
    documented = frozenset({400, 401, 403, 404})

    def post(self, request):
        caller = self.caller(request)
        support = tomp_support_request_create(
            caller=caller, support=tomp_support_request_read(request.data)
        )
        return Response(tomp_support_status(support))


class TompSupportStatusView(TompView):
    module = "support"
    documented = frozenset({400, 401, 403, 404})

    def get(self, request, booking_id: str):
        supports = tomp_support_list(caller=self.caller(request), option_id=booking_id)
        return Response([tomp_support_status(support) for support in supports])


class TompMetaView(TompView):
    """What this operator implements: public, as TOMP documents no error for it."""

    authentication_classes: list = []
    permission_classes: list = []
    module = "operator"
    documented = frozenset()

    def get(self, request):
        return Response(tomp_meta(base_url=settings.SITE_URL + "/api/tomp"))


class TompSpecView(PublicAPIView):
    """The specification this door implements, as published (Apache 2.0, see NOTICE)."""

    authentication_classes: list = []
    schema = None

    def get(self, request):
        return FileResponse(SPEC_FILE.open("rb"), content_type="application/yaml")
