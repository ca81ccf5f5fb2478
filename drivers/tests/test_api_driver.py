"""Driver app API (contract 6): login, feed, offers, job status, settlement, availability."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.urls import reverse
from rest_framework.test import APIClient

from bookings.models import Booking, BookingStatus, PaymentRecord
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch.models import Offer, OfferStatus
from dispatch.services import offers
from drivers.models import DriverStage
from drivers.tests.factories import (
    UserFactory,
    driver_at,
    driver_client,
    offer_accept_post,
    position_report,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def offered(django_capture_on_commit_callbacks):
    driver_at(LEEDS)
    booking = BookingFactory(passenger_name="Asha Khan", passenger_phone="+447700900555")
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    return offer


def test_login_gives_a_token_that_opens_the_feed():
    driver = driver_at(LEEDS)
    driver.user = UserFactory(username="asha@example.co.uk")
    driver.save(update_fields=["user"])
    response = APIClient().post(
        "/api/public/v1/driver/login",
        {"username": "asha@example.co.uk", "password": "correct horse battery"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["driver"]["stage"] == DriverStage.TRIAL
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/public/v1/jobs").status_code == 200


def test_wrong_password_is_401_problem():
    driver = driver_at(LEEDS)
    driver.user = UserFactory(username="asha@example.co.uk")
    driver.save(update_fields=["user"])
    response = APIClient().post(
        "/api/public/v1/driver/login",
        {"username": "asha@example.co.uk", "password": "nope"},
        format="json",
    )
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "unauthenticated"


@pytest.mark.parametrize("header", [None, "Token not-a-token"])
def test_driver_endpoints_need_a_valid_token(header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.post("/api/public/v1/driver/availability", {"online": False}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_feed_shows_the_offer_without_passenger_details(offered, django_assert_max_num_queries):
    client = driver_client(offered.driver)
    with django_assert_max_num_queries(8):
        response = client.get("/api/public/v1/jobs")
    assert response.status_code == 200
    [item] = response.json()["results"]
    assert item["offerId"] == offered.pk
    assert item["bookingReference"] == offered.booking.reference
    assert item["status"] == "offered"
    assert item["fareGBP"] == 38.2
    assert item["passenger"] is None


def test_feed_query_count_does_not_grow_with_jobs(django_assert_max_num_queries):
    driver = driver_at(LEEDS, max_jobs=20)
    for _ in range(10):
        BookingFactory(driver=driver, status=BookingStatus.ACCEPTED)
    client = driver_client(driver)
    with django_assert_max_num_queries(8):
        response = client.get("/api/public/v1/jobs")
    assert len(response.json()["results"]) == 10


def test_accept_through_the_api_assigns_the_job_and_shows_the_passenger(offered):
    client = driver_client(offered.driver)
    response = offer_accept_post(client, offered)
    assert response.status_code == 200
    assert response.json() == {
        "offerId": offered.pk,
        "status": "accepted",
        "bookingReference": offered.booking.reference,
        "bookingStatus": "accepted",
    }
    [item] = client.get("/api/public/v1/jobs").json()["results"]
    assert item["status"] == "accepted"
    assert item["passenger"] == {"name": "Asha Khan", "phone": "+447700900555"}


def test_accepting_twice_is_409_offer_closed(offered):
    client = driver_client(offered.driver)
    assert offer_accept_post(client, offered).status_code == 200
    response = offer_accept_post(client, offered)
    assert response.status_code == 409
    assert response.json()["code"] == "offer_closed"


def test_another_drivers_offer_is_404(offered):
    stranger = driver_client(driver_at(north_of(LEEDS, 40)))
    response = offer_accept_post(stranger, offered)
    assert response.status_code == 404
    assert response.json()["code"] == "offer_not_found"


def test_decline_through_the_api_moves_on(offered, django_capture_on_commit_callbacks):
    second = driver_at(north_of(LEEDS, 3))
    client = driver_client(offered.driver)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/public/v1/driver/offers/{offered.pk}/decline", format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "declined"
    assert Offer.objects.get(booking=offered.booking, status=OfferStatus.OPEN).driver == second


def test_job_status_along_the_state_machine_and_release_on_completion(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    ref = offered.booking.reference
    at_pickup(offered.driver, offered.booking)
    for status in ("en_route", "arrived", "on_board", "completed"):
        response = client.post(
            f"/api/public/v1/driver/jobs/{ref}/status", {"status": status}, format="json"
        )
        assert response.status_code == 200, response.json()
        assert response.json() == {"bookingReference": ref, "status": status}
    offered.driver.refresh_from_db()
    assert offered.driver.current_jobs == 0


def test_illegal_status_move_is_409(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    response = client.post(
        f"/api/public/v1/driver/jobs/{offered.booking.reference}/status",
        {"status": "completed"},
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["code"] == "invalid_transition"


def test_unknown_status_is_400_naming_the_field(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    response = client.post(
        f"/api/public/v1/driver/jobs/{offered.booking.reference}/status",
        {"status": "flying"},
        format="json",
    )
    assert response.status_code == 400
    assert "status" in response.json()["errors"]


def test_status_of_a_job_not_assigned_to_the_driver_is_404(offered):
    client = driver_client(offered.driver)  # offered, not yet accepted
    response = client.post(
        f"/api/public/v1/driver/jobs/{offered.booking.reference}/status",
        {"status": "en_route"},
        format="json",
    )
    assert response.status_code == 404
    assert response.json()["code"] == "job_not_found"


def test_no_show_releases_the_driver(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    ref = offered.booking.reference
    url = f"/api/public/v1/driver/jobs/{ref}/status"
    at_pickup(offered.driver, offered.booking)
    assert client.post(url, {"status": "arrived"}, format="json").status_code == 200
    # once the free waiting after the booked pickup time is over, at the pickup
    with time_machine.travel(offered.booking.pickup_time + timedelta(minutes=11)):
        at_pickup(offered.driver, offered.booking)
        position = {"lat": LEEDS[0], "lng": LEEDS[1]}
        response = client.post(url, {"status": "no_show", **position}, format="json")
    assert response.status_code == 200, response.content
    offered.driver.refresh_from_db()
    assert offered.driver.current_jobs == 0


def at_pickup(driver, booking) -> None:
    """The driver's app reports the car at the pickup, as it does every few seconds on a
    trip: ``arrived`` and ``no_show`` are judged by these reports (contract 6)."""
    position_report(driver, lat=booking.pickup_lat, lng=booking.pickup_lng)


def drive_to(client, booking, *statuses: str) -> None:
    driver = booking.driver or Booking.objects.get(pk=booking.pk).driver
    at_pickup(driver, booking)
    for status in statuses:
        response = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": status},
            format="json",
        )
        assert response.status_code == 200, response.content


def test_settlement_appends_an_immutable_payment_record(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    drive_to(client, offered.booking, "en_route", "arrived", "on_board", "completed")
    ref = offered.booking.reference
    body = {"amountGBP": 38.2, "method": "card", "reference": "SUMUP-1", "processorFeeGBP": 0.65}
    response = client.post(f"/api/public/v1/driver/jobs/{ref}/settlement", body, format="json")
    assert response.status_code == 201
    assert response.json()["paymentState"] == "paid"
    assert response.json()["record"]["amountGBP"] == 38.2
    record = PaymentRecord.objects.get(booking=offered.booking)
    assert (record.amount, record.processor_fee, record.driver) == (
        Decimal("38.20"),
        Decimal("0.65"),
        offered.driver,
    )
    # a retry with the same payment reference records nothing new
    again = client.post(f"/api/public/v1/driver/jobs/{ref}/settlement", body, format="json")
    assert again.status_code == 200
    assert PaymentRecord.objects.filter(booking=offered.booking).count() == 1


def test_settlement_validation(offered):
    client = driver_client(offered.driver)
    offer_accept_post(client, offered)
    response = client.post(
        f"/api/public/v1/driver/jobs/{offered.booking.reference}/settlement",
        {"amountGBP": -5, "method": "bitcoin"},
        format="json",
    )
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"amountGBP", "method"}


def test_availability_sets_the_live_state():
    driver = driver_at(LEEDS, online=False)
    client = driver_client(driver)
    response = client.post(
        "/api/public/v1/driver/availability",
        {"online": True, "lat": 53.8, "lng": -1.55},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["online"] is True
    driver.refresh_from_db()
    assert (driver.online, driver.last_lat, driver.last_lng) == (True, 53.8, -1.55)
    assert driver.last_seen_at is not None


def test_going_online_without_a_position_is_400():
    client = driver_client(driver_at(LEEDS, online=False))
    response = client.post("/api/public/v1/driver/availability", {"online": True}, format="json")
    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"lat", "lng"}


def test_unapproved_driver_cannot_go_online():
    client = driver_client(
        driver_at(LEEDS, online=False, stage=DriverStage.SIGNED_UP, approved_at=None)
    )
    response = client.post(
        "/api/public/v1/driver/availability",
        {"online": True, "lat": 53.8, "lng": -1.5},
        format="json",
    )
    assert response.status_code == 403


def test_non_object_body_is_400():
    client = driver_client(driver_at(LEEDS))
    response = client.post("/api/public/v1/driver/availability", [1, 2], format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_body"


def test_driver_rate_limit(settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "driver": "2/m"}
    client = driver_client(driver_at(LEEDS))
    statuses = [client.get("/api/public/v1/jobs").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_urls_are_named():
    assert reverse("driver-offer-accept", args=[1]) == "/api/public/v1/driver/offers/1/accept"


def test_a_retried_accept_with_an_idempotency_key_replays_for_the_same_driver_only(offered):
    client = driver_client(offered.driver)
    first = client.post(
        f"/api/public/v1/driver/offers/{offered.pk}/accept", HTTP_IDEMPOTENCY_KEY="acc-1"
    )
    again = client.post(
        f"/api/public/v1/driver/offers/{offered.pk}/accept", HTTP_IDEMPOTENCY_KEY="acc-1"
    )
    assert first.status_code == again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    # Another driver using the same key is a different caller: nothing is replayed to it.
    other = driver_client(driver_at(LEEDS))
    response = other.post(
        f"/api/public/v1/driver/offers/{offered.pk}/accept", HTTP_IDEMPOTENCY_KEY="acc-1"
    )
    assert "Idempotent-Replayed" not in response
    assert response.status_code == 404
