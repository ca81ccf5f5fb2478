"""A passenger's data, self-served, on a phone (issue 39): from the footer's privacy link,
ask for a copy, open the emailed link, see and download the data; then ask for erasure
and see what is kept, why and until when."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from dateutil.relativedelta import relativedelta
from django.core import mail
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from bookings.models import Booking
from bookings.tests.factories import BookingFactory, PassengerFactory
from tests.browser.test_walks import DESKTOP, PHONE

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "priya.shah@example.co.uk"


def _ask(browser, live_server, kind: str) -> str:
    browser.get(live_server.url + "/")
    browser.find_element(By.CSS_SELECTOR, "footer a.privacy-link").click()
    form = WebDriverWait(browser, 20).until(
        ec.presence_of_element_located((By.ID, "data-request-form"))
    )
    form.find_element(By.NAME, "email").send_keys(EMAIL)
    form.find_element(By.CSS_SELECTOR, f"input[name=kind][value={kind}]").click()
    sent = len(mail.outbox)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.ID, "request-sent")))
    WebDriverWait(browser, 20).until(lambda _: len(mail.outbox) > sent)
    link = re.search(r"https?://\S+?(/privacy/requests/\S+/)", mail.outbox[-1].body)
    return live_server.url + link.group(1)


def test_a_passenger_gets_their_data_then_asks_for_erasure_on_a_phone(
    browser, live_server, screenshot
):
    PassengerFactory(email=EMAIL, name="Priya Shah")
    recent = BookingFactory(
        passenger_email=EMAIL,
        passenger_name="Priya Shah",
        status="completed",
        pickup_time=timezone.now() - dt.timedelta(days=2),
    )
    old = BookingFactory(
        passenger_email=EMAIL,
        passenger_name="Priya Shah",
        status="completed",
        pickup_time=timezone.now() - relativedelta(months=13),
    )
    browser.set_window_size(*PHONE)
    try:
        _walk(browser, live_server, screenshot, recent, old)
    finally:
        browser.set_window_size(*DESKTOP)


def _walk(browser, live_server, screenshot, recent, old):
    link = _ask(browser, live_server, "access")
    browser.get(link)
    browser.find_element(By.CSS_SELECTOR, "#confirm-request button").click()
    bookings = WebDriverWait(browser, 20).until(
        ec.presence_of_element_located((By.ID, "data-bookings"))
    )
    assert recent.reference in bookings.text
    assert old.reference in bookings.text
    download = browser.find_element(By.ID, "download-data")
    assert download.get_attribute("href").endswith("/data.json")
    assert browser.execute_script(
        "return document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )
    screenshot("privacy-access")
    # The download is the same data, as JSON.
    browser.get(download.get_attribute("href"))
    assert recent.reference in browser.page_source

    link = _ask(browser, live_server, "erasure")
    browser.get(link)
    browser.find_element(By.CSS_SELECTOR, "#confirm-request button").click()
    kept = WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.ID, "kept")))
    erased = browser.find_element(By.ID, "erased").text
    assert old.reference in erased
    assert recent.reference in kept.text
    assert "licensing authority" in kept.text
    assert str((recent.pickup_time + relativedelta(months=12)).year) in kept.text
    screenshot("privacy-erasure")
    assert Booking.objects.get(pk=old.pk).passenger_email == ""
    assert Booking.objects.get(pk=recent.pk).passenger_email == EMAIL
