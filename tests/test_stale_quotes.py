"""A quote is checked again when it is redeemed (contract 3, issue 34): an "as soon as
possible" quote books a pickup at the time of booking; a quote whose pickup time has
passed is 400 ``pickup_in_past`` on every door (API quote form, the create alias, the
website's booking page, the MCP booking tools), and nothing is booked."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.utils import timezone

from agents.confirmations import BookingRequest, booking_confirm, booking_preview
from agents.grants import AgentGrant
from api.tests.assertions import assert_problem
from bookings.models import Booking
from bookings.services import PassengerDetails
from core.callers import Caller
from core.errors import DomainError
from pricing.services import quote_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]

EMAIL = "ada.lovelace@example.co.uk"
PHONE = "+447700900111"


@pytest.fixture
def quote_factory():
    def make(*, depart_at):
        return quote_create(
            pickup="Leeds station",
            dropoff="York",
            passengers=2,
            vehicle_type=None,
            depart_at=depart_at,
        )

    return make


def _v1(quote) -> dict:
    return {
        "quote_id": str(quote.pk),
        "passenger_name": "Ada Lovelace",
        "passenger_email": EMAIL,
        "passenger_phone": PHONE,
        "payment_method": "cash_to_driver",
    }


def _alias(quote) -> dict:
    return {
        "quote_id": str(quote.pk),
        "passenger_name": "Ada Lovelace",
        "passenger_email": EMAIL,
        "passenger_phone_whatsapp": PHONE,
        "payment_method": "cash_to_driver",
    }


def _website(quote) -> dict:
    return {
        "quote_id": str(quote.pk),
        "passenger_name": "Ada Lovelace",
        "passenger_phone": PHONE,
        "passenger_email": EMAIL,
        "payment_method": "cash",
    }


@pytest.fixture
def stale(quote_factory):
    """A quote for a pickup in 10 minutes, redeemed 20 minutes later (it has not expired)."""
    quote = quote_factory(depart_at=timezone.now() + dt.timedelta(minutes=10))
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=20), tick=False):
        yield quote


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/public/v1/booking", _v1),
        ("/api/public/v1/bookings", _v1),
        ("/api/public/bookings/create", _alias),
    ],
)
def test_the_api_refuses_a_quote_whose_pickup_has_passed(api_client, stale, path, body):
    response = api_client.post(path, body(stale), format="json")
    assert_problem(response, 400, "pickup_in_past")
    assert not Booking.objects.exists()


def test_the_website_refuses_a_quote_whose_pickup_has_passed(client, stale):
    page = client.post("/book/", _website(stale))
    assert page.status_code == 200
    assert "The pickup time has already passed" in page.content.decode()
    assert not Booking.objects.exists()


GRANT = AgentGrant(
    client_id="client-a",
    client_name="Claude (test)",
    passenger_email=EMAIL,
    scopes=frozenset({"quotes", "bookings"}),
)
AGENT = Caller(ip="127.0.0.1", source="agent", agent="Claude (test)", passenger_email=EMAIL)


def _agent_request(quote) -> BookingRequest:
    return BookingRequest(
        passenger=PassengerDetails(name="Ada Lovelace", email=EMAIL, phone=PHONE),
        payment_method="cash_to_driver",
        quote_id=str(quote.pk),
    )


def test_mcp_refuses_a_stale_quote_at_preview_and_at_confirmation(quote_factory):
    quote = quote_factory(depart_at=timezone.now() + dt.timedelta(minutes=10))
    shown = booking_preview(caller=AGENT, grant=GRANT, request=_agent_request(quote))
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=15), tick=False):
        with pytest.raises(DomainError) as at_preview:
            booking_preview(caller=AGENT, grant=GRANT, request=_agent_request(quote))
        with pytest.raises(DomainError) as at_confirm:
            booking_confirm(caller=AGENT, grant=GRANT, token=shown.token)
    assert at_preview.value.code == at_confirm.value.code == "pickup_in_past"
    assert list(at_preview.value.errors) == ["quoteId"]  # the field as the agent named it
    assert not Booking.objects.exists()


def test_an_asap_quote_takes_the_time_of_booking_on_every_door(api_client, client, quote_factory):
    quotes = [quote_factory(depart_at=None) for _ in range(3)]
    assert all(q.asap for q in quotes)
    booked_at = timezone.now() + dt.timedelta(minutes=24)
    with time_machine.travel(booked_at, tick=False):
        api = api_client.post("/api/public/v1/booking", _v1(quotes[0]), format="json")
        assert api.status_code == 201, api.content
        web = client.post("/book/", _website(quotes[1]) | {"passenger_email": "b.c@example.co.uk"})
        assert web.status_code == 302, web.content
        booking, _ = booking_confirm(
            caller=AGENT,
            grant=GRANT,
            token=booking_preview(
                caller=AGENT, grant=GRANT, request=_agent_request(quotes[2])
            ).token,
        )
    pickups = list(Booking.objects.values_list("pickup_time", flat=True))
    assert len(pickups) == 3
    assert all(p == booked_at for p in pickups)
    assert all(p > q.depart_at for p, q in zip(pickups, quotes, strict=False))


def test_a_retry_of_a_redeemed_quote_still_returns_its_booking(api_client, quote_factory):
    quote = quote_factory(depart_at=timezone.now() + dt.timedelta(minutes=10))
    first = api_client.post("/api/public/v1/booking", _v1(quote), format="json")
    assert first.status_code == 201
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=20), tick=False):
        again = api_client.post("/api/public/v1/booking", _v1(quote), format="json")
    assert again.json()["bookingReference"] == first.json()["bookingReference"]
