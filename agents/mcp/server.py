"""The MCP server (contract 7): five tools on the official SDK's ``MCPServer``.

Each tool is the MCP door of a use case the HTTP API also serves: it builds the
:class:`core.callers.Caller` from the OAuth grant (client and signed-in passenger), calls
the same use-case function as the HTTP view, and answers with the HTTP body as
``structuredContent``. A refusal is a tool result with ``isError: true`` whose
``structuredContent`` is the HTTP API's problem body, ``code`` included.

Django's ORM is synchronous: each use case runs in a worker thread through asgiref's
``sync_to_async`` (as Django's own ASGI handler runs views), with the connection hygiene
Django applies around a request.
"""

from __future__ import annotations

from typing import Annotated

from django.conf import settings
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from agents import confirmations
from agents.mcp.arguments import (
    DepartAt,
    Dropoff,
    Email,
    MeetAndGreet,
    Passengers,
    PaymentMethodName,
    Pickup,
    Reference,
    VehicleType,
)
from agents.mcp.calls import _answer, _body, _caller, _grant, _utc
from agents.mcp.quoting import caller_text
from agents.mcp.schemas import (
    BookingCancelBody,
    BookingLookupBody,
    PlacesBody,
    QuoteBody,
    ServiceInfoBody,
    StartBookingResult,
)
from agents.service_info import service_info_get
from api.problems import problem_from_domain_error
from bookings import actions
from bookings.api.serializers import (
    BookingCancelResponseSerializer,
    BookingLookupResponseSerializer,
    V1BookingResponseSerializer,
)
from bookings.services import PassengerDetails
from core.errors import DomainError
from pricing.api.serializers import PlacesResponseSerializer, QuoteV1ResponseSerializer
from pricing.suggestions import LIMIT as SUGGESTIONS
from pricing.suggestions import LIMIT_MAX, QUERY_MAX, QUERY_MIN, places_find

INSTRUCTIONS = (
    "Direct-to-Driver books licensed UK taxis at regulated council tariffs with no "
    "commission; the passenger pays the driver directly. Call get_service_info once for "
    "coverage, vehicle classes and limits. Price with estimate_fare (find_places suggests "
    "places for a vague pickup or dropoff). To book, call "
    "start_booking without confirmationToken to get a preview, show it to the passenger, "
    "and only after they agree call it again with the confirmationToken. Errors carry a "
    "stable code in structuredContent.code (for example address_not_found: ask for a "
    "clearer place; rate_limited: wait retryAfter seconds)."
)

mcp_server = MCPServer(
    name="direct-to-driver",
    title="Direct-to-Driver taxi booking",
    instructions=INSTRUCTIONS,
    website_url=settings.SITE_URL,
    version="1.0.0",
    # Django's LOGGING configures logging; the SDK's own setup is only a fallback.
    log_level="WARNING",
)


# --- tools ----------------------------------------------------------------------------


@mcp_server.tool(
    name="get_service_info",
    title="Service information",
    annotations=ToolAnnotations(
        title="Service information",
        read_only_hint=True,
        idempotent_hint=True,
        open_world_hint=False,
    ),
)
async def get_service_info(ctx: Context) -> Annotated[CallToolResult, ServiceInfoBody]:
    """What the service covers and how it works: the UK areas and council tariffs it
    prices on, vehicle classes and how many each seats, fees (no commission), how the
    passenger pays the driver directly, rate limits and quote lifetime, and the steps to
    book and cancel. Call this once before quoting."""
    return await _answer(
        service_info_get,
        lambda body: (
            f"{body['name']}: {len(body['vehicleClasses'])} vehicle classes, "
            f"{len(body['coverage']['councils'])} council tariffs, no commission."
        ),
    )


@mcp_server.tool(
    name="estimate_fare",
    title="Estimate a fare",
    annotations=ToolAnnotations(
        title="Estimate a fare", read_only_hint=True, idempotent_hint=False, open_world_hint=False
    ),
)
async def estimate_fare(
    ctx: Context,
    pickup: Pickup,
    dropoff: Dropoff,
    departAt: DepartAt = None,
    passengers: Passengers = 1,
    vehicleType: VehicleType = None,
    meetAndGreet: MeetAndGreet = False,
) -> Annotated[CallToolResult, QuoteBody]:
    """Price a UK taxi journey on the regulated tariff, exactly as POST
    /api/public/v1/quote does. Returns a quote valid 24 hours: fareGBP, the itemised
    appliedRules that sum to it, distance, duration, the tariff it used, and quote_id,
    which start_booking accepts as quoteId to book at this fare. Nothing is booked."""
    caller = _caller(ctx)
    return await _answer(
        lambda: _body(
            QuoteV1ResponseSerializer,
            actions.quote_request(
                caller=caller,
                pickup=pickup,
                dropoff=dropoff,
                depart_at=departAt,
                passengers=passengers,
                vehicle_type=vehicleType,
                meet_and_greet=meetAndGreet,
            ),
        ),
        lambda body: (
            f"£{body['fareGBP']:.2f} for {body['distanceMiles']} miles "
            f"({body['durationMinutes']} min) by {body['vehicleType']}, quote {body['quote_id']} "
            f"valid until {body['expiresAt']}."
        ),
    )


