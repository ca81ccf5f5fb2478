"""The signed accept/decline page for drivers without the app, and the admin desk."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone

from bookings.models import BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from dispatch.links import offer_link_token
from dispatch.models import OfferStatus
from dispatch.services import offers
from drivers.tests.factories import driver_at

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


# --- issue 16: what the job card shows before and after its deadline -------------------------


def _offer_in_summer(*, notes: str = "1 child seat"):
    """An open offer answerable until 20:00 UTC on 5 June 2030 (21:00 UK summer time)."""
    from datetime import UTC, datetime

    from dispatch.models import Offer, Tier

    booking = BookingFactory(
        passenger_name="Asha Khan",
        passenger_phone="+447700900555",
        notes=notes,
        pickup_time=datetime(2030, 6, 5, 21, 30, tzinfo=UTC),
    )
    return Offer.objects.create(
        booking=booking,
        tier=Tier.LOCAL,
        driver=driver_at(LEEDS),
        status=OfferStatus.OPEN,
        expires_at=datetime(2030, 6, 5, 20, 0, tzinfo=UTC),
    )


BEFORE_DEADLINE = "2030-06-05T19:55:00Z"
AFTER_DEADLINE = "2030-06-05T20:00:30Z"


def test_the_notes_are_shown_before_accepting_and_the_passenger_is_not(client):
    # Given an open offer whose passenger asked for a child seat
    offer = _offer_in_summer()
    # When the driver opens the job card before answering
    with time_machine.travel(BEFORE_DEADLINE, tick=False):
        html = client.get(page(offer)).content.decode()
    # Then the notes are there (the driver needs them to decide), the contact details not
    assert 'id="job-notes">1 child seat<' in html
    assert 'value="accept"' in html
    assert "Asha Khan" not in html
    assert "+447700900555" not in html


def test_the_deadline_is_shown_in_uk_local_time(client):
    offer = _offer_in_summer()
    with time_machine.travel(BEFORE_DEADLINE, tick=False):
        html = client.get(page(offer)).content.decode()
    deadline = html.split('id="deadline"', 1)[1].split("</div>", 1)[0]
    # 20:00 UTC is 21:00 in the UK in June; the pickup 21:30 UTC is 22:30
    assert "<strong>21:00</strong> (UK time, 5 June 2030)" in deadline
    assert "Wed 5 June 2030, 22:30 (UK time)" in html


def test_after_the_deadline_there_is_no_accept_button_but_a_clear_expiry(client):
    # Given an offer past its deadline that the timeout task has not closed yet
    offer = _offer_in_summer()
    with time_machine.travel(AFTER_DEADLINE, tick=False):
        response = client.get(page(offer))
    html = response.content.decode()
    # Then the page says it has expired and offers nothing to press
    assert response.status_code == 200
    assert "This offer has expired." in html
    assert 'value="accept"' not in html
    assert 'value="decline"' not in html
    # and the notes are still there to read
    assert "1 child seat" in html


def test_an_offer_the_timeout_closed_shows_the_same_expiry(client):
    offer = _offer_in_summer()
    offer.status = OfferStatus.EXPIRED
    offer.save(update_fields=["status"])
    with time_machine.travel(AFTER_DEADLINE, tick=False):
        html = client.get(page(offer)).content.decode()
    assert "This offer has expired." in html
    assert 'value="accept"' not in html


def test_a_late_accept_from_a_stale_page_is_refused_with_a_plain_message(client):
    # Given a page loaded before the deadline and submitted after it
    offer = _offer_in_summer()
    with time_machine.travel(AFTER_DEADLINE, tick=False):
        response = client.post(page(offer), {"decision": "accept"})
    html = response.content.decode()
    # Then nothing changes and the driver reads why, with no button to try again
    assert response.status_code == 409
    assert "This offer is no longer open: it has expired or was withdrawn." in html
    assert "This offer has expired." in html
    assert 'value="accept"' not in html
    offer.booking.refresh_from_db()
    assert offer.booking.driver is None


def test_the_job_card_message_carries_the_notes_too():
    from dispatch.services.job_cards import job_card_body

    offer = _offer_in_summer()
    assert "Notes: 1 child seat" in job_card_body(offer=offer)
    assert "Asha Khan" not in job_card_body(offer=offer)


def test_the_job_card_page_is_usable_on_a_phone_and_its_form_is_csrf_protected(client, offered):
    html = client.get(page(offered)).content.decode()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
    assert "/static/css/app-pages.css" in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert "https://" not in html.split("<body>", 1)[0]  # no stylesheet from a CDN
