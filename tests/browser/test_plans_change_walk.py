"""When plans change (issue 34), on phones 390 px wide: Asha, the nearest Leeds driver,
declines a website booking in the driver app; the decline itself offers it to the next
Leeds driver, Ben Walsh, whose app shows the offer within seconds and who accepts; the
passenger cancels from the tracking page; Ben's app shows the job as cancelled and the
console (the notification backend the demo and the tests run) prints the cancellation
message sent to his phone.

Three phones: Asha's and Ben's driver apps each in their own Chromium (``browser`` and
``second_browser``), the passenger's pages in a second window of Asha's Chromium (its own
window size; the passenger's pages need no state of their own). Screenshots under
artifacts/screenshots/plans-change-walk-*.png.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from bookings.models import Booking, BookingStatus
from core.localtime import local_datetime_input
from core.testing.places import LEEDS, north_of
from dispatch.models import NotificationKind, NotificationLog, Offer, OfferStatus
from drivers.tests.factories import UserFactory, driver_at
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_driver_app_walk import (
    DESKTOP,
    PASSWORD,
    PHONE,
    _fits_the_phone,
    _job_in_app,
    _open_app_signed_out,
    _type,
    _wait,
)

pytestmark = pytest.mark.django_db(transaction=True)

ASHA_AT = north_of(LEEDS, 1)
BEN_AT = north_of(LEEDS, 3)
# The decline itself offers the booking on (dispatch.services.offers.trail._offer_close), not the
# re-dispatch schedule's next pass (DISPATCH_REDISPATCH_EVERY_SECONDS, 30 s).
HANDED_ON_WITHIN = timedelta(seconds=5)


@pytest.fixture
def fast_tracking(monkeypatch):
    """The tracking page polls every half second, so the walk does not wait long."""
    monkeypatch.setattr("dispatch.views.TRACKING_POLL_MS", 500)


def _shot(tab, step: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.save_screenshot(str(SCREENSHOTS / f"plans-change-walk-{step}.png"))


def _online_in_app(tab, origin: str, driver, at: tuple[float, float]) -> None:
    """The driver's phone, with its position, signs in to the app and goes online."""
    tab.set_window_size(*PHONE)
    tab.execute_cdp_cmd(
        "Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]}
    )
    tab.execute_cdp_cmd(
        "Emulation.setGeolocationOverride",
        {"latitude": at[0], "longitude": at[1], "accuracy": 10},
    )
    _open_app_signed_out(tab, origin)
    _type(tab, By.ID, "username", driver.user.username)
    _type(tab, By.ID, "password", PASSWORD)
    tab.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
    _wait(tab).until(lambda t: t.find_element(By.ID, "driver-name").text == driver.name)
    tab.find_element(By.ID, "go-online").click()
    _wait(tab).until(lambda t: t.find_element(By.ID, "availability").text.startswith("Online"))


def _book_on_the_website(tab, origin: str) -> None:
    tab.get(origin + "/")
    _type(tab, By.NAME, "pickup", "Leeds station")
    _type(tab, By.NAME, "dropoff", "York")
    pickup_at = local_datetime_input(timezone.now() + timedelta(minutes=40))
    tab.execute_script("document.getElementById('id_depart_at').value = arguments[0];", pickup_at)
    _type(tab, By.NAME, "passengers", "1")
    Select(tab.find_element(By.NAME, "vehicle_type")).select_by_value("saloon")
    tab.find_element(By.CSS_SELECTOR, "#quote-form button[type=submit]").click()
    _wait(tab).until(lambda t: t.find_elements(By.ID, "book-link"))
    tab.find_element(By.ID, "book-link").click()
    _wait(tab).until(lambda t: t.find_elements(By.ID, "book"))
    _type(tab, By.NAME, "passenger_name", "Priya Shah")
    _type(tab, By.NAME, "passenger_phone", "+447700900123")
    _type(tab, By.NAME, "passenger_email", "priya.shah@example.co.uk")
    Select(tab.find_element(By.NAME, "payment_method")).select_by_value("cash")
    tab.find_element(By.CSS_SELECTOR, "#book button[type=submit]").click()


def _status_is(tab, status: str) -> None:
    _wait(tab).until(
        lambda t: t.find_element(By.ID, "status").get_attribute("data-status") == status
    )


def _offer_in_app(tab, offer: Offer):
    """The offer's card, once the app's polling has brought it."""
    return _wait(tab).until(
        lambda t: t.find_element(By.CSS_SELECTOR, f'#offers article.offer[data-offer="{offer.pk}"]')
    )


