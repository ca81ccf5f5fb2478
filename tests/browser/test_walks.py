"""Issue 16's walks, in Debian's Chromium against the live server: a driver accepts a job
card from its link; the driver dashboard shows the week's totals; an operator assigns a
job from the calendar. Each saves a screenshot under artifacts/screenshots/.

The live server runs in another thread on real time, so nothing here freezes the clock:
the records are placed between the start of the current UK week and now, wherever in the
week the suite runs (CI runs on Monday nights)."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from bookings.models import Booking, BookingStatus, PaymentRecord
from bookings.references import reference_generate
from bookings.services import payment_record_append
from bookings.tests.factories import BookingFactory
from core.localtime import local_midnight, local_today, local_week_start
from core.testing.places import LEEDS
from dispatch.links import offer_link_path
from dispatch.models import Offer, OfferStatus, Tier
from dispatch.services import offers
from drivers.tests.factories import UserFactory, driver_at, fleet_driver
from partners.models import OperatorUser

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = (390, 844)
DESKTOP = (1280, 900)
PASSWORD = "correct horse battery"  # drivers.tests.factories.UserFactory


@contextmanager
def window(browser, size):
    """The tab at ``size`` for one walk; the browser is shared by the session."""
    browser.set_window_size(*size)
    try:
        yield
    finally:
        browser.set_window_size(*DESKTOP)


def log_in(browser, live_server, path: str, username: str, password: str) -> None:
    browser.get(live_server.url + path)
    browser.find_element(By.ID, "id_username").send_keys(username)
    browser.find_element(By.ID, "id_password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda tab: "/login/" not in tab.current_url)


def press_and_wait(browser, button, element_id: str) -> None:
    """Press ``button`` and wait for the next page, which has ``element_id``."""
    button.click()
    WebDriverWait(browser, 10).until(expected_conditions.staleness_of(button))
    WebDriverWait(browser, 10).until(
        expected_conditions.presence_of_element_located((By.ID, element_id))
    )


def text(browser, element_id: str) -> str:
    return browser.find_element(By.ID, element_id).text.strip()


def test_a_driver_accepts_a_job_card_from_its_link(browser, live_server, screenshot):
    # Given a driver offered a job whose passenger needs a child seat
    driver = driver_at(LEEDS)
    booking = BookingFactory(
        passenger_name="Mary Ann Smith", passenger_phone="+447700900555", notes="1 child seat"
    )
    offer = offers.booking_dispatch_next(booking_id=booking.pk)
    assert offer.driver == driver

    with window(browser, PHONE):
        # When the driver opens the link from the SMS on their phone
        browser.get(live_server.url + offer_link_path(offer.pk))
        # Then before answering they see the notes and the deadline, not the passenger
        assert text(browser, "job-notes") == "1 child seat"
        assert "UK time" in text(browser, "deadline")
        assert "Mary Ann Smith" not in browser.page_source
        screenshot("walk-driver-job-card-before-accept")
        # When they accept
        accept = browser.find_element(By.CSS_SELECTOR, "button[value=accept]")
        press_and_wait(browser, accept, "decision-message")
        # Then the job is theirs and the passenger's details appear
        assert text(browser, "decision-message").startswith("You have accepted this job.")
        assert "Mary Ann Smith" in text(browser, "passenger")
        assert not browser.find_elements(By.CSS_SELECTOR, "button[value=accept]")
        shot = screenshot("walk-driver-accepts-job-card")

    booking.refresh_from_db()
    assert (booking.status, booking.driver) == (BookingStatus.ACCEPTED, driver)
    assert shot.stat().st_size > 5000


def _moments_this_week(count: int):
    """``count`` moments between the start of the current UK week and now, oldest first."""
    now = timezone.now()
    start = local_midnight(local_week_start(local_today(now)))
    span = now - start
    return [start + span * (n + 1) / (count + 2) for n in range(count)]


def test_the_driver_dashboard_shows_the_weeks_totals(browser, live_server, screenshot):
    # Given a driver with three jobs this week, paid by their payment records (one refund)
    driver = driver_at(LEEDS, max_jobs=5, user=UserFactory(username="asha.khan"))
    jobs = [  # (paid, refunded, card fee, dead miles)
        (Decimal("42.50"), Decimal("0.00"), Decimal("0.00"), Decimal("2.5")),
        (Decimal("30.00"), Decimal("5.00"), Decimal("0.62"), Decimal("1.2")),
        (Decimal("18.40"), Decimal("0.00"), Decimal("0.00"), Decimal("3.0")),
    ]
    for (paid, refunded, fee, dead), when in zip(jobs, _moments_this_week(len(jobs)), strict=True):
        booking = BookingFactory(driver=driver, pickup_time=when, status=BookingStatus.COMPLETED)
        Offer.objects.create(
            booking=booking,
            tier=Tier.LOCAL,
            driver=driver,
            status=OfferStatus.ACCEPTED,
            dead_miles=dead,
            expires_at=when,
            released_at=when,
        )
        payment_record_append(
            booking=booking,
            amount=paid,
            method="card",
            processor_fee=fee,
            driver=driver,
            occurred_at=when,
        )
        if refunded:
            payment_record_append(
                booking=booking,
                amount=refunded,
                method="card",
                kind=PaymentRecord.Kind.REFUND,
                driver=driver,
                occurred_at=when + timedelta(seconds=1),
            )
    earnings = sum(paid - refunded for paid, refunded, _, _ in jobs)
    dead_miles = sum(dead for *_, dead in jobs)
    fees = sum(fee for _, _, fee, _ in jobs)

    with window(browser, PHONE):
        # When the driver logs in on their phone
        log_in(browser, live_server, "/driver/login/", "asha.khan", PASSWORD)
        # Then the dashboard shows the week's totals reconciled from the records
        assert text(browser, "week-jobs") == str(len(jobs))
        assert text(browser, "week-earnings") == f"£{earnings:.2f}"  # 85.90
        assert text(browser, "week-refunds") == "£5.00"
        assert text(browser, "week-fees") == f"£{fees:.2f}"
        assert text(browser, "week-dead-miles") == f"{dead_miles:.1f} mi"
        this_week = local_week_start(local_today()).isoformat()
        row = browser.find_element(By.CSS_SELECTOR, f'#weekly-totals tr[data-week="{this_week}"]')
        assert f"£{earnings:.2f}" in row.text
        # and it links to the subscription page
        assert (
            browser.find_element(By.ID, "subscription-link")
            .get_attribute("href")
            .endswith("/driver/billing/")
        )
        shot = screenshot("walk-driver-dashboard-week-totals")
        # and the subscription page it links to shows the same week's earnings
        link = browser.find_element(By.ID, "subscription-link")
        press_and_wait(browser, link, "current-week")
        assert f"earnings £{earnings:.2f}" in text(browser, "current-week")
        screenshot("walk-driver-subscription")
    assert shot.stat().st_size > 5000


def test_an_operator_assigns_a_job_from_the_calendar(
    browser, live_server, screenshot, make_account
):
    # Given an operator with a driver of its own fleet and a job in its own queue
    operator = make_account("operator", name="Leeds Cars", approved=True)
    user = get_user_model().objects.create_user("dispatcher", password=PASSWORD)
    OperatorUser.objects.create(user=user, account=operator)
    driver = fleet_driver(operator=operator, name="Tom Price", registration="YX70 TOM")
    fleet_driver(operator=operator, name="Priya Shah", registration="YX71 PRI")
    pickup = timezone.now() + timedelta(hours=3)
    job = Booking.objects.create(
        reference=reference_generate(),
        source="operator",
        account=operator,
        job_ref="LC-1042",
        dispatch_queue="operator",
        pickup="Leeds station",
        dropoff="Leeds Bradford Airport",
        passenger_name="Jo Bloggs",
        passenger_phone="+447700900123",
        notes="1 child seat",
        fare=Decimal("28.40"),
        pickup_time=pickup,
    )

    # When the operator logs in and opens the calendar on the job's day (UK time)
    log_in(browser, live_server, "/operator/login/", "dispatcher", PASSWORD)
    browser.get(f"{live_server.url}/operator/calendar/?day={local_today(pickup).isoformat()}")
    card = browser.find_element(By.ID, f"job-{job.reference}")
    assert "Leeds station" in card.text
    screenshot("walk-operator-calendar-before-assign")
    # and chooses a driver of its fleet for the job
    Select(card.find_element(By.TAG_NAME, "select")).select_by_visible_text("Tom Price (YX70 TOM)")
    assign = card.find_element(By.CSS_SELECTOR, "button[type=submit]")
    press_and_wait(browser, assign, f"job-{job.reference}")

    # Then it is back on the calendar, told so, with the job assigned to that driver
    assert "/operator/calendar/" in browser.current_url
    notice = browser.find_element(By.CSS_SELECTOR, ".messages .notice.ok").text
    assert notice == f"{job.reference} assigned to Tom Price."
    card = browser.find_element(By.ID, f"job-{job.reference}")
    assert "Tom Price · YX70 TOM" in card.text
    assert "Accepted" in card.text
    shot = screenshot("walk-operator-assigns-from-calendar")
    # and the job list says the same
    press_and_wait(browser, browser.find_element(By.LINK_TEXT, "Jobs"), "status-filter")
    assert "Tom Price · YX70 TOM" in browser.find_element(By.ID, f"job-{job.reference}").text
    screenshot("walk-operator-job-list")

    job.refresh_from_db()
    assert (job.status, job.driver) == (BookingStatus.ACCEPTED, driver)
    assert shot.stat().st_size > 5000
