"""The TOMP door's rules: who may call it, the postponed commit, cancellation, errors in
TOMP's shape, and the state table."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from bookings.models import Booking, BookingStatus
from partners.intake_formats.tomp.shapes import STATES

pytestmark = pytest.mark.django_db

TRIP = {
    "from": {"coordinates": {"lat": 53.795, "lng": 0}, "name": "Leeds station"},
    "to": {"coordinates": {"lat": 53.958, "lng": 0}, "name": "York"},
    "nrOfTravelers": 2,
}


def client_for(key: str | None) -> APIClient:
    client = APIClient()
    if key:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.fixture
def provider(make_account):
    return make_account("partner", name="MaaS One", intake_format="tomp")


def plan(client) -> str:
    depart = (dt.datetime.now(dt.UTC) + dt.timedelta(hours=3)).isoformat()
    response = client.post("/api/tomp/plannings", {**TRIP, "departureTime": depart}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["options"][0]["id"]


def hold(client, option_id: str):
    customer = {"firstName": "Sam", "phones": [{"number": "+447700900123"}]}
    return client.post("/api/tomp/bookings", {"id": option_id, "customer": customer}, format="json")


def event(client, option_id: str, operation: str):
    return client.post(
        f"/api/tomp/bookings/{option_id}/events", {"operation": operation}, format="json"
    )


def test_every_booking_status_has_a_tomp_state():
    assert set(STATES) == set(BookingStatus.values)


def test_without_a_key_the_door_is_closed_in_tomps_error_shape(tariffs):
    response = client_for(None).post("/api/tomp/plannings", TRIP, format="json")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/json"
    assert (response.json()["code"], response.json()["errorcode"]) == ("unauthenticated", 2006)


def test_an_account_that_pushes_partner_jobs_may_not_use_tomp(tariffs, make_account):
    native = make_account("partner", name="Native")
    response = client_for(native.raw_key).post("/api/tomp/plannings", TRIP, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "partner_not_allowed"


def test_a_place_that_cannot_be_located_is_tomps_400_invalid(tariffs, provider):
    trip = {**TRIP, "to": {"coordinates": {"lat": 1, "lng": 1}, "name": "Qqqzzx Nowhere Xyzzy"}}
    response = client_for(provider.raw_key).post("/api/tomp/plannings", trip, format="json")
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["errorcode"]) == ("address_not_found", 2002)
    assert "to" in body["errors"]


def test_coordinates_alone_are_not_a_place(tariffs, provider):
    trip = {**TRIP, "from": {"coordinates": {"lat": 53.795, "lng": 0}}}
    response = client_for(provider.raw_key).post("/api/tomp/plannings", trip, format="json")
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["from.non_field_errors"]


def test_commit_without_a_hold_books_nothing(tariffs, provider):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    response = event(client, option_id, "COMMIT")
    assert response.status_code == 410
    assert response.json()["errorcode"] == 3202
    assert not Booking.objects.exists()


def test_a_pending_booking_released_by_cancel_is_never_booked(tariffs, provider):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    assert hold(client, option_id).json()["state"] == "PENDING"

    cancelled = event(client, option_id, "CANCEL")

    assert cancelled.json()["state"] == "CANCELLED"
    assert event(client, option_id, "COMMIT").status_code == 410
    assert client.get(f"/api/tomp/bookings/{option_id}").json()["state"] == "CANCELLED"
    assert not Booking.objects.exists()


def test_a_committed_booking_is_cancelled_through_the_intake(tariffs, provider):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    hold(client, option_id)
    assert event(client, option_id, "COMMIT").status_code == 200

    cancelled = event(client, option_id, "CANCEL")

    assert cancelled.status_code == 200
    assert cancelled.json()["state"] == "CANCELLED"
    assert Booking.objects.get().status == BookingStatus.CANCELLED


def test_another_providers_option_is_not_found(tariffs, provider, make_account):
    option_id = plan(client_for(provider.raw_key))
    other = make_account("partner", name="MaaS Two", intake_format="tomp")
    response = client_for(other.raw_key).get(f"/api/tomp/bookings/{option_id}")
    assert response.status_code == 404
    assert response.json()["errorcode"] == 3204


def test_deny_is_the_operators_to_send(tariffs, provider):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    response = event(client, option_id, "DENY")
    assert response.status_code == 400
    assert "operation" in response.json()["errors"]


def test_the_specification_is_served_as_published():
    response = client_for(None).get("/api/tomp/openapi.yaml")
    assert response.status_code == 200
    assert b'version: "1.6.1"' in b"".join(response.streaming_content)


def test_meta_declares_the_taxi_profile():
    [meta] = client_for(None).get("/api/tomp/operator/meta").json()
    assert meta["processIdentifiers"]["booking"] == ["POSTPONED_COMMIT"]
    assert {"method": "POST", "path": "/plannings", "status": "IMPLEMENTED"} in meta["endpoints"]
