"""Unknown fields are 400 ``invalid_input``, named, with a hint when one is close (contract 1).

Finding (issue 13, careless input): "unknown fields are ignored (`vehicleType: "luxury"`
on the snake_case alias prices a saloon)". Every request body's serializer derives from
``api.input_serializers.InputSerializer``; these tests go through each door over HTTP.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from api.input_serializers import InputSerializer, known_field_close_to
from api.tests.assertions import assert_problem
from bookings.models import Booking
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from drivers.tests.factories import driver_at, driver_client
from partners.tests.factories import partner_job
from pricing.models import Quote

pytestmark = pytest.mark.django_db

UNKNOWN = "Unknown field."


@pytest.fixture
def future():
    return (timezone.now() + timedelta(days=1)).replace(microsecond=0)


@pytest.fixture
def quote(tariffs):
    from pricing.services import quote_create

    return quote_create(
        pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=None
    )


def post(client, path, body):
    return client.post(path, data=json.dumps(body), content_type="application/json")


def test_vehicle_type_in_camel_case_on_the_snake_case_alias_is_named_with_a_hint(
    api_client, tariffs
):
    """Finding: `vehicleType: "luxury"` on the snake_case alias priced a saloon."""
    response = post(
        api_client,
        "/api/public/quotes/estimate",
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_count": 2,
            "vehicleType": "luxury",
        },
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"] == {"vehicleType": [UNKNOWN, "Did you mean 'vehicle_type'?"]}
    assert not Quote.objects.exists()


def test_a_misspelt_field_on_the_current_quote_form_is_named_with_the_right_spelling(
    api_client, tariffs
):
    response = post(
        api_client,
        "/api/public/v1/quote",
        {"pickup": "Leeds station", "dropof": "York", "meet_and_greet": True},
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"]["dropof"] == [UNKNOWN, "Did you mean 'dropoff'?"]
    assert body["errors"]["meet_and_greet"] == [UNKNOWN, "Did you mean 'meetAndGreet'?"]
    # Reported in the same answer as the required field it left missing.
    assert body["errors"]["dropoff"] == ["This field is required."]


def test_a_field_like_no_other_is_named_without_a_hint(api_client, tariffs):
    response = post(
        api_client, "/api/public/v1/quote", {"pickup": "Leeds station", "dropoff": "York", "x": 1}
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"] == {"x": [UNKNOWN]}


def test_an_unknown_field_on_the_instant_alias_books_nothing(api_client, tariffs):
    response = post(
        api_client,
        "/api/public/bookings/instant",
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_name": "Jo Bloggs",
            "passenger_phone_whatsapp": "+447700900123",
            "vehicleType": "executive",
        },
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"] == {"vehicleType": [UNKNOWN, "Did you mean 'vehicle_type'?"]}
    assert not Booking.objects.exists()


def test_an_unknown_field_on_the_alias_redeem_form_books_nothing(api_client, quote):
    response = post(
        api_client,
        "/api/public/bookings/create",
        {
            "quote_id": str(quote.pk),
            "passenger_name": "Jo Bloggs",
            "passenger_phone": "+447700900123",
            "payment_method": "cash_to_driver",
        },
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"]["passenger_phone"][0] == UNKNOWN
    assert body["errors"]["passenger_phone_whatsapp"] == ["This field is required."]
    assert not Booking.objects.exists()


def current_form(future, **fields) -> dict:
    return {
        "pickup": "Leeds station",
        "dropoff": "York",
        "departAt": future.isoformat(),
        "passengerName": "Grace Hopper",
        "passengerEmail": "grace.hopper@example.co.uk",
        "passengerPhone": "+447700900123",
        **fields,
    }


def test_the_current_booking_form_names_a_snake_case_field_with_its_camel_case(
    api_client, tariffs, future
):
    response = post(api_client, "/api/public/v1/booking", current_form(future, flight_number="X"))

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"] == {"flight_number": [UNKNOWN, "Did you mean 'flightNumber'?"]}
    assert not Booking.objects.exists()


def test_the_current_booking_form_still_reads_vehicle_type_spelt_as_in_the_prose(
    api_client, tariffs, future
):
    response = post(api_client, "/api/public/v1/booking", current_form(future, vehicle_type="mpv"))

    assert response.status_code == 201, response.content
    assert Booking.objects.get().vehicle_type == "mpv"


def test_the_quote_redeeming_form_of_the_current_endpoint_names_unknown_fields(api_client, quote):
    redeem = {
        "quote_id": str(quote.pk),
        "passenger_name": "Ada Lovelace",
        "passenger_email": "ada.lovelace@example.co.uk",
        "passenger_phone": "+447700900111",
        "payment_method": "direct_to_driver",
    }

    refused = post(api_client, "/api/public/v1/booking", {**redeem, "passengerNotes": "hi"})
    body = assert_problem(refused, 400, "invalid_input")
    assert body["errors"]["passengerNotes"][0] == UNKNOWN
    assert not Booking.objects.exists()
    # The documented form itself still books.
    assert post(api_client, "/api/public/v1/booking", redeem).status_code == 201


def test_cancel_names_an_unknown_field(api_client):
    booking = BookingFactory(passenger_email="jo.bloggs@example.co.uk")
    response = post(
        api_client,
        f"/api/public/v1/booking/{booking.reference}",
        {"action": "cancel", "email": booking.passenger_email, "reasons": "changed plans"},
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"] == {"reasons": [UNKNOWN, "Did you mean 'reason'?"]}
    booking.refresh_from_db()
    assert booking.status != "cancelled"


def test_passenger_verify_names_an_unknown_field(api_client):
    response = post(
        api_client,
        "/api/public/v1/passenger-verify",
        {"email": "grace.hopper@example.co.uk", "emailAddress": "x"},
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"]["emailAddress"][0] == UNKNOWN


def test_driver_endpoints_name_an_unknown_field():
    client = driver_client(driver_at(LEEDS, online=False))

    response = post(
        client, "/api/public/v1/driver/availability", {"online": True, "latitude": 53.79}
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"]["latitude"][0] == UNKNOWN
    login = post(APIClient(), "/api/public/v1/driver/login", {"user": "a", "password": "b"})
    assert assert_problem(login, 400, "invalid_input")["errors"]["user"] == [
        UNKNOWN,
        "Did you mean 'username'?",
    ]


def test_an_unknown_field_in_an_intake_job_rejects_that_job_only(api_client, make_account):
    partner = make_account("partner", name="Acme Rides")
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {partner.raw_key}")
    good = partner_job(jobRef="GOOD-1")
    bad = partner_job(jobRef="BAD-1", vehicle_type="executive")

    response = post(api_client, "/api/public/v1/jobs", [good, bad])

    assert response.status_code == 207
    results = response.json()["results"]
    assert [r["outcome"] for r in results] == ["created", "rejected"]
    assert results[1]["errors"] == {"vehicle_type": [UNKNOWN, "Did you mean 'vehicleType'?"]}
    assert list(Booking.objects.values_list("job_ref", flat=True)) == ["GOOD-1"]


# --- the rule itself ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "known", "hint"),
    [
        ("vehicleType", ["vehicle_type", "pickup_address"], "vehicle_type"),
        ("passenger_email", ["passengerEmail", "passengerName"], "passengerEmail"),
        ("pickup_adress", ["pickup_address", "dropoff_address"], "pickup_address"),
        ("PickupTime", ["pickupTime", "pickup"], "pickupTime"),
        ("colour_scheme", ["pickup", "dropoff"], None),
    ],
)
def test_the_hint_is_the_same_words_in_the_other_convention_or_the_closest_spelling(
    sent, known, hint
):
    assert known_field_close_to(sent, known) == hint


def test_every_request_body_serializer_derives_from_the_input_base():
    """A new input serializer that forgets the base would silently ignore unknown fields."""
    from bookings.api import serializers as bookings_serializers
    from driverapp.api import serializers as drivers_serializers
    from partners.api import serializers as partners_serializers
    from pricing.api import serializers as pricing_serializers

    request_bodies = [
        value
        for module in (
            bookings_serializers,
            drivers_serializers,
            partners_serializers,
            pricing_serializers,
        )
        for name, value in vars(module).items()
        if isinstance(value, type) and name.endswith(("RequestSerializer", "InputSerializer"))
    ]

    assert len(request_bodies) >= 15
    assert [cls.__name__ for cls in request_bodies if not issubclass(cls, InputSerializer)] == []


def test_the_status_hook_names_an_unknown_field_even_inside_the_driver(client, make_account):
    from partners.tests.factories import hmac_hex

    partner = make_account("partner", name="Fleet Platform", slug="fleetco")
    booking = BookingFactory(account=partner, job_ref="FL-1", source="partner")
    body = json.dumps(
        {
            "bookingReference": booking.reference,
            "status": "accepted",
            "occurredAt": "2026-11-22T10:00:00Z",
            "driver": {"name": "Jo Driver", "licenceNumber": "123"},
        }
    ).encode()

    response = client.post(
        "/api/public/hooks/booking-status",
        data=body,
        content_type="application/json",
        HTTP_X_PARTNER=partner.slug,
        HTTP_X_SIGNATURE=hmac_hex(partner.signing_secret, body),
    )

    body = assert_problem(response, 400, "invalid_input")
    assert body["errors"]["driver.licenceNumber"][0] == UNKNOWN
    booking.refresh_from_db()
    assert booking.status == "confirmed"
