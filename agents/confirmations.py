"""Book with the passenger's yes: a preview with a confirmation token, then the booking.

An agent must not book on a guess. ``start_booking`` without a token prices the journey
(a quote, under the quote rules), checks the passenger's details under the booking rules
and returns exactly what would be booked, with a signed ``confirmationToken``. Called
again with the token, it books that preview and nothing else.

Single use without a table: the token names a quote, and a quote is redeemed once (a
database constraint, ``booking_redeem_quote``). Confirming twice books nothing new and
returns the same booking. The token is signed (``SECRET_KEY``), bound to the OAuth client
and the signed-in passenger, and lives ``AGENT_CONFIRMATION_TTL_SECONDS`` at most, never
past the quote's expiry.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.utils import timezone

from agents.grants import AgentGrant
from bookings import actions, policies
from bookings.admission import CURRENT_FORM, BookingRequest, booking_request_admit
from bookings.models import Booking
from bookings.services import PassengerDetails
from core.callers import Caller
from core.errors import DomainError, field_error
from pricing.models import Quote
from pricing.selectors import quote_get_for_redemption

TOKEN_SALT = "agents.start_booking"


@dataclass(frozen=True)
class BookingPreview:
    quote: Quote
    passenger: PassengerDetails
    payment_method: str
    flight_number: str
    notes: str
    token: str
    expires_at: dt.datetime

    @property
    def booking_url(self) -> str:
        query = urlencode(
            {
                "quote": str(self.quote.pk),
                "passengerName": self.passenger.name,
                "passengerEmail": self.passenger.email,
                "passengerPhone": self.passenger.phone,
                "paymentMethod": self.payment_method,
            }
        )
        return f"{settings.SITE_URL}/book/?{query}"


def _quote_for(caller: Caller, request: BookingRequest) -> Quote:
    if request.quote_id:
        quote = quote_get_for_redemption(request.quote_id)
        # A stale quote is refused now, as confirming it would be (contract 3).
        policies.quote_pickup_time(depart_at=quote.depart_at, asap=quote.asap, field="quoteId")
        return quote
    if not request.pickup or not request.dropoff:
        missing = [name for name in ("pickup", "dropoff") if not getattr(request, name)]
        raise DomainError(
            "invalid_input",
            "Give the journey (pickup and dropoff) or the quoteId of an estimate.",
            errors={name: ["This field is required without quoteId."] for name in missing},
        )
    return actions.quote_request(
        caller=caller,
        pickup=request.pickup,
        dropoff=request.dropoff,
        depart_at=request.depart_at,
        passengers=request.passengers,
        vehicle_type=request.vehicle_type,
        meet_and_greet=request.meet_and_greet,
    )


def booking_preview(
    *, caller: Caller, grant: AgentGrant, request: BookingRequest
) -> BookingPreview:
    """Price the journey and check the passenger: what confirming would book, and its token.

    Guarantees: nothing is booked; the booking's admission
    (``bookings.admission.booking_request_admit``: screening, email, phone, blocked
    passenger, payment method, flight number) applies now, uncounted, so a preview that
    succeeds books unless a limit or the quote's lifetime intervenes. Quotes count
    against the quote limit.
    """
    # The booking's own admission, uncounted: the confirmation books through the actions,
    # which admit it again and count it. Previewed as it will be stored (the flight number
    # normalised), so the passenger confirms what is booked.
    admitted = booking_request_admit(
        caller=caller, request=request, form=CURRENT_FORM, counted=False
    )
    passenger = admitted.request.passenger
    request = replace(request, flight_number=admitted.request.flight_number)
    quote = _quote_for(caller, request)
    token = signing.dumps(
        {
            "q": str(quote.pk),
            "c": grant.client_id,
            "u": grant.passenger_email,
            "n": passenger.name,
            "e": passenger.email,
            "t": passenger.phone,
            "m": request.payment_method,
            "f": request.flight_number,
            "o": request.notes,
        },
        salt=TOKEN_SALT,
        compress=True,
    )
    ttl = dt.timedelta(seconds=settings.AGENT_CONFIRMATION_TTL_SECONDS)
    return BookingPreview(
        quote=quote,
        passenger=passenger,
        payment_method=request.payment_method,
        flight_number=request.flight_number,
        notes=request.notes,
        token=token,
        expires_at=min(timezone.now() + ttl, quote.expires_at),
    )


def booking_confirm(*, caller: Caller, grant: AgentGrant, token: str) -> tuple[Booking, bool]:
    """Book the preview a token stands for: (booking, created).

    Guarantees: one booking per token, whatever the number or timing of confirmations
    (the quote's single redemption is enforced by the database); a token works only for
    the client and passenger it was issued to, within its lifetime.
    """
    try:
        preview = signing.loads(
            token, salt=TOKEN_SALT, max_age=settings.AGENT_CONFIRMATION_TTL_SECONDS
        )
    except signing.SignatureExpired as exc:
        raise DomainError(
            "quote_expired",
            "This confirmation token has expired. Call start_booking without it for a new preview.",
        ) from exc
    except signing.BadSignature as exc:
        raise field_error(
            "invalid_input",
            "confirmationToken",
            "Not a confirmation token from start_booking. Preview again without it.",
        ) from exc
    if preview["c"] != grant.client_id or preview["u"] != grant.passenger_email:
        raise field_error(
            "invalid_input",
            "confirmationToken",
            "This token was issued to another assistant or passenger.",
        )
    return actions.booking_place_from_quote(
        caller=caller,
        quote_id=preview["q"],
        passenger=PassengerDetails(name=preview["n"], email=preview["e"], phone=preview["t"]),
        payment_method=preview["m"],
        flight_number=preview["f"],
        notes=preview["o"],
    )
