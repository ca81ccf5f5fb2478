"""The driver's side of a trip, on phones (issue 23): a passenger books on the website; the
driver, in the driver app (the PWA at /driver/app/), goes online, gets the offer as it
arrives, accepts it and runs the trip (en route, arrived, on board with the passenger's
pickup code, completed), records the cash and sees the earnings; the passenger's tracking
page shows every step. Two Chromium windows 390 px wide, one per phone; a screenshot of
each step in each under artifacts/screenshots/driver-app-walk-*.png.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from bookings.models import Booking, BookingStatus, PaymentRecord
from core.localtime import local_datetime, local_datetime_input, local_today
from core.testing.places import LEEDS, north_of
from drivers.tests.factories import UserFactory, driver_at
from tests.browser.conftest import SCREENSHOTS
from tests.browser.test_walks import log_in

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = (390, 844)
DESKTOP = (1280, 900)
PASSWORD = "correct horse battery"  # drivers.tests.factories.UserFactory
WAIT_SECONDS = 25
DRIVER_AT = north_of(LEEDS, 1)


def _wait(tab, seconds: int = WAIT_SECONDS):
    return WebDriverWait(tab, seconds)


def _type(tab, by, key, text: str) -> None:
    field = tab.find_element(by, key)
    field.clear()
    field.send_keys(text)


def _fits_the_phone(tab) -> None:
    """Nothing scrolls sideways at 390 px."""
    widths = tab.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )
    assert widths[0] <= widths[1] <= PHONE[0], widths


def _shot(tab, step: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.save_screenshot(str(SCREENSHOTS / f"driver-app-walk-{step}.png"))


def _jobs_today(booking: Booking) -> str:
    """Today's job count on the driver's pages: a job counts on its pickup day, UK time
    (``dispatch.selectors.driver_dashboard``). The walk books 40 minutes ahead, so from
    23:20 the pickup falls tomorrow and today's count is 0: the walk must hold then too."""
    return "1" if local_datetime(booking.pickup_time).date() == local_today() else "0"


def _open_app_signed_out(tab, origin: str) -> None:
    """The app as a phone that never signed in (the browser is shared by the session, and
    the app keeps its state in localStorage)."""
    tab.get(origin + "/driver/app/")
    tab.execute_script("localStorage.clear();")
    tab.refresh()
    _wait(tab).until(lambda t: t.find_element(By.ID, "username").is_displayed())


def _passenger_sees(tab, status: str, step: str) -> None:
    _wait(tab).until(
        lambda t: t.find_element(By.ID, "status").get_attribute("data-status") == status
    )
    _fits_the_phone(tab)
    _shot(tab, step)


def _job_button(tab, reference: str, move: str):
    selector = f'article[data-job="{reference}"] button[data-move="{move}"]'
    return _wait(tab).until(lambda t: t.find_element(By.CSS_SELECTOR, selector))


def _job_in_app(tab, reference: str, status: str) -> None:
    _wait(tab).until(
        lambda t: t.find_elements(
            By.CSS_SELECTOR, f'#jobs article[data-job="{reference}"][data-status="{status}"]'
        )
    )


@pytest.fixture
def fast_tracking(monkeypatch):
    """The tracking page polls every half second, so the walk does not wait long."""
    monkeypatch.setattr("dispatch.views.TRACKING_POLL_MS", 500)


