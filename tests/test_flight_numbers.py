"""One flight number rule (bookings.policies.flight_number_normalise) at every door that takes
a flight number: the v1 booking, the alias booking, partner intake and MCP start_booking's
preview (issue 15)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import Booking
from bookings.policies import flight_number_normalise
from core.errors import DomainError
from partners.tests.factories import partner_job

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("BA1234", "BA1234"),
        ("ba 1234", "BA1234"),
        ("EZY12", "EZY12"),
        ("U2 123", "U2123"),
        ("9W-456", "9W456"),
        ("LS1234A", "LS1234A"),
        ("", ""),
        ("  ", ""),
        (None, ""),
    ],
)
def test_good_flight_numbers_are_normalised(raw, stored):
    assert flight_number_normalise(raw, field="flightNumber") == stored


@pytest.mark.parametrize(
    "raw", ["12345", "BA12345", "B1", "BA", "BAXX12", "99123", "BA 12 34 5", "flight BA1"]
)
def test_bad_flight_numbers_are_invalid_input_naming_the_field(raw):
    with pytest.raises(DomainError) as refused:
        flight_number_normalise(raw, field="flight_number")
    assert refused.value.code == "invalid_input"
    assert list(refused.value.errors) == ["flight_number"]


def v1_body(**overrides):
    depart = (timezone.now() + timedelta(days=1)).replace(microsecond=0)
    return {
        "pickup": "Leeds Bradford Airport",
        "dropoff": "Harrogate",
        "departAt": depart.isoformat().replace("+00:00", "Z"),
        "passengerName": "Grace Hopper",
        "passengerEmail": "grace.hopper@example.co.uk",
        "passengerPhone": "+447700900321",
        **overrides,
    }


@pytest.mark.usefixtures("tariffs")
def test_a_v1_booking_stores_the_normalised_flight_number(api_client):
    response = api_client.post(
        "/api/public/v1/booking", v1_body(flightNumber="u2 123"), format="json"
    )
    assert response.status_code == 201, response.content
    booking = Booking.objects.get(reference=response.json()["bookingReference"])
    assert booking.flight_number == "U2123"


@pytest.mark.usefixtures("tariffs")
def test_a_v1_booking_with_a_bad_flight_number_is_400(api_client):
    response = api_client.post(
        "/api/public/v1/booking", v1_body(flightNumber="BA12345"), format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert "flightNumber" in response.json()["errors"]
    assert not Booking.objects.exists()


@pytest.mark.usefixtures("tariffs")
def test_the_alias_form_names_its_own_field(api_client):
    response = api_client.post(
        "/api/public/bookings/instant",
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_name": "Grace Hopper",
            "passenger_phone_whatsapp": "+447700900321",
            "flight_number": "not a flight",
        },
        format="json",
    )
    assert response.status_code == 400, response.content
    assert "flight_number" in response.json()["errors"]


@pytest.mark.usefixtures("tariffs")
def test_intake_rejects_only_the_job_with_a_bad_flight_number(api_client, make_account):
    partner = make_account("partner", name="Acme Rides")
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {partner.raw_key}")
    jobs = [partner_job(flightNumber="ABCDE1"), partner_job(flightNumber="ezy 12")]
    response = api_client.post(
        "/api/public/v1/jobs", data=json.dumps(jobs), content_type="application/json"
    )
    assert response.status_code == 207
    bad, good = response.json()["results"]
    assert bad["outcome"] == "rejected"
    assert bad["code"] == "invalid_input"
    assert "flightNumber" in bad["errors"]
    assert good["outcome"] == "created"
    assert Booking.objects.get(reference=good["bookingReference"]).flight_number == "EZY12"


def test_mcp_start_booking_previews_refuse_a_bad_flight_number():
    from agents.confirmations import BookingRequest, booking_preview
    from bookings.actions import PassengerDetails
    from core.callers import Caller

    request = BookingRequest(
        passenger=PassengerDetails(
            name="Grace Hopper", email="grace.hopper@example.co.uk", phone="+447700900321"
        ),
        payment_method="cash",
        flight_number="BA12345",
        pickup="Leeds Bradford Airport",
        dropoff="Harrogate",
    )
    caller = Caller(source="agent", agent="Test Assistant", passenger_email=request.passenger.email)
    with pytest.raises(DomainError) as refused:
        booking_preview(caller=caller, grant=None, request=request)
    assert refused.value.code == "invalid_input"
    assert list(refused.value.errors) == ["flightNumber"]
