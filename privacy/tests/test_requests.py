"""A passenger's and a driver's requests (contract 11), and the record of who looked."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
import time_machine
from dateutil.relativedelta import relativedelta
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.utils import timezone

from bookings.models import Passenger
from bookings.tests.factories import BookingFactory, PassengerFactory
from core.testing.places import LEEDS
from drivers.tests.factories import DriverFactory, UserFactory
from partners.models import SupportRequest
from partners.tests.factories import AccountFactory
from privacy.models import DataRequest, Hold, HoldReason, StaffView

pytestmark = pytest.mark.django_db

EMAIL = "jo.bloggs@example.co.uk"


@pytest.fixture
def ask(client, django_capture_on_commit_callbacks):
    """Ask from /privacy/; the link is emailed once the request's row commits."""

    def post(kind: str, email: str = EMAIL):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/privacy/", {"email": email, "kind": kind})
        assert response.status_code == 302
        return response

    return post


def _link() -> str:
    return re.search(r"http\S+/privacy/requests/\S+/", mail.outbox[-1].body).group(0)


def test_the_notice_reads_the_schedule_and_every_page_links_to_it(client, settings):
    notice = client.get("/privacy/").content.decode()
    assert "Drivers&#x27; position trails" in notice or "Drivers' position trails" in notice
    assert f"{settings.PRIVACY_POSITION_TRAIL_DAYS} days" in notice
    assert "Twilio" in notice or "console" in notice
    assert 'href="/privacy/"' in client.get("/").content.decode()
    # every cookie the website sets is named, with why
    landing = client.post("/", {"pickup": "Leeds station", "dropoff": "York", "passengers": 1})
    assert settings.QUOTE_BROWSER_COOKIE in landing.cookies
    for name in landing.cookies:
        assert name in notice, name


def test_the_first_answer_says_nothing_about_the_address(client, ask):
    BookingFactory(passenger_email=EMAIL)
    with_bookings = ask("access")
    without = ask("access", "nobody@example.co.uk")
    assert with_bookings["Location"] == without["Location"]
    page = client.get(with_bookings["Location"]).content.decode()
    assert "booking" not in page.lower()
    assert len(mail.outbox) == 2
    assert "privacy" in mail.outbox[0].body


def test_an_access_request_gives_the_data_as_a_page_and_as_json(client, ask):
    booking = BookingFactory(passenger_email=EMAIL)
    PassengerFactory(email=EMAIL)
    ask("access")
    link = _link()
    page = client.get(link)
    assert page.status_code == 200
    assert booking.reference not in page.content.decode()
    shown = client.post(link).content.decode()
    assert booking.reference in shown
    assert "Jo Bloggs" in shown
    download = client.get(link + "data.json")
    assert download["Content-Disposition"].startswith("attachment")
    data = json.loads(download.content)
    assert data["bookings"][0]["reference"] == booking.reference
    assert data["bookings"][0]["supportRequests"] == []
    assert data["passenger"]["email"] == EMAIL
    assert DataRequest.objects.get().completed_at is not None


def test_erasure_erases_what_it_may_and_says_what_is_kept_why_and_until_when(client, ask):
    now = timezone.now()
    old = BookingFactory(
        passenger_email=EMAIL, pickup_time=now - relativedelta(months=13), status="completed"
    )
    recent = BookingFactory(passenger_email=EMAIL, pickup_time=now - dt.timedelta(days=3))
    held = BookingFactory(passenger_email=EMAIL, pickup_time=now - relativedelta(months=14))
    Hold.objects.create(booking=held, reason=HoldReason.COMPLAINT)
    PassengerFactory(email=EMAIL)
    ask("erasure")
    page = client.post(_link()).content.decode()
    old.refresh_from_db(), recent.refresh_from_db(), held.refresh_from_db()
    assert old.passenger_email == ""
    assert old.passenger_name == ""
    assert recent.passenger_email == EMAIL
    assert held.passenger_email == EMAIL
    assert f"Booking {recent.reference}" in page
    assert "licensing authority" in page
    assert f"Booking {held.reference}" in page
    assert "A complaint is open" in page
    kept_until = (recent.pickup_time + relativedelta(months=12)).astimezone(dt.UTC)
    outcome = DataRequest.objects.get().outcome
    assert any(k["until"] == kept_until.isoformat() for k in outcome["kept"])
    assert Passenger.objects.filter(email=EMAIL).exists()  # kept with its bookings


