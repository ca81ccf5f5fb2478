"""Cross-app flow through TOMP-API: a MaaS provider plans, books and commits a taxi, our
driver accepts, drives and completes it, and the provider reads each step as TOMP states
and is told each one by TOMP's messages (COMMIT, PREPARE, SET_IN_USE, FINISH) in order."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
import responses
import time_machine
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bookings.models import Booking, BookingStatus
from core.testing.places import LEEDS, north_of
from dispatch.models import Offer, OfferStatus
from drivers.tests.factories import UserFactory, driver_at
from partners.intake_formats.tomp.tests.spec import assert_tomp
from partners.models import WebhookDelivery, WebhookDeliveryStatus
from partners.tests.factories import verify_by_hand

pytestmark = pytest.mark.django_db

PROVIDER_BASE = "https://maas.example/tomp"
# The request body each path of the provider's takes, in the specification.
MESSAGE_SCHEMAS = {"events": "bookingOperation", "notifications": "notification"}


def provider_recording(signing_secret: str) -> list[tuple[str, dict]]:
    """The provider's TOMP API: every message it receives, as (path, body), checked
    against the specification's request body for its path, TOMP's headers and our
    Standard Webhooks signature with the account's secret."""
    received = []

    def receive(request):
        path = request.path_url.removeprefix("/tomp")
        body = json.loads(request.body)
        schema = "legEvent" if path.startswith("/legs/") else MESSAGE_SCHEMAS[path.split("/")[-1]]
        assert_tomp(body, schema)
        assert (request.headers["Api"], request.headers["Api-Version"]) == ("TOMP", "1.6.1")
        assert request.headers["Accept-Language"] == "en"
        assert request.headers["maas-id"]
        assert verify_by_hand(signing_secret, request.headers, request.body)
        received.append((path, body))
        return (204, {}, "")

    responses.add_callback(responses.POST, re.compile(re.escape(PROVIDER_BASE) + "/.*"), receive)
    return received


TOMP_HEADERS = {"HTTP_ACCEPT_LANGUAGE": "en", "HTTP_API": "TOMP", "HTTP_API_VERSION": "1.6.1"}


def tomp_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}", HTTP_MAAS_ID="maas-1", **TOMP_HEADERS)
    return client


