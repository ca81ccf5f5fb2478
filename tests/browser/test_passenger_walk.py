"""The passenger's walk (issue 16): a quote on the landing page, booking it, and the
tracking page showing a driver's acceptance without a reload."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from bookings.models import Booking, BookingSource, BookingStatus
from core.localtime import local_datetime_input
from core.testing.places import LEEDS, north_of
from dispatch.models import Offer, OfferStatus
from dispatch.services.offers import offer_accept
from drivers.tests.factories import driver_at
from pricing.models import Quote

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_SECONDS = 20


@pytest.fixture
def fast_tracking(monkeypatch):
    """The tracking page polls every half second, so the walk does not wait long."""
    monkeypatch.setattr("dispatch.views.TRACKING_POLL_MS", 500)


def _wait(browser):
    return WebDriverWait(browser, WAIT_SECONDS)


def _type(browser, name: str, text: str) -> None:
    field = browser.find_element(By.NAME, name)
    field.clear()
    field.send_keys(text)


def test_quote_book_and_watch_a_driver_accept_without_reload(
    browser, live_server, screenshot, tariffs, fast_tracking
):
    driver = driver_at(north_of(LEEDS, 1), name="Asha Khan")

    # The landing page: the pickup field suggests places from the gazetteer as one types.
    browser.get(live_server.url + "/")
    _type(browser, "pickup", "Leeds st")
    _wait(browser).until(
        lambda b: (
            "Leeds"
            in " ".join(
                o.get_attribute("value")
                for o in b.find_elements(By.CSS_SELECTOR, "#place-suggestions-pickup option")
            )
        )
    )
    _type(browser, "pickup", "Leeds station")
    _type(browser, "dropoff", "York")
    # Soon enough that its dispatch window is already open: dispatch starts at booking.
    pickup_at = local_datetime_input(timezone.now() + timedelta(minutes=40))
    browser.execute_script(
        "document.getElementById('id_depart_at').value = arguments[0];", pickup_at
    )
    _type(browser, "passengers", "2")
    Select(browser.find_element(By.NAME, "vehicle_type")).select_by_value("saloon")
    browser.find_element(By.CSS_SELECTOR, "#quote-form button[type=submit]").click()

    quote_card = _wait(browser).until(ec.presence_of_element_located((By.ID, "quote")))
    assert "£" in quote_card.find_element(By.CLASS_NAME, "fare").text
    assert quote_card.find_elements(By.CSS_SELECTOR, ".fare-lines tbody tr")
    assert "UK time" in quote_card.find_element(By.CLASS_NAME, "fixed-until").text
    quote = Quote.objects.get()
    measured = quote_card.find_element(By.ID, "measured-between").text
    assert quote.pickup_place["label"] in measured
    assert quote.dropoff_place["label"] in measured
    screenshot("passenger-landing-quote")

    # The booking page bookingUrl opens: the passenger's details and the way to pay.
    browser.find_element(By.ID, "book-link").click()
    _wait(browser).until(ec.presence_of_element_located((By.ID, "book")))
    _type(browser, "passenger_name", "Priya Shah")
    _type(browser, "passenger_phone", "+447700900123")
    _type(browser, "passenger_email", "priya.shah@example.co.uk")
    Select(browser.find_element(By.NAME, "payment_method")).select_by_value("cash")
    screenshot("passenger-booking-page")
    browser.find_element(By.CSS_SELECTOR, "#book button[type=submit]").click()

    # The tracking page: the booking was offered to the nearby driver.
    status = _wait(browser).until(ec.presence_of_element_located((By.ID, "status")))
    booking = Booking.objects.get()
    assert booking.source == BookingSource.WEBSITE
    assert booking.reference in browser.title
    assert status.get_attribute("data-status") == BookingStatus.OFFERED
    browser.execute_script("window.walkMarker = 'same-document';")

    # The driver accepts in their app (the dispatch service the driver API calls).
    offer = Offer.objects.get(booking=booking, status=OfferStatus.OPEN)
    offer_accept(offer_id=offer.pk, driver=driver)

    _wait(browser).until(
        lambda b: b.find_element(By.ID, "status").get_attribute("data-status") == "accepted"
    )
    assert browser.execute_script("return window.walkMarker;") == "same-document"
    assert browser.find_element(By.ID, "status").text == "Driver accepted"
    assert "Asha K." in browser.find_element(By.ID, "driver").text
    timeline = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#timeline li")]
    assert timeline[0].startswith("Booked")
    assert timeline[-1].startswith("Driver accepted")
    assert not any("booking." in step for step in timeline)
    # the sketch map, drawn without any map service
    assert browser.find_elements(By.CSS_SELECTOR, "#map svg circle.pickup")
    screenshot("passenger-tracking-updated")
    browser.execute_script("document.getElementById('timeline').scrollIntoView();")
    screenshot("passenger-tracking-timeline")


def test_a_refused_quote_is_explained_and_the_form_works_by_keyboard(
    browser, live_server, screenshot, tariffs
):
    browser.get(live_server.url + "/")
    # The skip link comes first from the keyboard, and focus is visible on it.
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("class") == "skip-link"
    assert focused.value_of_css_property("outline-style") == "solid"

    _type(browser, "pickup", "Nowhereville Qwxz")
    _type(browser, "dropoff", "York")
    browser.find_element(By.NAME, "dropoff").send_keys(Keys.ENTER)
    alert = _wait(browser).until(ec.presence_of_element_located((By.ID, "form-errors")))
    assert alert.text.startswith("We could not find that address")
    assert browser.find_element(By.ID, "id_pickup").get_attribute("aria-invalid") == "true"
    screenshot("passenger-landing-refused")


def test_an_expired_quote_and_the_pay_the_driver_page(browser, live_server, screenshot, tariffs):
    from bookings.services import booking_pay_driver_url
    from bookings.tests.factories import BookingFactory
    from pricing.models import Quote
    from pricing.services import quote_create

    quote = quote_create(
        pickup="Leeds station", dropoff="York", passengers=1, vehicle_type=None, depart_at=None
    )
    Quote.objects.filter(pk=quote.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    browser.get(f"{live_server.url}/book/?quote={quote.pk}")
    assert browser.find_element(By.TAG_NAME, "h1").text == "This quote has expired"
    assert not browser.find_elements(By.ID, "book")
    screenshot("passenger-quote-expired")
    browser.find_element(By.LINK_TEXT, "Get a new quote").click()
    _wait(browser).until(ec.presence_of_element_located((By.ID, "quote-form")))

    booking = BookingFactory(pickup_time=timezone.now() + timedelta(hours=2))
    path = booking_pay_driver_url(booking).split("://", 1)[1].split("/", 1)[1]
    browser.get(f"{live_server.url}/{path}")
    assert "never ask for card details" in browser.page_source
    assert not browser.find_elements(By.TAG_NAME, "input")
    screenshot("passenger-pay-driver")
