"""The pickup code (issue 23): the driver enters the passenger's code to go on board."""

from __future__ import annotations

import pytest

from bookings.models import BookingEvent, BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.network import caches_unreachable
from core.testing.places import LEEDS
from dispatch.services import offers
from drivers.tests.factories import driver_at, driver_client, offer_accept_post, position_report
from guards.models import LimitCount

pytestmark = pytest.mark.django_db


@pytest.fixture
def arrived(django_capture_on_commit_callbacks):
    """A driver at the kerb (arrived) for a booking whose passenger holds code 4821."""
    driver_at(LEEDS)
    booking = BookingFactory(pickup_code="4821")
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    client = driver_client(offer.driver)
    offer_accept_post(client, offer)
    # arriving is judged against the driver's own latest position report (contract 6)
    position_report(offer.driver, lat=booking.pickup_lat, lng=booking.pickup_lng)
    for status in ("en_route", "arrived"):
        assert post_status(client, booking, {"status": status}).status_code == 200
    return client, booking


def post_status(client, booking, body):
    return client.post(
        f"/api/public/v1/driver/jobs/{booking.reference}/status", body, format="json"
    )


def test_the_passengers_code_starts_the_trip(arrived):
    client, booking = arrived
    response = post_status(client, booking, {"status": "on_board", "pickupCode": "4821"})
    assert response.status_code == 200, response.json()
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ON_BOARD


def test_a_wrong_code_is_422_pickup_code_mismatch_and_nothing_moves(arrived):
    client, booking = arrived
    response = post_status(client, booking, {"status": "on_board", "pickupCode": "1234"})
    assert response.status_code == 422
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "pickup_code_mismatch"
    assert "pickupCode" in response.json()["errors"]
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ARRIVED


def test_no_code_is_400_naming_the_field(arrived):
    client, booking = arrived
    response = post_status(client, booking, {"status": "on_board"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_input"
    assert "pickupCode" in response.json()["errors"]


def test_a_booking_without_a_code_starts_without_one(django_capture_on_commit_callbacks):
    driver_at(LEEDS)
    booking = BookingFactory(pickup_code="")
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    client = driver_client(offer.driver)
    offer_accept_post(client, offer)
    position_report(offer.driver, lat=booking.pickup_lat, lng=booking.pickup_lng)
    for status in ("en_route", "arrived", "on_board"):
        response = post_status(client, booking, {"status": status})
        assert response.status_code == 200, response.content
        assert response.json()["status"] == status
        booking.refresh_from_db()
        assert booking.status == status
    # the trip started from the kerb: "arrived" is in the trail (the waiting charge runs
    # from it), just before on board
    trail = list(
        BookingEvent.objects.filter(booking=booking)
        .exclude(to_status="")
        .order_by("sequence")
        .values_list("to_status", flat=True)
    )
    assert trail[-3:] == ["en_route", "arrived", "on_board"]


def test_on_board_straight_from_en_route_is_409_and_nothing_moves(
    django_capture_on_commit_callbacks,
):
    """Issue 37: a driver posting on_board (with or without the code) on an en-route job
    skipped "arrived", the code check and the waiting charge, and got 200."""
    driver_at(LEEDS)
    booking = BookingFactory(pickup_code="4821")
    with django_capture_on_commit_callbacks(execute=True):
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    client = driver_client(offer.driver)
    offer_accept_post(client, offer)
    assert post_status(client, booking, {"status": "en_route"}).status_code == 200
    booking.refresh_from_db()
    sequence = booking.sequence
    for body in ({"status": "on_board"}, {"status": "on_board", "pickupCode": "4821"}):
        response = post_status(client, booking, body)
        assert response.status_code == 409, response.content
        assert response["Content-Type"] == "application/problem+json"
        assert response.json()["code"] == "invalid_transition"
        booking.refresh_from_db()
        assert (booking.status, booking.sequence) == (BookingStatus.EN_ROUTE, sequence)


def test_the_driver_feed_never_shows_the_code(arrived):
    client, booking = arrived
    feed = client.get("/api/public/v1/jobs").content.decode()
    assert booking.reference in feed
    assert "4821" not in feed
    assert "pickupCode" not in feed


def test_after_five_wrong_codes_even_the_right_one_waits(arrived, settings):
    settings.RATELIMITS = {**settings.RATELIMITS, "pickup_code": "5/15m"}
    client, booking = arrived
    for guess in ("0001", "0002", "0003", "0004", "0005"):
        response = post_status(client, booking, {"status": "on_board", "pickupCode": guess})
        assert response.status_code == 422
    # the sixth try is refused whatever it is, so guessing learns nothing more
    response = post_status(client, booking, {"status": "on_board", "pickupCode": "4821"})
    assert response.status_code == 429
    assert response.json()["code"] == "rate_limited"
    assert int(response["Retry-After"]) > 0
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ARRIVED


def test_with_the_cache_down_wrong_codes_still_lock_the_right_one_out(arrived, settings):
    """Issue 35, finding 4: "`limit_spent_refuse` returns when the cache is unreachable.
    Wrong codes get 429, the right code gets 200: an oracle with no limit." The wrong
    codes are counted in the database instead (guards.models.LimitCount)."""
    settings.RATELIMITS = {**settings.RATELIMITS, "pickup_code": "5/15m"}
    client, booking = arrived
    caches_unreachable(settings)
    for guess in ("0001", "0002", "0003", "0004", "0005"):
        response = post_status(client, booking, {"status": "on_board", "pickupCode": guess})
        assert response.status_code == 422, response.content
    assert LimitCount.objects.get(scope="pickup_code").count == 5
    for guess in ("0006", "4821"):  # wrong or right, the answer is the same
        response = post_status(client, booking, {"status": "on_board", "pickupCode": guess})
        assert response.status_code == 429, response.content
        assert response.json()["code"] == "rate_limited"
        assert 0 < int(response["Retry-After"]) <= 900
    booking.refresh_from_db()
    assert booking.status == BookingStatus.ARRIVED
