"""Booking endpoints: each view parses, builds the caller, calls one use case of
``bookings.actions`` and renders with the serializer the OpenAPI schema documents."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response

from api.callers import caller_from_request
from api.input_serializers import validated_input
from api.output import render
from api.principals import request_account
from api.problems import validation_problem
from api.schema import problem_responses
from api.views import PublicAPIView
from bookings import actions
from bookings.api import examples
from bookings.api import serializers as s
from bookings.models import BookingSource
from core.callers import Caller


def booking_caller(request, agent: str = "") -> Caller:
    """The caller, with the source its bookings are recorded under: an agent key, or an
    anonymous caller that names its agent, books as ``agent``; everyone else as ``api``."""
    account = request_account(request)
    by_agent = account.kind == "agent" if account is not None else bool(agent)
    source = BookingSource.AGENT if by_agent else BookingSource.API
    return caller_from_request(request, source=source, agent=agent)


def _passenger(data: dict, name: str, email: str, phone: str) -> actions.PassengerDetails:
    return actions.PassengerDetails(
        name=data[name], email=data.get(email, ""), phone=data.get(phone, "")
    )


def _redeem(request, data: dict, form: actions.BookingForm, phone: str):
    """The quote-redeeming forms (v1 and the create alias) differ only in names."""
    return actions.booking_place_from_quote(
        caller=booking_caller(request),
        quote_id=data["quote_id"],
        passenger=_passenger(data, "passenger_name", "passenger_email", phone),
        payment_method=data["payment_method"],
        flight_number=data.get("flight_number", ""),
        notes=data.get("notes", ""),
        form=form,
    )


class AliasBookingCreateView(PublicAPIView):
    """POST /api/public/bookings/create: redeem a quote (seed 2.5)."""

    @extend_schema(
        operation_id="bookings_create_alias",
        summary="Redeem a quote into a booking (agent alias, snake_case)",
        request=s.AliasRedeemRequestSerializer,
        examples=examples.BOOKING_REDEEM,
        responses={
            200: s.AliasRedeemResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 410, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.AliasRedeemRequestSerializer, request.data)
        booking, _ = _redeem(request, data, actions.ALIAS_FORM, "passenger_phone_whatsapp")
        return Response(render(s.AliasRedeemResponseSerializer, booking))


class AliasBookingInstantView(PublicAPIView):
    """POST /api/public/bookings/instant: price and book in one step (seed 2.6)."""

    @extend_schema(
        operation_id="bookings_instant_alias",
        summary="Price and book in one step (agent alias, snake_case)",
        request=s.AliasInstantRequestSerializer,
        examples=examples.BOOKING_INSTANT,
        responses={
            200: s.AliasInstantResponseSerializer,
            **problem_responses(400, 401, 403, 422, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.AliasInstantRequestSerializer, request.data)
        booking = actions.booking_place(
            caller=booking_caller(request, agent=data.get("agent", "")),
            form=actions.ALIAS_FORM,
            **instant_booking(data),
        )
        return Response(render(s.AliasInstantResponseSerializer, booking))


def instant_booking(data: dict) -> dict:
    """The keyword arguments of ``actions.booking_place`` from the instant alias form."""
    return {
        "pickup": data["pickup_address"],
        "dropoff": data["dropoff_address"],
        "depart_at": data.get("depart_at"),
        "passenger": _passenger(
            data, "passenger_name", "passenger_email", "passenger_phone_whatsapp"
        ),
        "payment_method": data["payment_method"],
        "passengers": data["passenger_count"],
        "vehicle_type": data.get("vehicle_type"),
        "flight_number": data.get("flight_number", ""),
        "notes": data.get("notes", ""),
    }


class V1BookingCreateView(PublicAPIView):
    """POST /api/public/v1/booking and /v1/bookings: the current form (seed 2.7)."""

    @extend_schema(
        operation_id="booking_create_v1",
        summary="Create a booking (current form, camelCase; or redeem a quote)",
        description=(
            "Two request forms: the current form (pickup, dropoff, departAt, passenger details; "
            "priced on the published tariffs; fareGBP only from partner, operator and "
            "supplier accounts allowed to price), or the quote-redeeming form (quote_id, "
            "passenger_name, passenger_email, passenger_phone, payment_method). "
            "The passenger email must be genuine: disposable and role addresses are rejected; "
            "the phone must be a valid mobile number. "
            "A confirmation link is emailed to the passenger."
        ),
        request=s.V1BookingRequestSerializer,
        examples=examples.BOOKING_V1,
        responses={
            201: s.V1BookingResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 410, 422, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        if isinstance(request.data, dict) and "quote_id" in request.data:
            data = validated_input(s.V1RedeemRequestSerializer, request.data)
            booking, _ = _redeem(request, data, actions.QUOTE_FORM, "passenger_phone")
        else:
            data = validated_input(s.V1BookingRequestSerializer, request.data)
            booking = actions.booking_place(caller=booking_caller(request), **v1_booking(data))
        return Response(render(s.V1BookingResponseSerializer, booking), status=201)


def v1_booking(data: dict) -> dict:
    """The keyword arguments of ``actions.booking_place`` from the current form."""
    return {
        "pickup": data["pickup"],
        "dropoff": data["dropoff"],
        "depart_at": data["departAt"],
        "passenger": _passenger(data, "passengerName", "passengerEmail", "passengerPhone"),
        "payment_method": data["paymentMethod"],
        "passengers": data["passengers"],
        "vehicle_type": data.get("vehicleType"),
        "flight_number": data.get("flightNumber", ""),
        "notes": data.get("notes", ""),
        "fare": data.get("fareGBP"),
    }


class V1BookingDetailView(PublicAPIView):
    """GET (lookup) and POST (cancel) /api/public/v1/booking/{ref} (seed 2.8, 2.9)."""

    @extend_schema(
        operation_id="booking_lookup_v1",
        summary="Look up a booking (status, driver, payment)",
        parameters=[OpenApiParameter("email", str, required=True, description="Passenger email")],
        responses={
            200: s.BookingLookupResponseSerializer,
            **problem_responses(400, 401, 403, 404, 429),
        },
        tags=["bookings"],
    )
    def get(self, request, ref: str):
        query = s.BookingLookupQuerySerializer(data=request.query_params)
        if not query.is_valid():
            raise validation_problem(query.errors)
        booking = actions.booking_lookup(
            caller=booking_caller(request), reference=ref, email=query.validated_data["email"]
        )
        return Response(render(s.BookingLookupResponseSerializer, booking))

    @extend_schema(
        operation_id="booking_cancel_v1",
        summary="Cancel a booking",
        request=s.BookingCancelRequestSerializer,
        examples=examples.BOOKING_CANCEL,
        responses={
            200: s.BookingCancelResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 429),
        },
        tags=["bookings"],
    )
    def post(self, request, ref: str):
        data = validated_input(s.BookingCancelRequestSerializer, request.data)
        booking = actions.booking_cancel_for_passenger(
            caller=booking_caller(request),
            reference=ref,
            email=data["email"],
            reason=data.get("reason", ""),
        )
        return Response(render(s.BookingCancelResponseSerializer, booking))


class PassengerVerifyView(PublicAPIView):
    """POST /api/public/v1/passenger-verify (contract 3.4)."""

    @extend_schema(
        operation_id="passenger_verify_v1",
        summary="Check a passenger email and send a confirmation link",
        request=s.PassengerVerifyRequestSerializer,
        examples=examples.PASSENGER_VERIFY,
        responses={200: s.PassengerVerifyResponseSerializer, **problem_responses(400, 401, 429)},
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.PassengerVerifyRequestSerializer, request.data)
        check = actions.passenger_email_check(caller=booking_caller(request), email=data["email"])
        return Response(render(s.PassengerVerifyResponseSerializer, check))


@extend_schema_view(
    post=extend_schema(
        operation_id="bookings_create_v1", summary="Create a booking (plural path of /v1/booking)"
    )
)
class V1BookingsCreateView(V1BookingCreateView):
    """POST /api/public/v1/bookings: the plural path named by the seed (section 4)."""
