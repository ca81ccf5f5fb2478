"""A table from the trade, on phones (issue 33): a driver, in the driver app, sends in
Birmingham's fare table with a photo of the card in the cab; one staff member checks it in
the back office beside the photo; a second staff member approves it; the next quote a
passenger asks for on the website from Birmingham is priced on that table. Every window is
390 px wide; a screenshot of each step under artifacts/screenshots/trade-tables-*.png."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.utils import timezone
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at
from pricing.models import Quote, SubmissionStatus, TariffSubmission
from tests.browser.conftest import SCREENSHOTS

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = (390, 844)
PASSWORD = "correct horse battery"  # drivers.tests.factories.UserFactory
STAFF_PASSWORD = "staff pass phrase 1"
WAIT_SECONDS = 25
AUTHORITY = "Birmingham City Council"


def _wait(tab, seconds: int = WAIT_SECONDS):
    return WebDriverWait(tab, seconds)


def _fits_the_phone(tab) -> None:
    widths = tab.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )
    assert widths[0] <= widths[1] <= PHONE[0], widths


def _shot(tab, step: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    tab.save_screenshot(str(SCREENSHOTS / f"trade-tables-{step}.png"))


def _type(tab, name: str, text: str) -> None:
    field = tab.find_element(By.NAME, name)
    field.clear()
    field.send_keys(text)


def _set(tab, name: str, value: str) -> None:
    """Date and time inputs take their value from script, as a phone's picker sets it."""
    tab.execute_script(
        "document.getElementsByName(arguments[0])[0].value = arguments[1];", name, value
    )


def _staff(username: str, action: str):
    user = get_user_model().objects.create_user(username, password=STAFF_PASSWORD, is_staff=True)
    for codename in (f"{action}_tariffsubmission", "view_tariffsubmission"):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def _admin_action(tab, origin: str, username: str, action: str, pk: int) -> None:
    """Sign in to the back office as ``username`` and run ``action`` on submission ``pk``."""
    tab.delete_all_cookies()
    tab.get(origin + "/admin/login/?next=/admin/pricing/tariffsubmission/")
    tab.find_element(By.ID, "id_username").send_keys(username)
    tab.find_element(By.ID, "id_password").send_keys(STAFF_PASSWORD)
    tab.find_element(By.CSS_SELECTOR, "#login-form [type=submit]").click()
    _wait(tab).until(lambda t: "/login/" not in t.current_url)
    # The submission beside its photo, the card's examples recomputed.
    tab.get(f"{origin}/admin/pricing/tariffsubmission/{pk}/change/")
    photo = tab.find_element(By.CSS_SELECTOR, "img[alt='The table as photographed']")
    assert tab.execute_script("return arguments[0].naturalWidth;", photo) == 60
    assert "agrees" in tab.page_source
    _fits_the_phone(tab)
    tab.execute_script("arguments[0].scrollIntoView();", photo)
    _shot(tab, f"{username}-review")
    tab.get(origin + "/admin/pricing/tariffsubmission/")
    tab.find_element(By.CSS_SELECTOR, f"input.action-select[value='{pk}']").click()
    Select(tab.find_element(By.NAME, "action")).select_by_value(action)
    tab.find_element(By.CSS_SELECTOR, "button[name=index]").click()
    _wait(tab).until(lambda t: t.find_elements(By.CSS_SELECTOR, "ul.messagelist li"))
    _shot(tab, f"{username}-{action}")


