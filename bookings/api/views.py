"""Booking endpoints: thin views that validate, check policy and call one service."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework.response import Response

from api.input_serializers import validated_input
from api.problems import Problem, validation_problem
from api.ratelimits import ratelimit_enforce
from api.schema import problem_responses
from api.screening import screening_enforce
from api.views import PublicAPIView
from bookings import policies
from bookings.api import serializers as s
from bookings.models import BookingSource
from bookings.selectors import booking_get_for_passenger
from bookings.services import (
    PAYMENT_METHOD_ALIASES,
    BookingDraft,
    PassengerDetails,
    booking_cancel,
    booking_create,
    booking_pay_driver_url,
    booking_redeem_quote,
    booking_status_url,
    email_confirmation_send,
    passenger_get_or_create,
    passenger_verify,
    payment_state,
)
from pricing.selectors import quote_get_for_redemption
from pricing.services import quote_price

# A pickup this far in the past is still "now" (clock skew, slow networks).
PICKUP_GRACE = timedelta(minutes=2)


def _source(request, agent: str = "") -> str:
    account = getattr(request, "account", None)
    if account is not None:
        return BookingSource.AGENT if account.kind == "agent" else BookingSource.API
    return BookingSource.AGENT if agent else BookingSource.API


def _admitted_body(request) -> dict:
    """Who may book, and is the text clean: checked before any booking logic (contract 1.5)."""
    policies.account_require_can_book(request)
    body = request.data
    if not isinstance(body, dict):
        raise Problem(400, "invalid_body", "The body must be a JSON object.")
    screening_enforce(request, body)
    return body


def _draft(
    request,
    data: dict,
    *,
    pickup_time,
    name: str,
    email: str,
    phone: str,
    agent: str = "",
    pickup: str = "",
    dropoff: str = "",
    payment_method: str,
) -> BookingDraft:
    return BookingDraft(
        source=_source(request, agent),
        account=getattr(request, "account", None),
        agent=agent,
        pickup=pickup,
        dropoff=dropoff,
        pickup_time=pickup_time,
        passenger=PassengerDetails(name=name, email=email, phone=phone),
        payment_method=PAYMENT_METHOD_ALIASES[payment_method],
        flight_number=data.get("flight_number") or data.get("flightNumber") or "",
        notes=data.get("notes", ""),
    )


def _require_future(pickup_time, field: str):
    if pickup_time < timezone.now() - PICKUP_GRACE:
        raise Problem(
            400,
            "pickup_in_past",
            "The pickup time is in the past.",
            errors={field: ["The pickup time is in the past."]},
        )


ALIAS_FIELD_NAMES = {
    "pickup": "pickup_address",
    "dropoff": "dropoff_address",
    "vehicleType": "vehicle_type",
    "passengers": "passenger_count",
    "departAt": "depart_at",
}


def _price_alias(data, pickup_time, account):
    """Price an alias request; errors name the alias form's snake_case fields."""
    return quote_price(
        pickup=data["pickup_address"],
        dropoff=data["dropoff_address"],
        passengers=data["passenger_count"],
        vehicle_type=data.get("vehicle_type"),
        depart_at=pickup_time,
        account=account,
        field_names=ALIAS_FIELD_NAMES,
    )


def _v1_response(booking, status: int) -> Response:
    return Response(
        {
            "bookingReference": booking.reference,
            "status": booking.status,
            "statusUrl": booking_status_url(booking),
            "payDriverUrl": booking_pay_driver_url(booking),
            "fareGBP": float(booking.fare),
            "currency": booking.currency,
            "pickupTime": s.iso_utc(booking.pickup_time),
        },
        status=status,
    )


