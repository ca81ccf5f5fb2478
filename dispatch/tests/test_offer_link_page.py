"""The signed accept/decline page for drivers without the app, and the admin desk."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from dispatch.links import offer_link_token
from dispatch.models import OfferStatus
from dispatch.services import offers
from drivers.tests.factories import driver_at
from tests.places import LEEDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def offered(django_capture_on_commit_callbacks):
    driver_at(LEEDS)
    booking = BookingFactory(passenger_name="Asha Khan", passenger_phone="+447700900555")
    with django_capture_on_commit_callbacks(execute=True):
        return offers.booking_dispatch_next(booking_id=booking.pk)


def page(offer):
    return f"/dispatch/offers/{offer_link_token(offer.pk)}/"


def test_page_shows_the_job_without_passenger_details(client, offered):
    response = client.get(page(offered))
    html = response.content.decode()
    assert response.status_code == 200
    assert offered.booking.reference in html
    assert 'value="accept"' in html
    assert "Asha Khan" not in html


def test_accepting_on_the_page_assigns_the_driver(client, offered):
    response = client.post(page(offered), {"decision": "accept"})
    assert response.status_code == 200
    assert "Asha Khan" in response.content.decode()
    offered.booking.refresh_from_db()
    assert (offered.booking.status, offered.booking.driver) == (
        BookingStatus.ACCEPTED,
        offered.driver,
    )


def test_declining_on_the_page(client, offered):
    client.post(page(offered), {"decision": "decline"})
    offered.refresh_from_db()
    assert offered.status == OfferStatus.DECLINED


def test_late_accept_on_the_page_is_refused(client, offered):
    with time_machine.travel(timezone.now() + timedelta(seconds=120)):
        response = client.post(page(offered), {"decision": "accept"})
    assert response.status_code == 409
    offered.booking.refresh_from_db()
    assert offered.booking.driver is None


def test_expired_link_is_410_and_forged_link_404(client, offered, settings):
    settings.DISPATCH_OFFER_LINK_MAX_AGE_SECONDS = 60
    token = offer_link_token(offered.pk)
    with time_machine.travel(timezone.now() + timedelta(seconds=120)):
        assert client.get(f"/dispatch/offers/{token}/").status_code == 410
    forged = token.replace(str(offered.pk) + ":", str(offered.pk + 1) + ":", 1)
    assert client.get(f"/dispatch/offers/{forged}/").status_code == 404


def test_admin_dispatch_board_shows_the_trail_and_assigns(client, offered):
    admin = get_user_model().objects.create_superuser("desk", "desk@example.co.uk", "pw")
    client.force_login(admin)
    booking = offered.booking
    response = client.get(f"/admin/dispatch/dispatchbooking/{booking.pk}/change/")
    assert response.status_code == 200
    assert "dispatch trail" in response.content.decode().lower()
    other = driver_at(LEEDS)
    response = client.post(
        "/admin/dispatch/dispatchbooking/",
        {
            "action": "assign_driver",
            "_selected_action": [booking.pk],
            "apply": "1",
            "driver": other.pk,
        },
    )
    assert response.status_code == 302
    booking.refresh_from_db()
    assert (booking.status, booking.driver) == (BookingStatus.ACCEPTED, other)
    for path in ("offer", "dispatchattempt", "notificationlog"):
        assert client.get(f"/admin/dispatch/{path}/").status_code == 200