def test_a_driver_sends_a_table_two_staff_put_it_live_and_the_next_quote_uses_it(
    browser, second_browser, live_server, tariffs, tmp_path
):
    driver = driver_at(LEEDS, name="Asha Khan", online=False, user=UserFactory())
    _staff("checker", "check")
    _staff("approver", "approve")
    photo = tmp_path / "card.jpg"
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"
    out = io.BytesIO()
    Image.new("RGB", (60, 40), "white").save(out, "JPEG", exif=exif.tobytes())
    photo.write_bytes(out.getvalue())
    app, office = browser, second_browser
    app.set_window_size(*PHONE)
    office.set_window_size(*PHONE)
    origin = live_server.url

    # The driver signs in to the app and sends the table on the card in the cab.
    app.get(origin + "/driver/app/")
    app.execute_script("localStorage.clear();")
    app.refresh()
    _wait(app).until(lambda t: t.find_element(By.ID, "username").is_displayed())
    app.find_element(By.ID, "username").send_keys(driver.user.username)
    app.find_element(By.ID, "password").send_keys(PASSWORD)
    app.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()
    _wait(app).until(lambda t: t.find_element(By.ID, "driver-name").text == "Asha Khan")
    app.find_element(By.CSS_SELECTOR, "#table-details summary").click()
    _type(app, "authority", AUTHORITY)
    in_force = timezone.localdate() - dt.timedelta(days=30)
    _set(app, "effective_from", in_force.isoformat())
    Select(app.find_element(By.NAME, "distance_unit")).select_by_value("m")
    _type(app, "band1_name", "Tariff 1")
    _set(app, "band1_start", "00:00")
    _set(app, "band1_end", "00:00")  # the same time twice: all day
    for name, value in (
        ("band1_flag_fall", "2.80"),
        ("band1_flag_distance", "800"),
        ("band1_increment_price", "0.20"),
        ("band1_increment_distance", "160"),
        ("band1_waiting_seconds", "40"),
        ("example1_miles", "2"),
        ("example1_fare", "6.00"),
    ):
        _type(app, name, value)
    app.find_element(By.ID, "table-photo").send_keys(str(photo))
    _fits_the_phone(app)
    _shot(app, "01-driver-fills-the-table")
    app.find_element(By.ID, "table-send").click()
    sent = _wait(app).until(
        lambda t: t.find_elements(By.CSS_SELECTOR, "#table-submissions li[data-status=pending]")
    )
    assert AUTHORITY in sent[0].text
    _fits_the_phone(app)
    _shot(app, "02-driver-sent-it")
    submission = TariffSubmission.objects.get()
    assert b"PhoneMaker" not in submission.photo.read()

    # Staff member one checks it beside the photo; staff member two approves it.
    _admin_action(office, origin, "checker", "check_submissions", submission.pk)
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.CHECKED
    _admin_action(office, origin, "approver", "approve_submissions", submission.pk)
    submission.refresh_from_db()
    assert submission.status == SubmissionStatus.APPROVED
    reference = submission.tariff.reference

    # The driver's app says it is live.
    app.refresh()
    _wait(app).until(
        lambda t: t.find_elements(By.CSS_SELECTOR, "#table-submissions li[data-status=approved]")
    )
    _shot(app, "03-driver-sees-it-approved")

    # The next quote from Birmingham, on the website, is on the new table.
    office.delete_all_cookies()
    office.get(origin + "/")
    _type(office, "pickup", "Birmingham New Street")
    _type(office, "dropoff", "Birmingham Airport")
    office.find_element(By.CSS_SELECTOR, "#quote-form button[type=submit]").click()
    _wait(office).until(lambda t: t.find_elements(By.ID, "quote"))
    _fits_the_phone(office)
    _shot(office, "04-next-quote")
    quote = Quote.objects.latest("created_at")
    assert quote.tariff_source["reference"] == reference
    assert quote.tariff_source["kind"] == "council"
    if "basis" in quote.tariff_source:
        assert quote.tariff_source["basis"] == "table"


def test_an_operator_sends_a_table_on_its_page_at_phone_size(
    browser, live_server, make_account, tmp_path
):
    from partners.models import OperatorUser
    from tests.browser.test_walks import log_in

    operator = make_account("operator", name="Brum Cars")
    user = UserFactory()
    OperatorUser.objects.create(user=user, account=operator)
    photo = tmp_path / "notice.pdf"
    photo.write_bytes(b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")
    browser.set_window_size(*PHONE)
    log_in(browser, live_server, "/operator/login/", user.username, PASSWORD)
    browser.get(live_server.url + "/operator/tables/")
    _fits_the_phone(browser)
    # Sent without its date first: the page says what is missing and keeps nothing.
    _type(browser, "authority", AUTHORITY)
    _type(browser, "band1_name", "Tariff 1")
    browser.find_element(By.ID, "table-photo").send_keys(str(photo))
    browser.execute_script("document.getElementById('table-form').noValidate = true;")
    browser.find_element(By.CSS_SELECTOR, "#table-form button[type=submit]").click()
    alert = _wait(browser).until(lambda t: t.find_element(By.CSS_SELECTOR, ".notice.bad"))
    assert "came into force" in alert.text
    assert not TariffSubmission.objects.exists()
    _fits_the_phone(browser)
    _shot(browser, "operator-refused")
    # What was typed is kept (the file excepted: browsers never refill one).
    assert browser.find_element(By.NAME, "band1_name").get_attribute("value") == "Tariff 1"
    assert browser.find_element(By.NAME, "authority").get_attribute("value") == AUTHORITY
    _set(browser, "effective_from", "2026-04-01")
    _set(browser, "band1_start", "06:00")
    _set(browser, "band1_end", "22:00")
    for name, value in (
        ("band1_flag_fall", "3.00"),
        ("band1_flag_distance", "1000"),
        ("band1_increment_price", "0.20"),
        ("band1_increment_distance", "150"),
        ("band1_waiting_seconds", "36"),
    ):
        _type(browser, name, value)
    browser.find_element(By.ID, "table-photo").send_keys(str(photo))
    browser.find_element(By.CSS_SELECTOR, "#table-form button[type=submit]").click()
    _wait(browser).until(
        lambda t: t.find_elements(By.CSS_SELECTOR, "#table-submissions li[data-status=pending]")
    )
    _fits_the_phone(browser)
    _shot(browser, "operator-sent")
    submission = TariffSubmission.objects.get()
    assert submission.account == operator
    assert submission.photo_type == "application/pdf"