class AliasBookingCreateView(PublicAPIView):
    """POST /api/public/bookings/create: redeem a quote (seed 2.5)."""

    ratelimit_scope = "booking"

    @extend_schema(
        operation_id="bookings_create_alias",
        summary="Redeem a quote into a booking (agent alias, snake_case)",
        request=s.AliasRedeemRequestSerializer,
        responses={
            200: s.AliasRedeemResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 410, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.AliasRedeemRequestSerializer, _admitted_body(request))
        email = data.get("passenger_email", "")
        policies.passenger_require_not_blocked(email)
        quote = quote_get_for_redemption(data["quote_id"])
        draft = _draft(
            request,
            data,
            pickup_time=quote.depart_at,
            name=data["passenger_name"],
            email=email,
            phone=data["passenger_phone_whatsapp"],
            payment_method=data["payment_method"],
        )
        booking, _ = booking_redeem_quote(quote=quote, draft=draft)
        return Response(
            {
                "booking_reference": booking.reference,
                "status": booking.status,
                "status_url": booking_status_url(booking),
            }
        )


class AliasBookingInstantView(PublicAPIView):
    """POST /api/public/bookings/instant: price and book in one step (seed 2.6)."""

    ratelimit_scope = "booking"

    @extend_schema(
        operation_id="bookings_instant_alias",
        summary="Price and book in one step (agent alias, snake_case)",
        request=s.AliasInstantRequestSerializer,
        responses={
            200: s.AliasInstantResponseSerializer,
            **problem_responses(400, 401, 403, 422, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.AliasInstantRequestSerializer, _admitted_body(request))
        email = data.get("passenger_email", "")
        policies.passenger_require_not_blocked(email)
        pickup_time = data.get("depart_at") or timezone.now()
        _require_future(pickup_time, "depart_at")
        priced = _price_alias(data, pickup_time, getattr(request, "account", None))
        draft = _draft(
            request,
            data,
            pickup_time=pickup_time,
            name=data["passenger_name"],
            email=email,
            phone=data["passenger_phone_whatsapp"],
            agent=data.get("agent", ""),
            pickup=data["pickup_address"],
            dropoff=data["dropoff_address"],
            payment_method=data["payment_method"],
        )
        booking = booking_create(draft=draft, priced=priced)
        return Response(
            {
                "booking_reference": booking.reference,
                "fare": float(booking.fare),
                "currency": booking.currency,
                "status_url": booking_status_url(booking),
                "status": booking.status,
            }
        )


class V1BookingCreateView(PublicAPIView):
    """POST /api/public/v1/booking and /v1/bookings: the current form (seed 2.7)."""

    ratelimit_scope = "booking"

    @extend_schema(
        operation_id="booking_create_v1",
        summary="Create a booking (current form, camelCase; or redeem a quote)",
        description=(
            "Two request forms: the current form (pickup, dropoff, departAt, passenger details; "
            "priced on the published tariffs unless fareGBP is given), or the quote-redeeming "
            "form (quote_id, passenger_name, passenger_email, passenger_phone, payment_method). "
            "The passenger email must be genuine: disposable and role addresses are rejected. "
            "A confirmation link is emailed to the passenger."
        ),
        request=s.V1BookingRequestSerializer,
        responses={
            201: s.V1BookingResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 410, 422, 429),
        },
        tags=["bookings"],
    )
    def post(self, request):
        body = _admitted_body(request)
        if "quote_id" in body:
            return self._redeem(request, validated_input(s.V1RedeemRequestSerializer, body))
        data = validated_input(s.V1BookingRequestSerializer, body)
        _require_future(data["departAt"], "departAt")
        email = policies.email_require_genuine(data["passengerEmail"], field="passengerEmail")
        passenger = policies.passenger_require_not_blocked(email)
        policies.email_limits_enforce(request, email=email, passenger=passenger)
        account = getattr(request, "account", None)
        fare = data.get("fareGBP")
        priced = quote_price(
            pickup=data["pickup"],
            dropoff=data["dropoff"],
            passengers=data["passengers"],
            vehicle_type=data.get("vehicleType"),
            depart_at=data["departAt"],
            account=account,
            fare_override=fare if account is not None and fare is not None else None,
        )
        draft = _draft(
            request,
            data,
            pickup_time=data["departAt"],
            name=data["passengerName"],
            email=email,
            phone=data["passengerPhone"],
            pickup=data["pickup"],
            dropoff=data["dropoff"],
            payment_method=data["paymentMethod"],
        )
        booking = booking_create(draft=draft, priced=priced)
        self._confirm(booking)
        return _v1_response(booking, 201)

    def _redeem(self, request, data) -> Response:
        email = policies.email_require_genuine(data["passenger_email"], field="passenger_email")
        passenger = policies.passenger_require_not_blocked(email)
        policies.email_limits_enforce(request, email=email, passenger=passenger)
        quote = quote_get_for_redemption(data["quote_id"])
        draft = _draft(
            request,
            data,
            pickup_time=quote.depart_at,
            name=data["passenger_name"],
            email=email,
            phone=data["passenger_phone"],
            payment_method=data["payment_method"],
        )
        booking, created = booking_redeem_quote(quote=quote, draft=draft)
        if created:
            self._confirm(booking)
        return _v1_response(booking, 201)

    @staticmethod
    def _confirm(booking) -> None:
        passenger = booking.passenger or passenger_get_or_create(email=booking.passenger_email)
        if passenger is not None:
            email_confirmation_send(passenger=passenger, booking=booking)


def lookup_body(booking) -> dict:
    records = list(booking.payment_records.all())
    driver = None
    if booking.driver_id is not None:
        vehicle = booking.vehicle
        driver = {
            "name": _public_driver_name(booking.driver.name),
            "vehicle": None
            if vehicle is None
            else {
                "make": vehicle.make,
                "model": vehicle.model,
                "colour": vehicle.colour,
                "registration": vehicle.registration,
            },
            "licensingAuthority": booking.driver.licensing_authority,
        }
    return {
        "bookingReference": booking.reference,
        "status": booking.status,
        "pickupTime": s.iso_utc(booking.pickup_time),
        "pickup": booking.pickup,
        "dropoff": booking.dropoff,
        "passengers": booking.passengers,
        "vehicleType": booking.vehicle_type,
        "fareGBP": float(booking.fare),
        "currency": booking.currency,
        "statusUrl": booking_status_url(booking),
        "payDriverUrl": booking_pay_driver_url(booking),
        "driver": driver,
        "payment": {
            "state": payment_state(records, booking.fare),
            "method": booking.payment_method,
            "records": [
                {
                    "amountGBP": float(r.amount),
                    "kind": r.kind,
                    "method": r.method,
                    "reference": r.reference,
                    "occurredAt": s.iso_utc(r.occurred_at),
                }
                for r in records
            ],
        },
    }


def _public_driver_name(name: str) -> str:
    """First name and initial: enough to recognise the driver, no more (contract 3.2)."""
    parts = name.split()
    if len(parts) < 2:
        return name
    return f"{parts[0]} {parts[-1][0]}."


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
        ratelimit_enforce(request, "lookup")
        query = s.BookingLookupQuerySerializer(data=request.query_params)
        if not query.is_valid():
            raise validation_problem(query.errors)
        booking = booking_get_for_passenger(reference=ref, email=query.validated_data["email"])
        return Response(lookup_body(booking))

    @extend_schema(
        operation_id="booking_cancel_v1",
        summary="Cancel a booking",
        request=s.BookingCancelRequestSerializer,
        responses={
            200: s.BookingCancelResponseSerializer,
            **problem_responses(400, 401, 403, 404, 409, 429),
        },
        tags=["bookings"],
    )
    def post(self, request, ref: str):
        ratelimit_enforce(request, "lookup")
        screening_enforce(
            request, request.data if isinstance(request.data, dict) else {}, ("reason",)
        )
        data = validated_input(s.BookingCancelRequestSerializer, request.data)
        booking = booking_get_for_passenger(reference=ref, email=data["email"])
        booking = booking_cancel(
            booking=booking,
            actor=f"passenger:{data['email'].lower()}",
            reason=data.get("reason", ""),
        )
        return Response({"bookingReference": booking.reference, "status": booking.status})


class PassengerVerifyView(PublicAPIView):
    """POST /api/public/v1/passenger-verify (contract 3.4)."""

    ratelimit_scope = "verify"

    @extend_schema(
        operation_id="passenger_verify_v1",
        summary="Check a passenger email and send a confirmation link",
        request=s.PassengerVerifyRequestSerializer,
        responses={200: s.PassengerVerifyResponseSerializer, **problem_responses(400, 401, 429)},
        tags=["bookings"],
    )
    def post(self, request):
        data = validated_input(s.PassengerVerifyRequestSerializer, request.data)
        return Response(passenger_verify(email=data["email"]))


@extend_schema_view(
    post=extend_schema(
        operation_id="bookings_create_v1", summary="Create a booking (plural path of /v1/booking)"
    )
)
class V1BookingsCreateView(V1BookingCreateView):
    """POST /api/public/v1/bookings: the plural path named by the seed (section 4)."""