@mcp_server.tool(
    name="find_places",
    title="Find places",
    annotations=ToolAnnotations(
        title="Find places", read_only_hint=True, idempotent_hint=True, open_world_hint=False
    ),
)
async def find_places(
    ctx: Context,
    query: Annotated[
        str,
        Field(
            min_length=QUERY_MIN,
            max_length=QUERY_MAX,
            description="The start of a UK place, station, airport or terminal name, or a "
            "postcode (full or outward), as the passenger said it.",
        ),
    ],
    limit: Annotated[
        int, Field(ge=1, le=LIMIT_MAX, description="How many places at most.")
    ] = SUGGESTIONS,
) -> Annotated[CallToolResult, PlacesBody]:
    """Suggest UK places for a pickup or dropoff, exactly as GET /api/public/v1/places
    does: airports and terminals, stations and venues first, then towns by population; a
    postcode first as itself. Each label, given to estimate_fare or start_booking as
    pickup or dropoff, resolves to that place. Use it when a passenger's place is vague or
    a quote's pickupPlace lists alternatives."""
    caller = _caller(ctx)
    return await _answer(
        lambda: _body(
            PlacesResponseSerializer, places_find(caller=caller, query=query, limit=limit)
        ),
        lambda body: (
            "; ".join(f"{place['label']} ({place['kindLabel']})" for place in body["places"])
            or f"No UK place starts with the query {caller_text(query)}."
        ),
    )


@mcp_server.tool(
    name="start_booking",
    title="Preview, then confirm a booking",
    annotations=ToolAnnotations(
        title="Preview, then confirm a booking",
        read_only_hint=False,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=True,
    ),
)
async def start_booking(
    ctx: Context,
    passengerName: Annotated[
        str, Field(min_length=1, max_length=200, description="The passenger's full name.")
    ] = "",
    passengerPhone: Annotated[
        str,
        Field(max_length=40, description="The passenger's mobile, international format (+44...)."),
    ] = "",
    paymentMethod: Annotated[
        PaymentMethodName, Field(description="How the passenger will pay the driver directly.")
    ] = "cash_to_driver",
    passengerEmail: Annotated[
        str | None,
        Field(
            max_length=254, description="The passenger's email; omit for the signed-in passenger's."
        ),
    ] = None,
    quoteId: Annotated[
        str | None,
        Field(description="The quote_id of an estimate_fare result, instead of the journey."),
    ] = None,
    pickup: Annotated[
        str | None, Field(max_length=300, description="Pickup, when no quoteId.")
    ] = None,
    dropoff: Annotated[
        str | None, Field(max_length=300, description="Dropoff, when no quoteId.")
    ] = None,
    departAt: DepartAt = None,
    passengers: Passengers = 1,
    vehicleType: VehicleType = None,
    meetAndGreet: MeetAndGreet = False,
    flightNumber: Annotated[
        str, Field(max_length=20, description="Flight number for airport pickups.")
    ] = "",
    notes: Annotated[str, Field(max_length=1000, description="Notes for the driver.")] = "",
    confirmationToken: Annotated[
        str | None,
        Field(
            description="Omit to get a preview. After the passenger has agreed to the "
            "preview, send the token it returned to book exactly that preview."
        ),
    ] = None,
) -> Annotated[CallToolResult, StartBookingResult]:
    """Book a taxi in two steps, so nothing is booked without the passenger's yes.
    1) Without confirmationToken: returns a preview of exactly what would be booked
    (journey and places, fare, passenger, payment), a single-use confirmationToken with its
    expiry, and bookingUrl, a prefilled page where the passenger can confirm in person.
    Show the preview to the passenger. 2) Once they agree, call again with
    confirmationToken (other arguments are then not needed): it books that preview through
    the same service as the booking API and returns the v1 booking body
    (bookingReference, status, statusUrl, payDriverUrl, fareGBP, pickupTime). Repeating the
    confirmation returns the same booking, never a second one. The passenger pays the
    driver directly; the service takes no payment."""
    caller, grant = _caller(ctx), _grant(ctx)
    if confirmationToken:

        def confirm():
            booking, _created = confirmations.booking_confirm(
                caller=caller, grant=grant, token=confirmationToken
            )
            return _body(V1BookingResponseSerializer, booking)

        return await _answer(
            confirm,
            lambda body: (
                f"Booked {body['bookingReference']} ({body['status']}), "
                f"£{body['fareGBP']:.2f} to pay the driver, pickup {body['pickupTime']}."
            ),
        )

    request = confirmations.BookingRequest(
        passenger=PassengerDetails(
            name=passengerName, email=passengerEmail or grant.passenger_email, phone=passengerPhone
        ),
        payment_method=paymentMethod,
        flight_number=flightNumber,
        notes=notes,
        quote_id=quoteId or "",
        pickup=pickup or "",
        dropoff=dropoff or "",
        depart_at=departAt,
        passengers=passengers,
        vehicle_type=vehicleType,
        meet_and_greet=meetAndGreet,
    )

    def preview():
        shown = confirmations.booking_preview(caller=caller, grant=grant, request=request)
        return {
            "status": "preview",
            "confirmationToken": shown.token,
            "confirmationExpiresAt": _utc(shown.expires_at),
            "bookingUrl": shown.booking_url,
            "quote": _body(QuoteV1ResponseSerializer, shown.quote),
            "passenger": {
                "name": shown.passenger.name,
                "email": shown.passenger.email,
                "phone": shown.passenger.phone,
            },
            "paymentMethod": shown.payment_method,
            "flightNumber": shown.flight_number,
            "notes": shown.notes,
        }

    return await _answer(
        preview,
        lambda body: (
            f"Preview: {body['quote']['vehicleType']} for {caller_text(body['passenger']['name'])}, "
            f"£{body['quote']['fareGBP']:.2f} paid to the driver by {body['paymentMethod']}, pickup "
            f"{body['quote']['departAt']}. Not booked yet: confirm with the passenger, then call "
            "start_booking with confirmationToken."
        ),
    )


