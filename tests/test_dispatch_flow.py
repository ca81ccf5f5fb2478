"""Cross-app flow: booking engine -> dispatch -> driver app -> settlement -> dashboard."""

from __future__ import annotations

import datetime as dt
from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bookings.models import BookingStatus
from bookings.services import BookingDraft, PassengerDetails, booking_create
from core.testing.places import LEEDS, north_of
from dispatch.models import NotificationLog, Offer, OfferStatus
from dispatch.selectors import driver_dashboard
from drivers.tests.factories import UserFactory, driver_at

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _dispatch_urls(settings):
    settings.ROOT_URLCONF = "dispatch.tests.urls"


def create_booking(queue="network"):
    from pricing.services import quote_price

    # Within its dispatch window (30 minutes plus the journey's own time before pickup),
    # so dispatch starts at once.
    depart = timezone.now() + timedelta(minutes=45)
    priced = quote_price(
        pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=depart
    )
    draft = BookingDraft(
        source="api",
        pickup_time=depart,
        dispatch_queue=queue,
        passenger=PassengerDetails(
            name="Asha Khan", email="asha@example.co.uk", phone="+447911123456"
        ),
    )
    return booking_create(draft=draft, priced=priced)


# A Wednesday morning: the job is picked up 45 minutes later in the same week, whatever the
# day the suite runs (on a Sunday night the pickup would fall into next week's totals).
@time_machine.travel(dt.datetime(2026, 11, 18, 9, 0, tzinfo=dt.UTC), tick=True)
def test_new_booking_is_dispatched_accepted_driven_settled_and_reconciled(
    tariffs, django_capture_on_commit_callbacks
):
    # given an approved driver online near Leeds station, with the app
    driver = driver_at(north_of(LEEDS, 1), user=UserFactory())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    # when a booking is created through the booking engine
    with django_capture_on_commit_callbacks(execute=True):
        booking = create_booking()
    # then dispatch started on its own (booking.created receiver) and offered it to the driver
    booking.refresh_from_db()
    assert booking.status == BookingStatus.OFFERED
    offer = Offer.objects.get(booking=booking, status=OfferStatus.OPEN)
    assert offer.driver == driver
    assert NotificationLog.objects.filter(offer=offer, channel="sms", status="sent").exists()
    # when the driver accepts and drives the job in the app
    [item] = client.get("/api/public/v1/jobs").json()["results"]
    assert client.post(f"/api/public/v1/driver/offers/{item['offerId']}/accept").status_code == 200
    # its app reports the car at the pickup (arrived is judged by the driver's own reports)
    location = {"lat": booking.pickup_lat, "lng": booking.pickup_lng}
    assert client.post("/api/public/v1/driver/location", location, format="json").status_code == 200
    for status in ("en_route", "arrived", "on_board", "completed"):
        # on board: with the code the passenger tells the driver at the kerb
        response = client.post(
            f"/api/public/v1/driver/jobs/{booking.reference}/status",
            {"status": status, "pickupCode": booking.pickup_code},
            format="json",
        )
        assert response.status_code == 200
    paid = client.post(
        f"/api/public/v1/driver/jobs/{booking.reference}/settlement",
        {"amountGBP": 30, "method": "cash", "reference": "cash-1"},
        format="json",
    )
    assert paid.status_code == 201
    # then the booking is complete, the driver free, and the dashboard shows what was paid
    booking.refresh_from_db()
    driver.refresh_from_db()
    assert (booking.status, booking.driver, driver.current_jobs) == (
        BookingStatus.COMPLETED,
        driver,
        0,
    )
    dashboard = driver_dashboard(driver=driver)
    assert dashboard.this_week.jobs == 1
    assert dashboard.this_week.earnings == Decimal("30.00")  # not the quoted fare
    assert booking.fare != Decimal("30.00")


def test_operator_queue_booking_is_not_network_dispatched(
    tariffs, django_capture_on_commit_callbacks
):
    driver_at(LEEDS)
    with django_capture_on_commit_callbacks(execute=True):
        booking = create_booking(queue="operator")
    booking.refresh_from_db()
    assert booking.status == BookingStatus.CONFIRMED
    assert not Offer.objects.filter(booking=booking).exists()


def test_passenger_cancel_frees_the_driver(tariffs, django_capture_on_commit_callbacks):
    from bookings.services import booking_cancel
    from dispatch.services.offers import offer_accept

    driver = driver_at(LEEDS)
    with django_capture_on_commit_callbacks(execute=True):
        booking = create_booking()
    offer = Offer.objects.get(booking=booking, status=OfferStatus.OPEN)
    offer_accept(offer_id=offer.pk, driver=driver)
    booking.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        booking_cancel(booking=booking, actor="passenger", reason="plans changed")
    driver.refresh_from_db()
    assert driver.current_jobs == 0
