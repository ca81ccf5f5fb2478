"""The confirmation token of start_booking, in process: it books only for the client AND
the passenger it was issued to, and only within its lifetime."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from agents.confirmations import BookingRequest, booking_confirm, booking_preview
from agents.grants import AgentGrant
from bookings.models import Booking
from bookings.services import PassengerDetails
from core.callers import Caller
from core.errors import DomainError

pytestmark = pytest.mark.django_db

EMAIL = "ada.lovelace@example.co.uk"
GRANT = AgentGrant(
    client_id="client-a",
    client_name="Claude (test)",
    passenger_email=EMAIL,
    scopes=frozenset({"quotes", "bookings"}),
)


def _caller(grant: AgentGrant) -> Caller:
    return Caller(
        ip="127.0.0.1",
        source="agent",
        agent=grant.client_name,
        passenger_email=grant.passenger_email,
        path="/mcp",
    )


def _preview(grant: AgentGrant = GRANT):
    request = BookingRequest(
        passenger=PassengerDetails(name="Ada Lovelace", email=EMAIL, phone="+447700900123"),
        payment_method="cash_to_driver",
        pickup="Leeds station",
        dropoff="Leeds Bradford Airport",
        depart_at=timezone.now() + dt.timedelta(days=1),
        passengers=2,
    )
    return booking_preview(caller=_caller(grant), grant=grant, request=request)


def _confirm(token: str, grant: AgentGrant = GRANT):
    return booking_confirm(caller=_caller(grant), grant=grant, token=token)


def test_the_token_books_for_the_client_and_passenger_it_was_issued_to(tariffs):
    booking, created = _confirm(_preview().token)
    assert created
    assert booking.passenger_email == EMAIL


@pytest.mark.parametrize(
    "other",
    [
        # the same passenger through another assistant
        AgentGrant("client-b", "Other agent", EMAIL, GRANT.scopes),
        # the same assistant acting for another passenger
        AgentGrant("client-a", "Claude (test)", "grace.hopper@example.co.uk", GRANT.scopes),
    ],
    ids=["other-client", "other-passenger"],
)
def test_a_token_is_refused_when_either_the_client_or_the_passenger_differs(tariffs, other):
    token = _preview().token

    with pytest.raises(DomainError) as refused:
        _confirm(token, other)

    assert refused.value.code == "invalid_input"
    assert "confirmationToken" in refused.value.errors
    assert not Booking.objects.exists()


def test_a_token_books_until_its_lifetime_ends_and_not_after(tariffs, settings):
    # Given a lifetime of 2 minutes (the default is 30), well inside the quote's
    settings.AGENT_CONFIRMATION_TTL_SECONDS = 120
    issued_at = timezone.now()
    shown = _preview()
    assert shown.expires_at <= issued_at + dt.timedelta(seconds=121)

    # When it is used a second past its lifetime, it is refused as expired
    with (
        time_machine.travel(issued_at + dt.timedelta(seconds=122), tick=False),
        pytest.raises(DomainError) as refused,
    ):
        _confirm(shown.token)
    assert refused.value.code == "quote_expired"
    assert not Booking.objects.exists()

    # While a second before the end it still books
    with time_machine.travel(issued_at + dt.timedelta(seconds=119), tick=False):
        booking, created = _confirm(shown.token)
    assert created
    assert booking.quote_id == shown.quote.pk
