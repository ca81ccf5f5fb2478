"""A cancellation from any door reaches the driver at once (contract 3.1, issue 34): the
driver who holds the job, or whose offer is open, gets a cancellation on the job card's
channels (SMS and WhatsApp through the real Twilio client, its HTTP recorded) and sees
it in the app's feed (``cancelled``), the job gone from the list in hand. The doors: the
API, the website (tracking page / email link), MCP's cancel tool, a partner's intake, an
operator's bridge, the back office."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from rest_framework.test import APIClient

from bookings import actions
from bookings.links import booking_page_token
from bookings.models import Booking, BookingStatus
from bookings.tests.factories import BookingFactory
from core.callers import Caller
from core.testing.places import LEEDS
from dispatch import notifications
from dispatch.models import NotificationKind, NotificationLog, Offer, OfferStatus
from dispatch.services import offers
from dispatch.tests.twilio_recorder import RecordingTwilioHttpClient
from drivers.tests.factories import driver_at, driver_client

pytestmark = pytest.mark.django_db

EMAIL = "grace.hopper@example.co.uk"
DRIVER_PHONE = "+447700900321"


@pytest.fixture
def twilio(settings, monkeypatch):
    settings.NOTIFICATION_BACKEND = "twilio"
    settings.TWILIO_ACCOUNT_SID = "AC" + "1" * 32
    settings.TWILIO_AUTH_TOKEN = "token"
    settings.TWILIO_SMS_FROM = "+447700900999"
    settings.TWILIO_WHATSAPP_FROM = "+14155238886"
    recorder = RecordingTwilioHttpClient()
    monkeypatch.setattr(notifications, "twilio_http_client", lambda: recorder)
    return recorder


def _booking(**fields) -> Booking:
    values = {"passenger_email": EMAIL, "pickup": "Leeds station", "dropoff": "York"}
    return BookingFactory(**(values | fields))


def _offered(run, booking: Booking):
    driver = driver_at(LEEDS, phone=DRIVER_PHONE)
    offer = run(offers.booking_dispatch_next, booking_id=booking.pk)
    assert offer.driver == driver
    return driver


def _assigned(run, booking: Booking):
    driver = driver_at(LEEDS, phone=DRIVER_PHONE)
    run(offers.booking_assign_manual, booking_id=booking.pk, driver=driver, actor="desk")
    return driver


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    def call(step, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return step(**kwargs)

    return call


# --- the doors: each cancels ``booking`` its own way -----------------------------------


def _api(booking, make_account, client):
    response = APIClient().post(
        f"/api/public/v1/booking/{booking.reference}",
        {"action": "cancel", "email": EMAIL, "reason": "Plans changed"},
        format="json",
    )
    assert response.status_code == 200, response.content


def _website(booking, make_account, client):
    token = booking_page_token(booking.reference)
    page = client.post(f"/booking/{booking.reference}/{token}/cancel/", {"reason": "Plans changed"})
    assert page.status_code == 302


def _mcp(booking, make_account, client):
    # What the MCP tool cancel_booking calls, as the agent signed in for the passenger.
    caller = Caller(ip="127.0.0.1", source="agent", agent="Claude", passenger_email=EMAIL)
    actions.booking_cancel_for_passenger(
        caller=caller, reference=booking.reference, email=EMAIL, reason="Plans changed"
    )


def _partner(booking, make_account, client):
    partner = booking.account
    keyed = APIClient()
    keyed.credentials(HTTP_AUTHORIZATION=f"Bearer {partner.raw_key}")
    response = keyed.post(
        "/api/public/v1/jobs",
        data=json.dumps({"jobRef": booking.job_ref, "action": "cancel"}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["results"][0]["outcome"] == "cancelled"


def _operator(booking, make_account, client):
    keyed = APIClient()
    keyed.credentials(HTTP_AUTHORIZATION=f"Bearer {booking.account.raw_key}")
    response = keyed.post(
        "/api/public/v1/operator/jobs",
        data=json.dumps({"jobRef": booking.job_ref, "action": "cancel"}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content


def _admin(booking, make_account, client):
    staff = get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "pw")
    client.force_login(staff)
    client.post(
        "/admin/bookings/booking/",
        {
            "action": "status_change",
            "_selected_action": [booking.pk],
            "apply": "1",
            "to_status": "cancelled",
            "reason": "Plans changed",
        },
    )


DOORS = {
    "api": (_api, None),
    "website": (_website, None),
    "mcp": (_mcp, None),
    "partner": (_partner, "partner"),
    "operator": (_operator, "operator"),
    "admin": (_admin, None),
}


@pytest.mark.parametrize("held", ["offered", "assigned"])
@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_cancellation_from_every_door_reaches_the_driver(
    door, held, run, twilio, make_account, client
):
    cancel, kind = DOORS[door]
    fields = {}
    if kind is not None:
        account = make_account(kind, name=f"Door {kind}", approved=True)
        fields = {"account": account, "job_ref": "J-1", "source": kind}
    booking = _booking(**fields)
    if kind is not None:
        booking.account.raw_key = account.raw_key
    driver = (_offered if held == "offered" else _assigned)(run, booking)
    sent_before = len(twilio.requests)

    run(cancel, booking=booking, make_account=make_account, client=client)

    booking.refresh_from_db()
    assert booking.status == BookingStatus.CANCELLED
    # the driver is told on both of the job card's channels, through Twilio
    told = twilio.requests[sent_before:]
    assert sorted(r["data"]["To"] for r in told) == [DRIVER_PHONE, f"whatsapp:{DRIVER_PHONE}"]
    assert all(f"CANCELLED: job {booking.reference}" in r["data"]["Body"] for r in told)
    logs = NotificationLog.objects.filter(booking=booking, kind=NotificationKind.CANCELLATION)
    assert sorted(logs.values_list("channel", "status")) == [("sms", "sent"), ("whatsapp", "sent")]
    # and the app shows it cancelled, no longer in hand or on offer
    feed = driver_client(driver).get("/api/public/v1/jobs").json()
    assert [c["bookingReference"] for c in feed["cancelled"]] == [booking.reference]
    assert booking.reference not in [i["bookingReference"] for i in feed["results"]]
    assert not Offer.objects.filter(booking=booking, status=OfferStatus.OPEN).exists()
    driver.refresh_from_db()
    assert driver.current_jobs == 0


def test_the_driver_is_told_once_however_often_it_is_cancelled(run, twilio, client):
    booking = _booking()
    _assigned(run, booking)
    before = len(twilio.requests)
    run(_api, booking=booking, make_account=None, client=client)
    run(_api, booking=booking, make_account=None, client=client)
    run(offers.booking_dispatch_stop, booking_id=booking.pk)
    assert len(twilio.requests) - before == 2


def test_a_completed_trip_tells_nobody_of_a_cancellation(run, twilio, client):
    booking = _booking()
    _assigned(run, booking)
    before = len(twilio.requests)
    Booking.objects.filter(pk=booking.pk).update(status=BookingStatus.COMPLETED)
    run(offers.booking_dispatch_stop, booking_id=booking.pk)
    assert len(twilio.requests) == before


def test_the_passenger_cancels_from_the_email_link_and_sees_the_outcome(
    run, client, django_capture_on_commit_callbacks
):
    booking = _booking()
    token = booking_page_token(booking.reference)
    status_page = client.get(f"/booking/{booking.reference}/{token}/").content.decode()
    assert f"/booking/{booking.reference}/{token}/cancel/" in status_page
    # the confirm page asks first: a GET changes nothing
    assert client.get(f"/booking/{booking.reference}/{token}/cancel/").status_code == 200
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.CONFIRMED
    page = client.post(f"/booking/{booking.reference}/{token}/cancel/", follow=True)
    html = page.content.decode()
    assert 'data-status="cancelled"' in html
    assert 'id="cancel-line" hidden' in html


def test_the_cancel_page_refuses_once_on_board_with_the_apis_status(client):
    booking = _booking(status=BookingStatus.ON_BOARD)
    token = booking_page_token(booking.reference)
    page = client.post(f"/booking/{booking.reference}/{token}/cancel/")
    assert page.status_code == 409
    assert "can no longer be cancelled" in page.content.decode()
    assert Booking.objects.get(pk=booking.pk).status == BookingStatus.ON_BOARD
    # a wrong token opens nothing
    assert client.post(f"/booking/{booking.reference}/wrong/cancel/").status_code == 404


def test_the_booking_email_carries_the_cancel_link(tariffs, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    with django_capture_on_commit_callbacks(execute=True):
        response = APIClient().post(
            "/api/public/v1/booking",
            {
                "pickup": "Leeds station",
                "dropoff": "York",
                "departAt": (timezone.now() + timedelta(hours=3)).isoformat(),
                "passengerName": "Grace Hopper",
                "passengerEmail": EMAIL,
                "passengerPhone": "+447700900321",
            },
            format="json",
        )
    reference = response.json()["bookingReference"]
    token = booking_page_token(reference)
    assert f"/booking/{reference}/{token}/cancel/" in mail.outbox[-1].body
