"""Airport pickups follow their flight (issue 15): dispatch.services.flights, the AeroDataBox
exchange (recorded with ``responses``), the poll, and the messages to driver and passenger."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import responses
import time_machine
from django.core import mail

from bookings.models import BookingEvent, BookingStatus, FlightArrival, FlightStatus
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from dispatch import notifications
from dispatch.airports import airport_get
from dispatch.flight_status import FlightReport, flight_status_fetch
from dispatch.models import NotificationLog
from dispatch.services import job_cards, offers
from dispatch.services.flights import flight_update_apply, flights_poll
from dispatch.services.waiting import waiting_terms
from dispatch.tests.twilio_recorder import RecordingTwilioHttpClient
from drivers.tests.factories import driver_at

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 11, 23, 8, 0, tzinfo=dt.UTC)
SCHEDULED = dt.datetime(2026, 11, 23, 10, 0, tzinfo=dt.UTC)
LBA = airport_get("LBA")


@pytest.fixture(autouse=True)
def _now():
    with time_machine.travel(NOW, tick=False):
        yield


def airport_booking(**fields):
    """A pickup at Leeds Bradford for flight BA1234, booked for its scheduled landing."""
    values = {
        "pickup": "Leeds Bradford Airport",
        "pickup_lat": LBA.lat,
        "pickup_lng": LBA.lng,
        "flight_number": "BA1234",
        "pickup_time": SCHEDULED,
        "passenger_email": "grace@example.co.uk",
    }
    return BookingFactory(**{**values, **fields})


def delayed(minutes: int, **fields) -> FlightReport:
    values = {
        "flight_number": "BA1234",
        "status": FlightStatus.DELAYED,
        "scheduled_arrival": SCHEDULED,
        "estimated_arrival": SCHEDULED + dt.timedelta(minutes=minutes),
        "terminal": "1",
    }
    return FlightReport(**{**values, **fields})


@pytest.fixture
def twilio(settings, monkeypatch):
    settings.NOTIFICATION_BACKEND = "twilio"
    settings.TWILIO_ACCOUNT_SID = "AC" + "1" * 32
    settings.TWILIO_AUTH_TOKEN = "token"
    settings.TWILIO_SMS_FROM = "+447700900999"
    recorder = RecordingTwilioHttpClient()
    monkeypatch.setattr(notifications, "twilio_http_client", lambda: recorder)
    return recorder


def test_a_delayed_landing_moves_the_pickup_and_the_free_waiting(settings):
    settings.AIRPORT_COLLECTION_ALLOWANCE_MINUTES = {"domestic": 30, "international": 45}
    settings.AIRPORT_FREE_WAITING_MINUTES = 60
    booking = airport_booking()
    before = waiting_terms(booking)

    update = flight_update_apply(booking=booking, report=delayed(50), actor="test")

    landing = SCHEDULED + dt.timedelta(minutes=50)
    # the pickup is the landing plus the (international: origin unknown) allowance
    assert update.booking.pickup_time == landing + dt.timedelta(minutes=45)
    assert update.moved
    assert update.previous_pickup_time == SCHEDULED
    # and the free waiting now counts from the landing, 50 minutes later than before
    after = waiting_terms(update.booking)
    assert after.from_landing
    assert after.starts_at == landing
    assert after.free_until == landing + dt.timedelta(minutes=60)
    assert after.free_until > before.free_until
    # the flight is kept, with the pickup as booked
    arrival = FlightArrival.objects.get(booking=booking)
    assert (arrival.terminal, arrival.status, arrival.booked_pickup_time) == (
        "1",
        FlightStatus.DELAYED,
        SCHEDULED,
    )
    # and the booking's event log says why the pickup moved
    event = BookingEvent.objects.filter(booking=booking).latest("sequence")
    assert event.type == "booking.amended"
    assert event.detail["fields"] == ["pickup_time"]
    assert event.detail["flight"]["landingAt"] == landing.isoformat()
    assert event.detail["flight"]["previousPickupTime"] == SCHEDULED.isoformat()


def test_a_domestic_flight_gets_the_domestic_allowance(settings):
    settings.AIRPORT_COLLECTION_ALLOWANCE_MINUTES = {"domestic": 30, "international": 45}
    booking = airport_booking()
    update = flight_update_apply(
        booking=booking, report=delayed(10, origin_country="GB"), actor="test"
    )
    assert update.booking.pickup_time == SCHEDULED + dt.timedelta(minutes=40)


def test_a_repeated_report_changes_nothing():
    booking = airport_booking()
    flight_update_apply(booking=booking, report=delayed(50), actor="test")
    events = BookingEvent.objects.filter(booking=booking).count()
    again = flight_update_apply(booking=booking, report=delayed(50), actor="test")
    assert (again.changed, again.moved) == (False, False)
    assert BookingEvent.objects.filter(booking=booking).count() == events


def test_a_cancelled_flight_is_recorded_and_moves_nothing():
    booking = airport_booking()
    update = flight_update_apply(
        booking=booking,
        report=FlightReport(flight_number="BA1234", status=FlightStatus.CANCELLED),
        actor="test",
    )
    assert update.booking.pickup_time == SCHEDULED
    assert FlightArrival.objects.get(booking=booking).status == FlightStatus.CANCELLED


def test_a_pickup_that_is_not_at_an_airport_is_refused():
    booking = BookingFactory(flight_number="BA1234")  # Leeds station
    with pytest.raises(DomainError) as refused:
        flight_update_apply(booking=booking, report=delayed(50), actor="test")
    assert refused.value.code == "not_airport_pickup"


def test_another_flight_is_refused_naming_the_field():
    booking = airport_booking()
    with pytest.raises(DomainError) as refused:
        flight_update_apply(booking=booking, report=delayed(5, flight_number="EZY12"), actor="t")
    assert refused.value.code == "invalid_input"
    assert "flightNumber" in refused.value.errors


def test_once_on_board_the_flight_no_longer_moves_the_pickup():
    booking = airport_booking(status=BookingStatus.ON_BOARD)
    with pytest.raises(DomainError) as refused:
        flight_update_apply(booking=booking, report=delayed(50), actor="test")
    assert refused.value.code == "flight_update_closed"


def test_the_driver_is_texted_and_the_passenger_emailed_when_the_pickup_moves(
    twilio, django_capture_on_commit_callbacks
):
    driver = driver_at((LBA.lat, LBA.lng), phone="+447700900321")
    booking = airport_booking(status=BookingStatus.ACCEPTED, driver=driver)

    with django_capture_on_commit_callbacks(execute=True):
        flight_update_apply(booking=booking, report=delayed(50), actor="test")

    # the real Twilio client posted one SMS to the driver
    assert len(twilio.requests) == 1
    sms = twilio.requests[0]["data"]
    assert sms["To"] == "+447700900321"
    assert booking.reference in sms["Body"]
    assert "terminal 1" in sms["Body"]
    assert "11:35" in sms["Body"]  # 10:50 landing + 45 min, UK time = UTC in November
    assert NotificationLog.objects.get(booking=booking).status == "sent"
    # and the passenger got an email with the new time
    [email] = mail.outbox
    assert email.to == ["grace@example.co.uk"]
    assert "11:35" in email.body


def test_nobody_is_told_when_nothing_moved(twilio, django_capture_on_commit_callbacks):
    driver = driver_at((LBA.lat, LBA.lng), phone="+447700900321")
    booking = airport_booking(status=BookingStatus.ACCEPTED, driver=driver)
    report = FlightReport(flight_number="BA1234", status=FlightStatus.CANCELLED)
    with django_capture_on_commit_callbacks(execute=True):
        flight_update_apply(booking=booking, report=report, actor="test")
    assert twilio.requests == []
    assert mail.outbox == []


def test_the_job_card_carries_the_terminal_and_the_meeting_point(
    django_capture_on_commit_callbacks,
):
    booking = airport_booking()
    booking = flight_update_apply(booking=booking, report=delayed(50), actor="test").booking
    # Dispatch starts when the (moved) pickup's window opens, to a driver online then.
    with (
        time_machine.travel(booking.dispatch_opens_at, tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        driver_at((LBA.lat, LBA.lng))
        offer = offers.booking_dispatch_next(booking_id=booking.pk)
    body = job_cards.job_card_body(offer=offer)
    assert "Flight BA1234, terminal 1, lands 10:50." in body
    assert f"Meet: {LBA.meeting_point}" in body
    assert "baggage reclaim" in LBA.meeting_point  # the airport's own text, from the data file


# --- the provider: AeroDataBox, its HTTP exchange recorded ------------------------------

AERODATABOX_FLIGHT = [
    {
        "number": "BA 1234",
        "status": "Arrived",
        "codeshareStatus": "IsOperator",
        "isCargo": False,
        "departure": {
            "airport": {"icao": "LFPG", "iata": "CDG", "name": "Paris", "countryCode": "FR"},
            "scheduledTime": {"utc": "2026-11-23 08:50Z", "local": "2026-11-23 09:50+01:00"},
        },
        "arrival": {
            "airport": {"icao": "EGNM", "iata": "LBA", "name": "Leeds", "countryCode": "GB"},
            "scheduledTime": {"utc": "2026-11-23 10:00Z", "local": "2026-11-23 10:00+00:00"},
            "revisedTime": {"utc": "2026-11-23 10:52Z", "local": "2026-11-23 10:52+00:00"},
            "runwayTime": {"utc": "2026-11-23 10:48Z", "local": "2026-11-23 10:48+00:00"},
            "terminal": "Main",
            "quality": ["Basic", "Live"],
        },
    }
]


@pytest.fixture
def provider(settings):
    settings.AERODATABOX_API_KEY = "rapid-key"
    settings.AERODATABOX_BASE_URL = "https://aerodatabox.p.rapidapi.com"
    with responses.RequestsMock() as recorded:
        yield recorded


def test_the_provider_is_asked_as_its_api_documents(provider):
    provider.get(
        "https://aerodatabox.p.rapidapi.com/flights/number/BA1234/2026-11-23",
        json=AERODATABOX_FLIGHT,
    )
    report = flight_status_fetch(
        flight_number="BA1234", arrival_date=dt.date(2026, 11, 23), airport="LBA"
    )
    [call] = provider.calls
    assert call.request.headers["X-RapidAPI-Key"] == "rapid-key"
    assert call.request.headers["X-RapidAPI-Host"] == "aerodatabox.p.rapidapi.com"
    assert "dateLocalRole=Arrival" in call.request.url
    assert report.status == FlightStatus.LANDED
    assert report.actual_arrival == dt.datetime(2026, 11, 23, 10, 48, tzinfo=dt.UTC)
    assert report.estimated_arrival == dt.datetime(2026, 11, 23, 10, 52, tzinfo=dt.UTC)
    assert (report.terminal, report.origin_country) == ("Main", "FR")


def test_the_poll_moves_upcoming_airport_pickups_to_the_actual_landing(provider):
    booking = airport_booking()
    BookingFactory(flight_number="LS99")  # not at an airport: never asked about
    provider.get(
        "https://aerodatabox.p.rapidapi.com/flights/number/BA1234/2026-11-23",
        json=AERODATABOX_FLIGHT,
    )
    assert flights_poll() == 1
    booking.refresh_from_db()
    assert booking.pickup_time == dt.datetime(2026, 11, 23, 11, 33, tzinfo=dt.UTC)  # +45
    arrival = FlightArrival.objects.get(booking=booking)
    assert arrival.landed
    assert arrival.terminal == "Main"
    assert BookingEvent.objects.filter(booking=booking, actor="flights:poll").exists()
    # a landed flight is not asked about again
    assert flights_poll() == 0
    assert len(provider.calls) == 1


def test_a_flight_the_provider_does_not_know_changes_nothing(provider):
    booking = airport_booking()
    provider.get("https://aerodatabox.p.rapidapi.com/flights/number/BA1234/2026-11-23", status=204)
    assert flights_poll() == 0
    booking.refresh_from_db()
    assert booking.pickup_time == SCHEDULED


def test_a_provider_failure_waits_for_the_next_poll(provider):
    airport_booking()
    provider.get(
        "https://aerodatabox.p.rapidapi.com/flights/number/BA1234/2026-11-23",
        status=503,
        body=json.dumps({"message": "down"}),
    )
    assert flights_poll() == 0
    assert not FlightArrival.objects.exists()


def test_without_a_key_the_poll_asks_nobody(settings):
    settings.AERODATABOX_API_KEY = ""
    airport_booking()
    with responses.RequestsMock():  # any request would fail the test
        assert flights_poll() == 0


def test_the_drivers_feed_carries_the_flight_terminal_and_meeting_point(
    django_assert_max_num_queries,
):
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from drivers.tests.factories import UserFactory

    driver = driver_at((LBA.lat, LBA.lng), user=UserFactory())
    booking = airport_booking(status=BookingStatus.ACCEPTED, driver=driver)
    flight_update_apply(booking=booking, report=delayed(50), actor="test")
    airport_booking(status=BookingStatus.ACCEPTED, driver=driver, flight_number="EZY12")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")

    with django_assert_max_num_queries(8):
        response = client.get("/api/public/v1/jobs")

    assert response.status_code == 200, response.content
    # soonest pickup first: EZY12 at 10:00, then BA1234 moved to 11:35
    other, moved = response.json()["results"]
    assert moved["airportPickup"] == {
        "airport": "LBA",
        "airportName": LBA.name,
        "meetingPoint": LBA.meeting_point,
        "flightNumber": "BA1234",
        "flightStatus": "delayed",
        "terminal": "1",
        "landingAt": "2026-11-23T10:50:00Z",
        "landed": False,
    }
    assert other["airportPickup"]["flightStatus"] is None