def test_a_declined_booking_passes_to_the_next_driver_and_a_cancellation_reaches_him(
    browser, second_browser, live_server, tariffs, fast_tracking, capsys, settings
):
    # On a loaded machine the walk to Asha's decline can outlast a minute's offer, which
    # the app then drops unanswered: this walk is about declining, not timing out.
    settings.DISPATCH_OFFER_TIMEOUT_SECONDS = 600
    asha = driver_at(ASHA_AT, name="Asha Khan", online=False, user=UserFactory())
    ben = driver_at(BEN_AT, name="Ben Walsh", online=False, user=UserFactory())
    origin = live_server.url
    asha_app, ben_app = browser, second_browser
    asha_window = asha_app.current_window_handle
    try:
        _online_in_app(asha_app, origin, asha, ASHA_AT)
        _online_in_app(ben_app, origin, ben, BEN_AT)

        # The passenger books on the website, on their own phone.
        asha_app.switch_to.new_window("window")
        passenger = asha_app
        passenger_window = passenger.current_window_handle
        passenger.set_window_size(*PHONE)
        _book_on_the_website(passenger, origin)
        _status_is(passenger, "offered")
        booking = Booking.objects.get()
        tracking_url = passenger.current_url
        first = Offer.objects.get(booking=booking)
        assert first.driver == asha  # the nearest Leeds driver is asked first

        # Asha declines in her app.
        asha_app.switch_to.window(asha_window)
        offer = _offer_in_app(asha_app, first)
        _fits_the_phone(asha_app)
        _shot(asha_app, "1-asha-offered")
        offer.find_element(By.CSS_SELECTOR, "button.decline").click()
        _wait(asha_app).until(
            lambda t: (
                not any(
                    booking.reference in o.text
                    for o in t.find_elements(By.CSS_SELECTOR, "#offers article.offer")
                )
            )
        )
        _shot(asha_app, "2-asha-declined")
        # The app hides an answered offer while its answer is on the way (its outbox):
        # the decline has reached the server once the offer's row says so.
        _wait(asha_app).until(
            lambda _: Offer.objects.get(pk=first.pk).status == OfferStatus.DECLINED
        )
        first.refresh_from_db()

        # The decline hands the booking to Ben at once; his app shows the offer.
        handed_on = _wait(ben_app).until(
            lambda _: Offer.objects.filter(booking=booking, driver=ben).first()
        )
        assert handed_on.created_at - first.responded_at < HANDED_ON_WITHIN
        offer = _offer_in_app(ben_app, handed_on)
        assert "Leeds" in offer.text
        _fits_the_phone(ben_app)
        _shot(ben_app, "3-ben-offered")
        offer.find_element(By.CSS_SELECTOR, "button.accept").click()
        _job_in_app(ben_app, booking.reference, "accepted")
        _shot(ben_app, "4-ben-accepted")

        # The passenger sees Ben's acceptance, and cancels from the tracking page.
        passenger.switch_to.window(passenger_window)
        _status_is(passenger, "accepted")
        assert "Ben" in passenger.find_element(By.TAG_NAME, "main").text
        _fits_the_phone(passenger)
        _shot(passenger, "5-passenger-accepted")
        passenger.find_element(By.ID, "cancel-link").click()
        confirm = _wait(passenger).until(lambda t: t.find_element(By.ID, "cancel-confirm"))
        _fits_the_phone(passenger)
        _shot(passenger, "6-passenger-cancel")
        confirm.click()
        _wait(passenger).until(lambda t: t.current_url == tracking_url)
        _status_is(passenger, "cancelled")
        assert not passenger.find_element(By.ID, "cancel-line").is_displayed()
        _shot(passenger, "7-passenger-cancelled")
        booking.refresh_from_db()
        assert booking.status == BookingStatus.CANCELLED

        # Ben's app says the job is cancelled, on its card and in its message line.
        card = _wait(ben_app).until(
            lambda t: t.find_element(
                By.CSS_SELECTOR, f'#cancelled article[data-cancelled="{booking.reference}"]'
            )
        )
        assert "Do not go to the pickup." in card.text
        assert not ben_app.find_elements(
            By.CSS_SELECTOR, f'#jobs article[data-job="{booking.reference}"]'
        )
        message = ben_app.find_element(By.ID, "app-message").text
        assert f"Cancelled: {booking.reference}" in message
        _fits_the_phone(ben_app)
        _shot(ben_app, "8-ben-cancelled")

        # The console (the demo's and the tests' notification backend) printed the
        # cancellation sent to Ben's phone, by SMS and by WhatsApp; Asha, who declined,
        # is told nothing.
        console = capsys.readouterr().out
        for channel in ("sms", "whatsapp"):
            assert f"--- job card by {channel} to {ben.phone} ---" in console
        assert f"CANCELLED: job {booking.reference}" in console
        assert "Do not go to the pickup; the job is off your list." in console
        sent = NotificationLog.objects.filter(kind=NotificationKind.CANCELLATION)
        assert {(log.driver_id, log.channel) for log in sent} == {
            (ben.pk, "sms"),
            (ben.pk, "whatsapp"),
        }
    finally:
        for handle in asha_app.window_handles:
            if handle != asha_window:
                asha_app.switch_to.window(handle)
                asha_app.close()
        asha_app.switch_to.window(asha_window)
        asha_app.set_window_size(*DESKTOP)