@mcp_server.tool(
    name="get_booking",
    title="Look up a booking",
    annotations=ToolAnnotations(
        title="Look up a booking", read_only_hint=True, idempotent_hint=True, open_world_hint=False
    ),
)
async def get_booking(
    ctx: Context, bookingReference: Reference, email: Email
) -> Annotated[CallToolResult, BookingLookupBody]:
    """A booking's status, pickup, fare, driver (name, vehicle, licensing authority, once a
    driver has accepted) and payment state, as GET /api/public/v1/booking/{ref} returns it.
    The email must be the passenger's (error email_mismatch otherwise)."""
    caller = _caller(ctx)
    return await _answer(
        lambda: _body(
            BookingLookupResponseSerializer,
            actions.booking_lookup(caller=caller, reference=bookingReference, email=email),
        ),
        lambda body: (
            f"{body['bookingReference']}: {body['status']}, pickup {body['pickupTime']}, "
            f"£{body['fareGBP']:.2f}."
        ),
    )


@mcp_server.tool(
    name="cancel_booking",
    title="Cancel a booking",
    annotations=ToolAnnotations(
        title="Cancel a booking",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=True,
        open_world_hint=True,
    ),
)
async def cancel_booking(
    ctx: Context,
    bookingReference: Reference,
    email: Email,
    reason: Annotated[
        str, Field(max_length=500, description="Why, in the passenger's words.")
    ] = "",
) -> Annotated[CallToolResult, BookingCancelBody]:
    """Cancel a booking for the passenger (reference and the passenger's email), any time
    before they are on board; the driver is told. Cancelling an already cancelled booking
    returns the same answer. Confirm with the passenger first: this cannot be undone.
    Error not_cancellable once the passenger is on board or the ride is over."""
    caller = _caller(ctx)
    return await _answer(
        lambda: _body(
            BookingCancelResponseSerializer,
            actions.booking_cancel_for_passenger(
                caller=caller, reference=bookingReference, email=email, reason=reason
            ),
        ),
        lambda body: f"{body['bookingReference']} is {body['status']}.",
    )


async def _argument_errors_carry_a_code(ctx, call_next):
    """Arguments the input schema refuses come back as the API's ``invalid_input``."""
    result = await call_next(ctx)
    if ctx.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        # The SDK's own refusals (arguments its schema rejects) reach here as a dict.
        result = CallToolResult.model_validate(result)
    if (
        ctx.method == "tools/call"
        and isinstance(result, CallToolResult)
        and result.is_error
        and result.structured_content is None
    ):
        text = " ".join(block.text for block in result.content if isinstance(block, TextContent))
        problem = problem_from_domain_error(DomainError("invalid_input", text[:2000])).as_body()
        # The SDK's message repeats the refused arguments: quoted as data.
        content = [TextContent(text=f"invalid_input: {caller_text(text[:2000])}")]
        result = result.model_copy(update={"structured_content": problem, "content": content})
    return result


mcp_server.middleware.append(_argument_errors_carry_a_code)
