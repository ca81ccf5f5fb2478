"""Back office: recording a flight's arrival from the booking list (dispatch's action,
added to bookings' admin by dispatch.admin)."""

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model

from bookings.tests.factories import BookingFactory
from dispatch.airports import airport_get

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser("boss", "boss@example.co.uk", "pw")
    client.force_login(user)
    return client


def test_the_back_office_records_a_flight_arrival_and_the_pickup_follows(
    staff_client,
):
    # given a pickup at Leeds Bradford for BA1234 at 10:00 UTC (10:00 UK time in November)
    lba = airport_get("LBA")
    booked = dt.datetime(2026, 11, 23, 10, 0, tzinfo=dt.UTC)
    booking = BookingFactory(
        pickup_lat=lba.lat, pickup_lng=lba.lng, flight_number="BA1234", pickup_time=booked
    )
    form = {"action": "flight_arrival_record", "_selected_action": [booking.pk]}
    # the form first
    page = staff_client.post("/admin/bookings/booking/", form)
    assert page.status_code == 200
    assert "landing_at" in page.context["form"].fields
    # when the back office records the landing at 10:50 UK time, terminal Main
    with time_machine.travel(booked - dt.timedelta(hours=2), tick=False):
        response = staff_client.post(
            "/admin/bookings/booking/",
            {
                **form,
                "apply": "1",
                "status": "landed",
                "landing_at": "2026-11-23 10:50",
                "terminal": "Main",
            },
        )
    # then the pickup is the landing plus the international allowance, by the service
    assert response.status_code == 302
    booking.refresh_from_db()
    assert booking.pickup_time == booked + dt.timedelta(minutes=50 + 45)
    event = booking.events.latest("sequence")
    assert event.actor == "admin:boss"
    assert event.detail["flight"]["landed"] is True