def test_a_driver_runs_a_website_booking_in_the_driver_app_on_a_phone(
    browser, second_browser, live_server, tariffs, fast_tracking
):
    driver = driver_at(DRIVER_AT, name="Asha Khan", online=False, user=UserFactory())
    app, passenger = browser, second_browser
    app.set_window_size(*PHONE)
    passenger.set_window_size(*PHONE)
    # The phone lets the app know where it is.
    origin = live_server.url
    app.execute_cdp_cmd(
        "Browser.grantPermissions", {"origin": origin, "permissions": ["geolocation"]}
    )
    app.execute_cdp_cmd(
        "Emulation.setGeolocationOverride",
        {"latitude": DRIVER_AT[0], "longitude": DRIVER_AT[1], "accuracy": 10},
    )
    try:
        # The driver opens the app: installable (manifest, service worker), and signs in.
        _open_app_signed_out(app, origin)
        manifest = app.find_element(By.CSS_SELECTOR, "link[rel=manifest]").get_attribute("href")
        assert manifest.endswith("/driver/app/manifest.webmanifest")
        _type(app, By.ID, "username", driver.user.username)
        _type(app, By.ID, "password", PASSWORD)
        app.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
        _wait(app).until(lambda t: t.find_element(By.ID, "driver-name").text == "Asha Khan")
        _wait(app).until(
            lambda t: t.execute_script(
                "return navigator.serviceWorker.controller !== null || "
                "navigator.serviceWorker.getRegistrations().then(r => r.length);"
            )
        )
        _fits_the_phone(app)
        _shot(app, "01-signed-in")

        # Goes online (with the phone's position).
        app.find_element(By.ID, "go-online").click()
        _wait(app).until(lambda t: t.find_element(By.ID, "availability").text.startswith("Online"))
        driver.refresh_from_db()
        assert driver.online
        assert (round(driver.last_lat, 4), round(driver.last_lng, 4)) == (
            round(DRIVER_AT[0], 4),
            round(DRIVER_AT[1], 4),
        )
        _shot(app, "02-online")

        # The passenger books on the website, on their phone.
        passenger.get(origin + "/")
        _type(passenger, By.NAME, "pickup", "Leeds station")
        _type(passenger, By.NAME, "dropoff", "York")
        pickup_at = local_datetime_input(timezone.now() + timedelta(minutes=40))
        passenger.execute_script(
            "document.getElementById('id_depart_at').value = arguments[0];", pickup_at
        )
        _type(passenger, By.NAME, "passengers", "1")
        Select(passenger.find_element(By.NAME, "vehicle_type")).select_by_value("saloon")
        passenger.find_element(By.CSS_SELECTOR, "#quote-form button[type=submit]").click()
        _wait(passenger).until(lambda t: t.find_elements(By.ID, "book-link"))
        _fits_the_phone(passenger)
        passenger.find_element(By.ID, "book-link").click()
        _wait(passenger).until(lambda t: t.find_elements(By.ID, "book"))
        _type(passenger, By.NAME, "passenger_name", "Priya Shah")
        _type(passenger, By.NAME, "passenger_phone", "+447700900123")
        _type(passenger, By.NAME, "passenger_email", "priya.shah@example.co.uk")
        Select(passenger.find_element(By.NAME, "payment_method")).select_by_value("cash")
        _fits_the_phone(passenger)
        passenger.find_element(By.CSS_SELECTOR, "#book button[type=submit]").click()
        _passenger_sees(passenger, "offered", "p1-offered")
        booking = Booking.objects.get()
        code = passenger.find_element(By.ID, "pickup-code").text
        assert code == booking.pickup_code
        assert len(code) == 4

        # The offer arrives in the app by itself (polling), with its countdown.
        offer = _wait(app).until(lambda t: t.find_element(By.CSS_SELECTOR, "#offers article.offer"))
        assert "Leeds" in offer.text
        assert "Answer within" in offer.find_element(By.CLASS_NAME, "countdown").text
        _fits_the_phone(app)
        _shot(app, "03-offer")
        offer.find_element(By.CSS_SELECTOR, "button.accept").click()
        _job_in_app(app, booking.reference, "accepted")
        job = app.find_element(By.CSS_SELECTOR, f'article[data-job="{booking.reference}"]')
        assert "Priya Shah" in job.text
        navigate = job.find_element(By.CSS_SELECTOR, "a.navigate").get_attribute("href")
        assert navigate.startswith("https://www.google.com/maps/dir/?api=1&destination=53.79")
        _fits_the_phone(app)
        _shot(app, "04-accepted")
        _passenger_sees(passenger, "accepted", "p2-accepted")

        # En route, arrived: the passenger's page follows each step.
        _job_button(app, booking.reference, "en_route").click()
        _job_in_app(app, booking.reference, "en_route")
        _shot(app, "05-en-route")
        _passenger_sees(passenger, "en_route", "p3-en-route")
        _job_button(app, booking.reference, "arrived").click()
        _job_in_app(app, booking.reference, "arrived")
        _passenger_sees(passenger, "arrived", "p4-arrived")

        # On board: a wrong code is refused, the passenger's code starts the trip.
        field = app.find_element(By.ID, f"code-{booking.reference}")
        field.send_keys("0000" if code != "0000" else "1111")
        _job_button(app, booking.reference, "on_board").click()
        # refused where the driver is looking, on the job's card
        refusal = _wait(app).until(
            lambda t: t.find_element(
                By.CSS_SELECTOR, f'article[data-job="{booking.reference}"] .job-error'
            )
        )
        assert "not this booking's pickup code" in refusal.text
        app.execute_script("arguments[0].scrollIntoView({block: 'center'});", refusal)
        _shot(app, "06-wrong-code")
        field = app.find_element(By.ID, f"code-{booking.reference}")
        field.clear()
        field.send_keys(code)
        _shot(app, "07-arrived-with-code")
        _job_button(app, booking.reference, "on_board").click()
        _job_in_app(app, booking.reference, "on_board")
        _shot(app, "08-on-board")
        _passenger_sees(passenger, "on_board", "p5-on-board")
        # the code is spent once on board: the page no longer shows it
        assert not passenger.find_element(By.ID, "pickup-code-line").is_displayed()

        # Completed, then the cash is recorded.
        _job_button(app, booking.reference, "completed").click()
        settle = _wait(app).until(
            lambda t: t.find_element(
                By.CSS_SELECTOR, f'#to-settle form[data-job="{booking.reference}"]'
            )
        )
        _passenger_sees(passenger, "completed", "p6-completed")
        assert Select(settle.find_element(By.NAME, "method")).first_selected_option.text == "Cash"
        amount = settle.find_element(By.NAME, "amount")
        amount.clear()
        amount.send_keys("30.00")
        _fits_the_phone(app)
        _shot(app, "09-completed-record-cash")
        settle.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        _wait(app).until(lambda t: "recorded" in t.find_element(By.ID, "app-message").text)
        record = PaymentRecord.objects.get(booking=booking)
        assert (record.amount, record.method, record.driver_id) == (30, "cash", driver.pk)

        # The earnings show what was recorded, not the quoted fare.
        _wait(app).until(lambda t: t.find_element(By.ID, "week-earnings").text == "£30.00")
        assert app.find_element(By.ID, "today-jobs").text == _jobs_today(booking)
        app.execute_script("document.getElementById('earnings-heading').scrollIntoView();")
        _fits_the_phone(app)
        _shot(app, "10-earnings")
        app.execute_script("document.getElementById('subscription-heading').scrollIntoView();")
        assert app.find_element(By.ID, "subscription-stage").text == "Free trial"
        _shot(app, "11-subscription")
        passenger.refresh()
        passenger.execute_script("document.getElementById('timeline').scrollIntoView();")
        _passenger_sees(passenger, "completed", "p7-paid-and-history")
        steps = [li.text for li in passenger.find_elements(By.CSS_SELECTOR, "#timeline li")]
        for words in ("Driver accepted", "Driver on the way", "Driver has arrived", "On board"):
            assert any(step.startswith(words) for step in steps), steps
        assert steps[-1].startswith("Journey completed")
        assert passenger.find_element(By.ID, "payment").get_attribute("data-payment-state") in (
            "paid",
            "part_paid",
        )
        booking.refresh_from_db()
        assert booking.status == BookingStatus.COMPLETED

        # and the driver dashboard page says the same
        log_in(app, live_server, "/driver/login/", driver.user.username, PASSWORD)
        assert app.find_element(By.ID, "week-earnings").text == "£30.00"
        assert app.find_element(By.ID, "today-jobs").text == _jobs_today(booking)
        app.execute_script("document.getElementById('week-totals').scrollIntoView();")
        _fits_the_phone(app)
        _shot(app, "12-dashboard-page")
    finally:
        app.set_window_size(*DESKTOP)