@responses.activate
@time_machine.travel(dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC), tick=True)
def test_a_taxi_goes_from_planning_to_finished_through_tomp(
    tariffs, make_account, django_capture_on_commit_callbacks
):
    # given a MaaS provider whose account speaks TOMP, with its TOMP API's base URL, and a
    # driver online near Leeds
    provider = make_account(
        "partner", name="MaaS One", intake_format="tomp", webhook_url=PROVIDER_BASE
    )
    received = provider_recording(provider.signing_secret)
    maas = tomp_client(provider.raw_key)
    driver = driver_at(north_of(LEEDS, 1), user=UserFactory())
    app = APIClient()
    app.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    depart = (dt.datetime.now(dt.UTC) + dt.timedelta(minutes=45)).isoformat()

    # when it plans a trip
    planning = maas.post(
        "/api/tomp/plannings",
        {
            "from": {"coordinates": {"lat": 53.795, "lng": 0}, "name": "Leeds station"},
            "to": {"coordinates": {"lat": 53.958, "lng": 0}, "name": "York"},
            "departureTime": depart,
            "nrOfTravelers": 2,
        },
        format="json",
    )
    # then it gets one taxi option at our fixed fare, with the tariff it was priced on
    assert planning.status_code == 201, planning.content
    assert_tomp(planning.json(), "planning")
    [option] = planning.json()["options"]
    fare = option["pricing"]
    assert (option["state"], fare["estimated"]) == ("NEW", False)
    assert fare["parts"][0]["currencyCode"] == "GBP"
    assert fare["parts"][0]["amount"] > 0
    assert fare["parts"][0]["meta"]["tariffSource"]
    assert option["legs"][0]["assetType"]["assetClass"] == "TAXI"
    option_id = option["id"]

    # when it books the option for its customer: held, nothing booked or dispatched yet
    held = maas.post(
        "/api/tomp/bookings",
        {
            "id": option_id,
            "customer": {
                "firstName": "Asha",
                "lastName": "Khan",
                "phones": [{"number": "+447911123456"}],
            },
        },
        format="json",
    )
    assert held.status_code == 201, held.content
    assert_tomp(held.json(), "booking")
    assert held.json()["state"] == "PENDING"
    assert not Booking.objects.exists()

    # when it commits: the booking is made through the intake and dispatch offers it
    with django_capture_on_commit_callbacks(execute=True):
        committed = maas.post(
            f"/api/tomp/bookings/{option_id}/events", {"operation": "COMMIT"}, format="json"
        )
    assert committed.status_code == 200, committed.content
    assert_tomp(committed.json(), "booking")
    assert committed.json()["state"] == "CONDITIONAL_CONFIRMED"
    booking = Booking.objects.get()
    assert (booking.account, booking.job_ref, booking.passenger_name) == (
        provider,
        f"TOMP-{option_id}",
        "Asha Khan",
    )
    offer = Offer.objects.get(booking=booking, status=OfferStatus.OPEN)
    assert offer.driver == driver

    # and a second COMMIT changes nothing
    again = maas.post(
        f"/api/tomp/bookings/{option_id}/events", {"operation": "COMMIT"}, format="json"
    )
    assert again.status_code == 200
    assert Booking.objects.count() == 1

    def states():
        booking = maas.get(f"/api/tomp/bookings/{option_id}").json()
        leg = maas.get(f"/api/tomp/legs/{option_id}").json()
        assert_tomp(booking, "booking")
        assert_tomp(leg, "leg")
        return booking["state"], leg["state"]

    # and nothing was sent to the provider: no driver has it yet
    assert received == []

    # when the driver accepts, drives to the pickup, takes the passenger and completes
    with django_capture_on_commit_callbacks(execute=True):
        accepted = app.post(f"/api/public/v1/driver/offers/{offer.pk}/accept")
    assert accepted.status_code == 200
    assert states() == ("CONFIRMED", "NOT_STARTED")
    location = {"lat": booking.pickup_lat, "lng": booking.pickup_lng}
    assert app.post("/api/public/v1/driver/location", location, format="json").status_code == 200
    seen = {}
    for status in ("en_route", "arrived", "on_board", "completed"):
        with django_capture_on_commit_callbacks(execute=True):
            response = app.post(
                f"/api/public/v1/driver/jobs/{booking.reference}/status",
                {"status": status, "pickupCode": booking.pickup_code},
                format="json",
            )
        assert response.status_code == 200, response.content
        seen[status] = states()

    # then the provider read each step in TOMP's states
    assert seen == {
        "en_route": ("CONFIRMED", "PREPARING"),
        "arrived": ("CONFIRMED", "PREPARING"),
        "on_board": ("STARTED", "IN_USE"),
        "completed": ("FINISHED", "FINISHED"),
    }
    booking.refresh_from_db()
    assert booking.status == BookingStatus.COMPLETED
    leg = maas.get(f"/api/tomp/legs/{option_id}").json()
    assert leg["asset"]["licensePlate"] == booking.vehicle.registration

    # and the provider was told each step as it happened, in TOMP's messages, in order:
    # the postponed commit confirmed, the leg prepared (en route, arrived), in use, finished
    booking_events = f"/bookings/{option_id}/events"
    leg_events = f"/legs/{option_id}/events"
    assert [(path, body.get("operation") or body.get("event")) for path, body in received] == [
        (booking_events, "COMMIT"),
        (leg_events, "PREPARE"),
        (leg_events, "PREPARE"),
        (leg_events, "SET_IN_USE"),
        (leg_events, "FINISH"),
    ]
    assert received[0][1]["origin"] == "TO"
    assert received[1][1]["asset"]["licensePlate"] == booking.vehicle.registration
    times = [body["time"] for _, body in received[1:]]
    assert times == sorted(times)
    # and each was delivered once
    assert set(
        WebhookDelivery.objects.filter(account=provider).values_list("status", flat=True)
    ) == {WebhookDeliveryStatus.DELIVERED}
