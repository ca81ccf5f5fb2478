"""Seed 1: the passenger may pay "the driver's own payment link". The driver sets it on
the dashboard; the pay-the-driver page of a booking that driver holds shows it."""

from __future__ import annotations

import pytest
from django.test import Client

from bookings.models import BookingStatus
from bookings.services import booking_pay_driver_url
from bookings.tests.factories import BookingFactory
from core.errors import DomainError
from core.testing.places import LEEDS
from drivers.services import driver_payment_link_set
from drivers.tests.factories import UserFactory, driver_at

pytestmark = pytest.mark.django_db

LINK = "https://pay.example-processor.co.uk/asha-k"


def logged_in(driver) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(driver.user)
    return client


def test_the_driver_saves_their_link_from_the_dashboard():
    driver = driver_at(LEEDS, user=UserFactory())
    client = logged_in(driver)

    response = client.post("/driver/payment-link/", {"payment_link": f"  {LINK} "}, follow=True)

    driver.refresh_from_db()
    assert driver.payment_link == LINK
    html = response.content.decode()
    assert "Your payment link is saved." in html
    assert f'value="{LINK}"' in html


@pytest.mark.parametrize(
    "link",
    ["http://pay.example.co.uk/x", "javascript:alert(1)", "/relative/path", "pay.example.co.uk"],
)
def test_only_an_absolute_https_link_is_taken(link):
    driver = driver_at(LEEDS, user=UserFactory())
    driver_payment_link_set(driver=driver, link=LINK)

    with pytest.raises(DomainError) as refused:
        driver_payment_link_set(driver=driver, link=link)

    assert refused.value.code == "invalid_input"
    assert "payment_link" in refused.value.errors
    driver.refresh_from_db()
    assert driver.payment_link == LINK  # unchanged


def test_a_refused_link_is_explained_on_the_dashboard():
    driver = driver_at(LEEDS, user=UserFactory())
    response = logged_in(driver).post(
        "/driver/payment-link/", {"payment_link": "javascript:alert(1)"}, follow=True
    )
    assert "https:// address" in response.content.decode()


def test_an_empty_link_removes_it():
    driver = driver_at(LEEDS, user=UserFactory())
    driver_payment_link_set(driver=driver, link=LINK)
    driver_payment_link_set(driver=driver, link="")
    driver.refresh_from_db()
    assert driver.payment_link == ""


def test_the_form_needs_a_csrf_token_and_a_driver_login(client):
    driver = driver_at(LEEDS, user=UserFactory())
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(driver.user)
    assert strict.post("/driver/payment-link/", {"payment_link": LINK}).status_code == 403
    assert client.post("/driver/payment-link/", {"payment_link": LINK}).status_code == 302
    driver.refresh_from_db()
    assert driver.payment_link == ""


def test_the_pay_page_offers_the_link_of_the_driver_holding_the_booking(client):
    driver = driver_at(LEEDS, user=UserFactory())
    driver_payment_link_set(driver=driver, link=LINK)
    waiting = BookingFactory()
    held = BookingFactory(status=BookingStatus.ACCEPTED, driver=driver)

    assert LINK not in client.get(booking_pay_driver_url(waiting)).content.decode()
    html = client.get(booking_pay_driver_url(held)).content.decode()
    assert f'href="{LINK}"' in html
    assert 'rel="noopener noreferrer"' in html
    assert "<input" not in html  # still no card data asked for


# --- the driver's own maps key (seed 8.5), from the same dashboard --------------------------

MAPS_KEY = "k-3f9a77c1d2e4b5a6"


def test_the_driver_saves_a_maps_key_that_is_never_shown_again():
    from drivers.selectors import driver_maps_key

    driver = driver_at(LEEDS, user=UserFactory())
    client = logged_in(driver)

    response = client.post("/driver/maps-key/", {"maps_api_key": MAPS_KEY}, follow=True)

    driver.refresh_from_db()
    assert driver_maps_key(driver) == MAPS_KEY
    assert MAPS_KEY not in driver.maps_api_key_encrypted  # stored encrypted
    html = response.content.decode()
    assert "Your maps API key is saved." in html
    assert "set, ending ...b5a6" in html
    assert MAPS_KEY not in html  # never shown again, not even to its owner


def test_a_bad_maps_key_is_explained_and_an_empty_one_removes_it():
    from drivers.selectors import driver_maps_key

    driver = driver_at(LEEDS, user=UserFactory())
    client = logged_in(driver)
    client.post("/driver/maps-key/", {"maps_api_key": MAPS_KEY})

    refused = client.post("/driver/maps-key/", {"maps_api_key": "two words"}, follow=True)
    assert "one word" in refused.content.decode()
    driver.refresh_from_db()
    assert driver_maps_key(driver) == MAPS_KEY

    client.post("/driver/maps-key/", {"maps_api_key": ""})
    driver.refresh_from_db()
    assert driver_maps_key(driver) == ""