def test_a_partners_support_request_is_in_the_copy_and_goes_with_the_erasure(client, ask):
    old = BookingFactory(
        passenger_email=EMAIL,
        pickup_time=timezone.now() - relativedelta(months=13),
        status="completed",
    )
    SupportRequest.objects.create(
        account=AccountFactory(),
        booking=old,
        support_type="LOST_ITEM",
        comment="Jo left a phone on the back seat",
        request={},
    )
    ask("access")
    link = _link()
    client.post(link)
    data = json.loads(client.get(link + "data.json").content)
    assert data["bookings"][0]["supportRequests"][0]["comment"] == (
        "Jo left a phone on the back seat"
    )
    ask("erasure")
    client.post(_link())
    assert not SupportRequest.objects.filter(booking=old).exists()


def test_an_erasure_with_nothing_kept_removes_the_passenger(client, ask):
    PassengerFactory(email=EMAIL)
    ask("erasure")
    client.post(_link())
    assert not Passenger.objects.filter(email=EMAIL).exists()


def test_links_expire_and_a_wrong_token_opens_nothing(client, ask, settings):
    ask("access")
    link = _link()
    assert client.get("/privacy/requests/not-a-token/").status_code == 404
    with time_machine.travel(
        timezone.now() + dt.timedelta(hours=settings.PRIVACY_REQUEST_LINK_HOURS + 1)
    ):
        assert client.get(link).status_code == 410
        assert client.post(link).status_code == 410


def test_links_a_day_to_one_address_are_capped(client, ask, settings):
    for _ in range(settings.PRIVACY_REQUESTS_PER_EMAIL_PER_DAY + 2):
        ask("access")
    assert len(mail.outbox) == settings.PRIVACY_REQUESTS_PER_EMAIL_PER_DAY


def test_spellings_of_one_gmail_address_share_its_cap(client, ask, settings):
    """Issue 35: "Limits per email ignore plus-tags and dots (`user+N@gmail.com`)"."""
    spellings = ["jo.bloggs@gmail.com", "Jo.Bloggs+1@gmail.com", "jobloggs+2@googlemail.com"]
    for n in range(settings.PRIVACY_REQUESTS_PER_EMAIL_PER_DAY + 2):
        ask("access", email=spellings[n % len(spellings)])
    assert len(mail.outbox) == settings.PRIVACY_REQUESTS_PER_EMAIL_PER_DAY
    # another mailbox at the same provider is not capped by them
    ask("access", email="jo.bloggs2@gmail.com")
    assert mail.outbox[-1].to == ["jo.bloggs2@gmail.com"]


def test_a_driver_downloads_their_data_and_asks_staff(client):
    driver = DriverFactory(user=UserFactory())
    BookingFactory(driver=driver, pickup_lat=LEEDS[0], pickup_lng=LEEDS[1])
    client.force_login(driver.user)
    data = json.loads(client.get("/driver/privacy/?download=1").content)
    assert data["driver"]["licenceNumber"] == driver.licence_number
    assert len(data["jobs"]) == 1
    page = client.post("/driver/privacy/", {"kind": "erasure"}).content.decode()
    assert "Staff answer it by" in page
    request = DataRequest.objects.get()
    assert (request.subject, request.driver, request.kind) == ("driver", driver, "erasure")


def test_a_passenger_cannot_open_the_driver_page(client):
    client.force_login(get_user_model().objects.create_user("someone", password="x"))
    assert client.get("/driver/privacy/").status_code == 404


def test_staff_views_are_recorded_and_nobody_can_edit_the_record(client):
    booking = BookingFactory()
    viewer = get_user_model().objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(
        Permission.objects.get(codename="view_booking"),
        Permission.objects.get(codename="view_staffview"),
    )
    client.force_login(viewer)
    assert client.get(f"/admin/bookings/booking/{booking.pk}/change/").status_code == 200
    assert client.get("/admin/bookings/booking/?q=07700900123").status_code == 200
    assert client.get("/admin/bookings/booking/").status_code == 200  # no search: not logged
    views = list(
        StaffView.objects.order_by("id").values_list("username", "model", "object_id", "search")
    )
    assert views == [
        ("viewer", "bookings.booking", str(booking.pk), ""),
        ("viewer", "bookings.booking", "", "07700900123"),
    ]
    record = StaffView.objects.first()
    assert client.get(f"/admin/privacy/staffview/{record.pk}/change/").status_code == 200
    response = client.post(f"/admin/privacy/staffview/{record.pk}/change/", {"username": "x"})
    assert response.status_code == 403
    assert (
        client.post(f"/admin/privacy/staffview/{record.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    assert StaffView.objects.get(pk=record.pk).username == "viewer"
