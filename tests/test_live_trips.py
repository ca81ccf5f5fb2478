"""Live trips (issue 17): the driver app reports the car's position, opted-in senders get
booking.driver_location events with the LATEST position at most every 15 s per booking,
and the tracking page reads the same position (dispatch.locations.booking_live_position).
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import responses
import time_machine
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.concurrency import race
from dispatch.locations import booking_live_position
from drivers.models import Driver, PositionSample
from drivers.positions import Fix, position_latest, position_record, positions_backend
from drivers.tests.factories import UserFactory, driver_at
from partners.models import Account, DriverLocationFeed
from partners.services.driver_locations import driver_locations_claim
from partners.tasks import driver_locations_tick

HOOK = "https://partner.example/hooks/locations"
LOCATION_URL = "/api/public/v1/driver/location"
# About 3 km south-west of the Leeds pickup, then closer.
FAR = (53.775, -1.58)
NEAR = (53.792, -1.552)


@pytest.fixture(autouse=True)
def _cars_move_by_hand(settings):
    # These tests move the car between FAR and NEAR (2.7 km) from one report to the next,
    # often at the same instant: the feed is under test here, not the plausibility of the
    # moves (drivers/tests/test_position_plausibility.py).
    settings.POSITIONS_MAX_PLAUSIBLE_SPEED_KMH = 0


pytestmark = pytest.mark.django_db


def signature_valid(account: Account, headers, body: bytes) -> bool:
    """The official Standard Webhooks library verifies the message with the secret as the
    back office shows it (or its UTF-8 bytes, the older key form)."""
    for key in (account.signing_secret, account.signing_secret.encode()):
        try:
            Webhook(key).verify(body, dict(headers))
            return True
        except (WebhookVerificationError, ValueError, TypeError):
            continue
    return False


@pytest.fixture
def partner(make_account):
    account = make_account("partner", name="Live Co", webhook_url=HOOK)
    Account.objects.filter(pk=account.pk).update(driver_location_events=True)
    account.refresh_from_db()
    return account


@pytest.fixture
def driver():
    return driver_at(FAR, user=UserFactory())


@pytest.fixture
def trip(partner, driver):
    """A job the partner sent, accepted by the driver, pickup at Leeds station."""
    return BookingFactory(
        account=partner,
        job_ref="LIVE-1",
        status=BookingStatus.ACCEPTED,
        driver=driver,
        vehicle=driver.vehicles.first(),
    )


@pytest.fixture
def driver_app(driver):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    return client


def report(client, point, heading=None):
    body = {"lat": point[0], "lng": point[1]}
    if heading is not None:
        body["heading"] = heading
    return client.post(LOCATION_URL, data=json.dumps(body), content_type="application/json")


def reported_by(driver, point) -> None:
    """The driver's device reported ``point`` now (through the position interface)."""
    position_record(
        driver_id=driver.pk,
        fixes=[Fix(lat=point[0], lng=point[1], at=timezone.now())],
        vehicle_classes=["saloon"],
    )


def sent_messages() -> list[dict]:
    return [json.loads(call.request.body) for call in responses.calls]


# --- the driver app reports positions ------------------------------------------------------


def test_a_report_updates_only_the_drivers_live_position(driver_app, driver):
    Driver.objects.filter(pk=driver.pk).update(online=False)

    response = report(driver_app, NEAR, heading=45)

    assert response.status_code == 200, response.content
    assert response.json()["heading"] == 45
    fix = position_latest(driver.pk)
    assert (fix.lat, fix.lng, fix.heading) == (*NEAR, 45)
    assert timezone.now() - fix.at < timedelta(seconds=5)
    driver.refresh_from_db()
    assert driver.online is False  # reporting a position is not going online


def _statements(queries) -> list[str]:
    return [q["sql"].split()[0] for q in queries.captured_queries]


@override_settings(POSITIONS_TOKEN_CACHE_SECONDS=60)
def test_a_report_in_a_sampled_slot_touches_no_database_row_and_sends_nothing(
    driver_app, driver, trip
):
    with responses.RequestsMock() as recorder:
        report(driver_app, NEAR)  # authenticates, samples this slot of the trip's trail
        with CaptureQueriesContext(connection) as queries:
            assert report(driver_app, FAR).status_code == 200
        assert len(recorder.calls) == 0
    if positions_backend().name == "redis":
        # The live position is Redis's alone; the trail already has this 30 s slot.
        assert _statements(queries) == []
    else:
        # Without Redis the driver's row is the store: its UPDATE, then the trail's
        # sample, refused by the (driver, slot) constraint.
        writes = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("UPDATE")]
        assert len(writes) == 1
        assert "drivers_driver" in writes[0]
    assert PositionSample.objects.filter(driver=driver, booking=trip).count() == 1


