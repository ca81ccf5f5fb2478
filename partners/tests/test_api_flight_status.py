"""POST /api/public/v1/flights/status: flight updates from partners and operators (issue 15)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.core import mail

from bookings.models import BookingStatus, FlightArrival
from bookings.tests.factories import BookingFactory
from dispatch.airports import airport_get

pytestmark = pytest.mark.django_db

URL = "/api/public/v1/flights/status"
NOW = dt.datetime(2026, 11, 23, 8, 0, tzinfo=dt.UTC)
SCHEDULED = dt.datetime(2026, 11, 23, 10, 0, tzinfo=dt.UTC)
LBA = airport_get("LBA")


@pytest.fixture(autouse=True)
def _now():
    with time_machine.travel(NOW, tick=False):
        yield


@pytest.fixture
def partner(make_account):
    return make_account("partner", name="Acme Transfers")


def pickup_for(account, **fields):
    values = {
        "account": account,
        "source": "partner",
        "pickup": "Leeds Bradford Airport",
        "pickup_lat": LBA.lat,
        "pickup_lng": LBA.lng,
        "flight_number": "BA1234",
        "pickup_time": SCHEDULED,
    }
    return BookingFactory(**{**values, **fields})


def post(api_client, account, payload):
    if account is not None:
        api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {account.raw_key}")
    return api_client.post(URL, payload, format="json")


DELAYED = {
    "flightNumber": "ba 1234",
    "scheduledDate": "2026-11-23",
    "status": "delayed",
    "estimatedArrival": "2026-11-23T10:50:00Z",
    "terminal": "Main",
}


def test_a_partner_moves_every_pickup_of_its_own_on_the_flight(
    api_client, partner, make_account, django_capture_on_commit_callbacks
):
    first, second = pickup_for(partner), pickup_for(partner, pickup_time=SCHEDULED)
    others = pickup_for(make_account("partner", name="Someone Else"))

    with django_capture_on_commit_callbacks(execute=True):
        response = post(api_client, partner, DELAYED)

    assert response.status_code == 200, response.content
    answer = response.json()
    assert answer["flightNumber"] == "BA1234"
    assert {b["bookingReference"] for b in answer["bookings"]} == {
        first.reference,
        second.reference,
    }
    row = answer["bookings"][0]
    assert row["pickupTime"] == "2026-11-23T11:35:00Z"
    assert row["previousPickupTime"] == "2026-11-23T10:00:00Z"
    assert row["moved"] is True
    assert row["terminal"] == "Main"
    others.refresh_from_db()
    assert others.pickup_time == SCHEDULED  # another sender's booking is not touched
    assert len(mail.outbox) == 2  # each passenger is told
    arrival = FlightArrival.objects.get(booking=first)
    assert arrival.source == f"account:{partner.slug}"


def test_an_operator_reports_one_booking_by_reference(api_client, make_account):
    operator = make_account("operator", name="Leeds Cars", approved=True)
    booking = pickup_for(operator, source="operator", flight_number="EZY12")
    response = post(
        api_client,
        operator,
        {
            "flightNumber": "EZY12",
            "bookingReference": booking.reference,
            "status": "landed",
            "actualArrival": "2026-11-23T09:40:00Z",
        },
    )
    assert response.status_code == 200, response.content
    booking.refresh_from_db()
    assert booking.pickup_time == dt.datetime(2026, 11, 23, 10, 25, tzinfo=dt.UTC)


def test_a_repeat_is_a_no_op(api_client, partner):
    pickup_for(partner)
    post(api_client, partner, DELAYED)
    again = post(api_client, partner, DELAYED)
    assert again.status_code == 200
    assert again.json()["bookings"][0]["changed"] is False
    assert again.json()["bookings"][0]["moved"] is False


def test_without_credentials_it_is_401(api_client):
    response = post(api_client, None, DELAYED)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_a_wrong_key_is_401(api_client):
    api_client.credentials(HTTP_AUTHORIZATION="Bearer not-a-key")
    response = api_client.post(URL, DELAYED, format="json")
    assert response.status_code == 401


def test_an_agent_key_is_403(api_client, make_account):
    response = post(api_client, make_account("agent", name="Some Assistant"), DELAYED)
    assert response.status_code == 403
    assert response.json()["code"] == "partner_not_allowed"


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"flightNumber": "12345"}, "flightNumber"),
        ({"flightNumber": "BA12345"}, "flightNumber"),
        ({"status": "landed", "estimatedArrival": None}, "actualArrival"),
        ({"estimatedArrival": None}, "estimatedArrival"),
        ({"scheduledDate": None}, "scheduledDate"),
        ({"status": "boarding"}, "status"),
        ({"estimatedArrival": "soon"}, "estimatedArrival"),
        ({"gate": "12"}, "gate"),
        ({"scheduledDate": "9999-12-31"}, "scheduledDate"),
    ],
)
def test_bad_input_is_400_naming_the_field(api_client, partner, change, field):
    pickup_for(partner)
    payload = {k: v for k, v in {**DELAYED, **change}.items() if v is not None}
    response = post(api_client, partner, payload)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_input"
    assert field in response.json()["errors"]


def test_no_booking_on_that_flight_is_404(api_client, partner):
    response = post(api_client, partner, {**DELAYED, "scheduledDate": "2026-11-24"})
    assert response.status_code == 404
    assert response.json()["code"] == "booking_not_found"


def test_a_pickup_not_at_an_airport_is_422(api_client, partner):
    booking = BookingFactory(account=partner, source="partner", flight_number="BA1234")
    payload = {k: v for k, v in DELAYED.items() if k != "scheduledDate"}
    response = post(api_client, partner, {**payload, "bookingReference": booking.reference})
    assert response.status_code == 422
    assert response.json()["code"] == "not_airport_pickup"


def test_a_passenger_on_board_is_409(api_client, partner):
    booking = pickup_for(partner, status=BookingStatus.ON_BOARD)
    payload = {k: v for k, v in DELAYED.items() if k != "scheduledDate"}
    response = post(api_client, partner, {**payload, "bookingReference": booking.reference})
    assert response.status_code == 409
    assert response.json()["code"] == "flight_update_closed"


@pytest.mark.parametrize("when", ["9999-12-31T23:59:00Z", "2026-11-27T10:00:00Z"])
def test_a_landing_days_away_from_the_booking_is_400_not_a_move(api_client, partner, when):
    booking = pickup_for(partner)
    payload = {k: v for k, v in DELAYED.items() if k != "scheduledDate"}
    response = post(
        api_client,
        partner,
        {**payload, "bookingReference": booking.reference, "estimatedArrival": when},
    )
    assert response.status_code == 400
    assert "estimatedArrival" in response.json()["errors"]
    booking.refresh_from_db()
    assert booking.pickup_time == SCHEDULED
