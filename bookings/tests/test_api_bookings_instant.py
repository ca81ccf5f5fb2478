"""POST /api/public/bookings/instant: price and book in one step (seed 2.6)."""

import phonenumbers
import pytest
from django.test import override_settings

from api.tests.assertions import assert_problem
from bookings.links import booking_page_token
from bookings.models import Booking

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]
URL = "/api/public/bookings/instant"


def body(**overrides):
    payload = {
        "pickup_address": "Manchester Airport",
        "dropoff_address": "Manchester Piccadilly station",
        "passenger_name": "Ravi Singh",
        "passenger_phone_whatsapp": "+44 7700 900456",
        "passenger_count": 3,
        "agent": "Claude",
    }
    payload.update(overrides)
    return payload


def test_instant_booking_returns_reference_fare_and_status_url(api_client):
    response = api_client.post(URL, body(), format="json")
    assert response.status_code == 200, response.content
    answer = response.json()
    booking = Booking.objects.get(reference=answer["booking_reference"])
    assert answer["fare"] == float(booking.fare)
    assert answer["fare"] > 0
    assert answer["currency"] == "GBP"
    assert answer["status"] == "confirmed"
    assert answer["status_url"].endswith(
        f"/booking/{booking.reference}/{booking_page_token(booking.reference)}/"
    )
    assert booking.agent == "Claude"
    assert booking.source == "agent"
    assert booking.passengers == 3
    assert booking.pickup == "Manchester Airport"


def test_unlocatable_address_is_422_naming_the_alias_field(api_client):
    response = api_client.post(URL, body(dropoff_address="Qwxzzy Nowhereville"), format="json")
    problem = assert_problem(response, 422, "address_not_found")
    assert "dropoff_address" in problem["errors"]
    assert not Booking.objects.exists()


def test_invalid_input_is_400(api_client):
    response = api_client.post(URL, body(passenger_count=9, vehicle_type="bus"), format="json")
    errors = assert_problem(response, 400, "invalid_input")["errors"]
    assert {"passenger_count", "vehicle_type"} <= set(errors)


def test_unparseable_phone_is_400(api_client):
    response = api_client.post(URL, body(passenger_phone_whatsapp="call me"), format="json")
    assert "passenger_phone_whatsapp" in assert_problem(response, 400, "invalid_input")["errors"]


def test_the_passengers_phone_is_parsed_once_and_stored_in_e164(api_client, monkeypatch):
    # The input serializer and the admission apply the same rule; the admission reads the
    # verdict the serializer's number carries (bookings.passengers.AssessedPhone).
    parsed = []
    parse = phonenumbers.parse
    monkeypatch.setattr(phonenumbers, "parse", lambda *a, **k: parsed.append(a) or parse(*a, **k))

    response = api_client.post(URL, body(passenger_phone_whatsapp="07911 123456"), format="json")

    assert response.status_code == 200, response.content
    assert parsed == [("07911 123456", "GB")]
    booking = Booking.objects.get(reference=response.json()["booking_reference"])
    assert booking.passenger_phone == "+447911123456"
    assert type(booking.passenger_phone) is str


def test_body_that_is_not_an_object_is_400(api_client):
    assert_problem(api_client.post(URL, [body()], format="json"), 400, "invalid_body")


@override_settings(RATELIMITS={"booking": "2/h"})
def test_third_booking_in_the_hour_is_429(api_client):
    for _ in range(2):
        assert api_client.post(URL, body(), format="json").status_code == 200
    response = api_client.post(URL, body(), format="json")
    assert_problem(response, 429, "rate_limited")
    assert int(response["Retry-After"]) > 0
    assert Booking.objects.count() == 2