@override_settings(POSITIONS_TOKEN_CACHE_SECONDS=60)
def test_with_the_token_cache_a_report_reads_no_token_until_the_token_goes(driver_app, driver):
    report(driver_app, NEAR)  # fills the cache
    with CaptureQueriesContext(connection) as queries:
        assert report(driver_app, FAR).status_code == 200
    assert not [q for q in queries.captured_queries if "authtoken_token" in q["sql"]]

    Token.objects.filter(user=driver.user).get().delete()  # revoked in this process

    assert report(driver_app, NEAR).status_code == 401


@pytest.mark.parametrize(
    "body",
    [{"lat": 91, "lng": 0}, {"lat": 53.8}, {"lat": 53.8, "lng": -1.5, "heading": 400}, []],
)
def test_bad_positions_are_400_problems(driver_app, body):
    response = driver_app.post(LOCATION_URL, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"


def test_a_report_needs_a_driver_token():
    response = report(APIClient(), NEAR)
    assert response.status_code == 401


# --- booking.driver_location events ----------------------------------------------------------


@responses.activate
def test_an_opted_in_sender_gets_the_cars_position_signed(driver_app, partner, trip):
    responses.post(HOOK, status=204)
    report(driver_app, FAR, heading=30)

    driver_locations_tick()

    assert len(responses.calls) == 1
    request = responses.calls[0].request
    assert signature_valid(partner, request.headers, request.body)
    message = json.loads(request.body)
    assert message["type"] == "booking.driver_location"
    (location,) = message["data"]["locations"]
    assert location["bookingReference"] == trip.reference
    assert location["jobRef"] == "LIVE-1"
    assert location["status"] == "accepted"
    assert location["sequence"] == trip.sequence
    assert (location["lat"], location["lng"], location["heading"]) == (*FAR, 30)
    assert location["etaTo"] == "pickup"
    assert 3 <= location["etaMinutes"] <= 15  # about 3 km by road in town
    assert location["reportedAt"].endswith("Z")


@responses.activate
def test_at_most_one_event_per_booking_per_interval_and_then_the_latest(driver_app, trip):
    responses.post(HOOK, status=200)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        report(driver_app, FAR)
        driver_locations_tick()
        for seconds, point in ((5, (53.78, -1.57)), (10, NEAR)):
            clock.move_to(start + timedelta(seconds=seconds))
            report(driver_app, point)
            driver_locations_tick()
        assert len(responses.calls) == 1  # 10 s after the first: not yet

        clock.move_to(start + timedelta(seconds=15))
        driver_locations_tick()

    messages = sent_messages()
    assert len(messages) == 2
    latest = messages[1]["data"]["locations"][0]
    assert (latest["lat"], latest["lng"]) == NEAR  # the 5 s position was never sent


@responses.activate
def test_a_car_that_has_not_moved_since_the_last_event_sends_nothing(driver_app, trip):
    responses.post(HOOK, status=200)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        report(driver_app, FAR)
        driver_locations_tick()
        clock.move_to(start + timedelta(seconds=30))
        driver_locations_tick()
    assert len(responses.calls) == 1


@responses.activate
def test_a_receiver_that_was_down_gets_where_the_car_is_now_not_the_backlog(driver_app, trip):
    down = responses.post(HOOK, status=503)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        report(driver_app, FAR)
        driver_locations_tick()  # fails: not retried with this position
        for seconds in (5, 10, 14):
            clock.move_to(start + timedelta(seconds=seconds))
            report(driver_app, (53.78 + seconds / 10000, -1.57))
            driver_locations_tick()
        assert down.call_count == 1

        responses.replace(responses.POST, HOOK, status=200)
        clock.move_to(start + timedelta(seconds=20))
        report(driver_app, NEAR)
        driver_locations_tick()

    messages = sent_messages()
    assert len(messages) == 2
    (now_location,) = messages[1]["data"]["locations"]
    assert (now_location["lat"], now_location["lng"]) == NEAR
    feed = DriverLocationFeed.objects.get(booking=trip)
    assert (feed.failures, feed.events_sent) == (1, 1)


@responses.activate
def test_one_message_per_account_carries_all_its_live_trips(driver_app, partner, trip):
    responses.post(HOOK, status=200)
    other_driver = driver_at(NEAR)
    other = BookingFactory(
        account=partner, job_ref="LIVE-2", status=BookingStatus.EN_ROUTE, driver=other_driver
    )
    reported_by(other_driver, NEAR)
    report(driver_app, FAR)

    driver_locations_tick()

    (message,) = sent_messages()
    assert {loc["bookingReference"] for loc in message["data"]["locations"]} == {
        trip.reference,
        other.reference,
    }


@responses.activate
@pytest.mark.parametrize(
    ("status", "until_completed", "sent"),
    [
        (BookingStatus.OFFERED, False, False),
        (BookingStatus.ARRIVED, False, True),
        (BookingStatus.ON_BOARD, False, False),
        (BookingStatus.ON_BOARD, True, True),
        (BookingStatus.COMPLETED, True, False),
    ],
)
def test_events_run_from_accepted_until_on_board_or_completed_if_asked(
    driver_app, partner, trip, status, until_completed, sent
):
    responses.post(HOOK, status=200)
    Account.objects.filter(pk=partner.pk).update(driver_location_until_completed=until_completed)
    type(trip).objects.filter(pk=trip.pk).update(status=status)
    report(driver_app, NEAR)

    driver_locations_tick()

    assert len(responses.calls) == (1 if sent else 0)
    if sent and status == BookingStatus.ON_BOARD:
        location = sent_messages()[0]["data"]["locations"][0]
        assert location["etaTo"] == "dropoff"


@responses.activate
def test_an_account_that_did_not_opt_in_gets_no_positions(driver_app, partner, trip):
    responses.post(HOOK, status=200)
    Account.objects.filter(pk=partner.pk).update(driver_location_events=False)
    report(driver_app, NEAR)

    driver_locations_tick()

    assert len(responses.calls) == 0


@responses.activate
def test_410_disables_the_endpoint(driver_app, partner, trip):
    responses.post(HOOK, status=410)
    report(driver_app, NEAR)

    driver_locations_tick()

    partner.refresh_from_db()
    assert partner.webhook_disabled_at is not None


@pytest.mark.django_db(transaction=True)
def test_concurrent_ticks_claim_each_booking_once(driver_app, trip):
    report(driver_app, NEAR)
    others = []
    for index in range(5):
        car = driver_at(NEAR)
        reported_by(car, NEAR)
        others.append(
            BookingFactory(
                account=trip.account,
                job_ref=f"LIVE-R{index}",
                status=BookingStatus.ACCEPTED,
                driver=car,
            )
        )

    claims = race(*[driver_locations_claim for _ in range(4)])

    claimed = [booking_id for claim in claims for ids in claim.values() for booking_id in ids]
    assert sorted(claimed) == sorted([trip.pk, *(b.pk for b in others)])


# --- the tracking page's live data -------------------------------------------------------


def test_live_position_for_the_tracking_page(driver_app, trip):
    assert booking_live_position(trip) is None  # no position reported yet

    report(driver_app, NEAR, heading=90)
    trip.refresh_from_db()
    position = booking_live_position(trip)

    assert position["lat"] == NEAR[0]
    assert position["heading"] == 90
    assert position["etaTo"] == "pickup"
    assert position["etaMinutes"] >= 1
    assert position["reportedAt"].endswith("Z")


def test_no_live_position_before_acceptance_after_completion_or_when_stale(driver_app, trip):
    report(driver_app, NEAR)
    trip.refresh_from_db()
    for status in (BookingStatus.OFFERED, BookingStatus.COMPLETED):
        trip.status = status
        assert booking_live_position(trip) is None
    trip.status = BookingStatus.ARRIVED
    assert booking_live_position(trip)["etaMinutes"] == 0
    later = timezone.now() + timedelta(minutes=10)
    assert booking_live_position(trip, now=later) is None


def test_the_tracking_page_follows_the_car_between_events(driver_app, trip, client):
    from django.urls import reverse

    from bookings.links import booking_page_token

    args = (trip.reference, booking_page_token(trip.reference))
    live_url = reverse("booking-status-json", args=args)
    before = client.get(live_url).json()
    assert before["driverPosition"] is None
    assert before["map"]["driver"] is None

    report(driver_app, NEAR)
    after = client.get(live_url).json()

    assert after["version"] == before["version"]  # no booking event: only the car moved
    assert after["map"]["driver"] == [NEAR[0], NEAR[1]]
    assert after["driverPosition"]["words"].startswith("Your driver is about ")
    page = client.get(reverse("booking-status-page", args=args)).content.decode()
    assert after["driverPosition"]["words"] in page
