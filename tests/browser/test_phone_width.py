"""Phones first (issue 23): every driver and passenger page at 390 px wide, with nothing
scrolling sideways; a screenshot of each as artifacts/screenshots/phone-*.png."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By

from bookings.models import BookingStatus
from bookings.services import booking_pay_driver_url, booking_status_url, payment_record_append
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS
from dispatch.links import offer_link_path
from dispatch.services import offers
from drivers.tests.factories import UserFactory, driver_at
from pricing.services import quote_create
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_walks import DESKTOP, PASSWORD, PHONE, log_in

pytestmark = pytest.mark.django_db(transaction=True)


def _path(url: str) -> str:
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def _check(browser, name: str) -> None:
    scroll, client = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / f"phone-{name}.png"))
    assert client <= PHONE[0], (name, client)
    assert scroll <= client, f"{name} scrolls sideways: {scroll} px wide in {client} px"


def test_every_passenger_page_fits_a_phone(browser, live_server, tariffs):
    driver = driver_at(LEEDS, name="Asha Khan")
    booking = BookingFactory(
        passenger_name="Mary Ann Smith",
        notes="Two large suitcases and a folded wheelchair",
        pickup_code="4821",
    )
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    offers.offer_accept(offer_id=offer.pk, driver=driver)
    quote = quote_create(
        pickup="Leeds station", dropoff="York", passengers=2, vehicle_type=None, depart_at=None
    )
    pages = {
        "landing": "/",
        "book": f"/book/?quote={quote.pk}",
        "status": _path(booking_status_url(booking)),
        "pay-driver": _path(booking_pay_driver_url(booking)),
        "privacy": "/privacy/",
        "agents-sign-in": "/agents/sign-in/",
    }
    browser.set_window_size(*PHONE)
    try:
        for name, path in pages.items():
            browser.get(live_server.url + path)
            _check(browser, f"passenger-{name}")
    finally:
        browser.set_window_size(*DESKTOP)


def test_every_driver_page_fits_a_phone(browser, live_server):
    driver = driver_at(LEEDS, name="Asha Khan", max_jobs=2, user=UserFactory(username="asha"))
    # a job in hand, with the passenger's name and phone the dashboard must not cut off
    held = BookingFactory(
        passenger_name="Mary Ann Smith-Worthington",
        passenger_phone="+447700900555",
        pickup="Leeds station, New Station Street",
        dropoff="Harrogate, Station Parade",
        notes="1 child seat",
    )
    offers.offer_accept(offer_id=offers.booking_dispatch_next(booking_id=held.pk).pk, driver=driver)
    done = BookingFactory(driver=driver, status=BookingStatus.COMPLETED, pickup_time=timezone.now())
    payment_record_append(booking=done, amount=Decimal("30.00"), method="cash", driver=driver)
    # and an offer open to her (the job-card link page of the SMS)
    open_offer = offers.booking_dispatch_next(
        booking_id=BookingFactory(pickup_time=timezone.now() + timedelta(hours=2)).pk
    )

    browser.set_window_size(*PHONE)
    try:
        for name, path in {
            "login": "/driver/login/",
            "signup": "/driver/signup/",
            "signup-done": "/driver/signup/done/",
            "app": "/driver/app/",
            "job-card-link": offer_link_path(open_offer.pk),
        }.items():
            browser.get(live_server.url + path)
            _check(browser, f"driver-{name}")
        log_in(browser, live_server, "/driver/login/", "asha", PASSWORD)
        _check(browser, "driver-dashboard")
        phone = browser.find_element(By.CSS_SELECTOR, "#jobs-in-hand a[href^='tel:']")
        right = browser.execute_script("return arguments[0].getBoundingClientRect().right;", phone)
        assert right <= PHONE[0], right
        assert "Mary Ann Smith-Worthington" in browser.find_element(By.ID, "jobs-in-hand").text
        browser.execute_script("document.getElementById('jobs-in-hand').scrollIntoView();")
        _check(browser, "driver-dashboard-jobs-in-hand")
        browser.execute_script("document.getElementById('weekly-totals').scrollIntoView();")
        _check(browser, "driver-dashboard-weekly-totals")
        browser.get(live_server.url + "/driver/billing/")
        _check(browser, "driver-subscription")
    finally:
        browser.set_window_size(*DESKTOP)


def test_an_estimated_quote_says_so_in_words_at_phone_width(browser, live_server, tariffs):
    """Issue 33: the basis, the authority, the figures' date and the estimate's error, in
    words a passenger reads, on a 390 px screen."""
    import json

    from pricing.loaders import DATA_FILE, estimates_load

    estimates_load(json.loads(DATA_FILE.read_text())["tariffs"])
    quote = quote_create(
        pickup="SW1A 2AA", dropoff="EC2M 7PY", passengers=1, vehicle_type=None, depart_at=None
    )
    assert quote.tariff_source["basis"] == "calibrated"
    browser.set_window_size(*PHONE)
    try:
        browser.get(f"{live_server.url}/book/?quote={quote.pk}")
        note = browser.find_element(By.CSS_SELECTOR, ".estimate-note").text
        assert "Estimated fare." in note
        assert "Transport for London" in note
        assert f"up to {quote.tariff_source['estimate']['errorPct']}%" in note
        page = browser.find_element(By.TAG_NAME, "body").text
        assert "Licensing authority for the pickup: Transport for London." in page
        _check(browser, "passenger-book-estimated")
    finally:
        browser.set_window_size(*DESKTOP)