def _network(tab, offline: bool) -> None:
    tab.execute_cdp_cmd("Network.enable", {})
    tab.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def test_the_app_opens_offline_says_so_and_sends_what_waited(browser, live_server):
    driver = driver_at(DRIVER_AT, name="Asha Khan", user=UserFactory())
    app = browser
    app.set_window_size(*PHONE)
    try:
        _open_app_signed_out(app, live_server.url)
        _type(app, By.ID, "username", driver.user.username)
        _type(app, By.ID, "password", PASSWORD)
        app.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
        _wait(app).until(lambda t: t.find_element(By.ID, "availability").text.startswith("Online"))
        # the service worker has taken the app's files
        _wait(app).until(lambda t: t.execute_script("return !!navigator.serviceWorker.controller"))
        app.refresh()
        _wait(app).until(lambda t: t.execute_script("return !!navigator.serviceWorker.controller"))

        # when the connection drops, the app still opens, from what it kept, and says so
        _network(app, offline=True)
        app.refresh()
        _wait(app).until(lambda t: t.find_element(By.ID, "driver-name").text == "Asha Khan")
        _wait(app).until(lambda t: t.find_element(By.ID, "offline-banner").is_displayed())
        assert app.find_element(By.ID, "connection").text == "No connection"
        # a change made meanwhile waits, and says it does
        app.find_element(By.ID, "go-offline").click()
        _wait(app).until(
            lambda t: "Waiting to send: go offline" in t.find_element(By.ID, "offline-banner").text
        )
        _shot(app, "offline-waiting")
        driver.refresh_from_db()
        assert driver.online

        # then it goes, once, when the connection is back
        _network(app, offline=False)
        _wait(app).until(lambda t: t.find_element(By.ID, "availability").text.startswith("Offline"))
        _wait(app).until(lambda t: not t.find_element(By.ID, "offline-banner").is_displayed())
        driver.refresh_from_db()
        assert not driver.online
        _shot(app, "offline-sent")
    finally:
        _network(app, offline=False)
        app.set_window_size(*DESKTOP)
